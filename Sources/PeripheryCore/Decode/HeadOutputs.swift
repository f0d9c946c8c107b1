/// The three head tensors in the decoder's candidate-major layout.
///
/// `classes` [6720, 4] logits, `boxes` [6720, 9] regression codes, `directions` [6720, 2] logits,
/// each contiguous and row-major. Only element counts are checked, as in the reference.
public struct HeadOutputs: Sendable {
    /// Class logits, `candidate · 4 + class`.
    public package(set) var classes: [Float]
    /// Box codes `[dx, dy, dz, dw, dl, dh, dyaw, v1, v2]`, `candidate · 9 + code`.
    public package(set) var boxes: [Float]
    /// Direction logits, `candidate · 2 + bin`.
    public package(set) var directions: [Float]

    /// Creates head outputs after checking each tensor's element count.
    ///
    /// - Throws: `HeadOutputError.wrongElementCount` naming the first tensor of the wrong size.
    public init(classes: [Float], boxes: [Float], directions: [Float]) throws(HeadOutputError) {
        let n = Safety40.candidateCount
        for (name, count, channels) in [
            ("classes", classes.count, Safety40.classChannels),
            ("boxes", boxes.count, Safety40.boxCodeChannels),
            ("directions", directions.count, Safety40.directionChannels),
        ] where count != n * channels {
            throw .wrongElementCount(tensor: name, expected: n * channels, actual: count)
        }
        self.classes = classes
        self.boxes = boxes
        self.directions = directions
    }

    /// All-zero outputs of the contract's sizes, for reusing as a destination buffer.
    public static func zeros() -> HeadOutputs {
        HeadOutputs(
            unchecked: [Float](repeating: 0, count: Safety40.candidateCount * Safety40.classChannels),
            [Float](repeating: 0, count: Safety40.candidateCount * Safety40.boxCodeChannels),
            [Float](repeating: 0, count: Safety40.candidateCount * Safety40.directionChannels))
    }

    private init(unchecked classes: [Float], _ boxes: [Float], _ directions: [Float]) {
        self.classes = classes
        self.boxes = boxes
        self.directions = directions
    }
}

/// Why head tensors cannot be decoded.
public enum HeadOutputError: Error, Equatable, CustomStringConvertible {
    /// A tensor does not hold `candidateCount × channels` elements.
    case wrongElementCount(tensor: String, expected: Int, actual: Int)

    public var description: String {
        switch self {
        case .wrongElementCount(let tensor, let expected, let actual):
            "head tensor '\(tensor)' has \(actual) elements, expected \(expected)"
        }
    }
}
