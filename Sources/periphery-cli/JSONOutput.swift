import Foundation
import Periphery

/// The CLI's JSON: every document goes through `Codable`, keys in snake case and sorted (Foundation
/// on Linux does not keep declaration order; sorted output is the same on every run), so a field is
/// named once, in its type. A non-finite number is an encoding error, never invalid JSON.
enum JSONOutput {
    /// `value` as one line of JSON.
    static func line(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return String(decoding: try encoder.encode(value), as: UTF8.self)
        } catch {
            throw CLIError("cannot write JSON: \(error)")
        }
    }

    /// An array with one element per line, as `decode` and `detect` print detections.
    static func array(_ values: [some Encodable]) throws -> String {
        values.isEmpty ? "[]" : "[\n  " + (try values.map { try line($0) }.joined(separator: ",\n  ")) + "\n]"
    }
}

/// A detection as `decode` and `detect` print it: score, label, class name, then the box.
struct DetectionRecord: Encodable {
    var detection: Detection

    enum CodingKeys: String, CodingKey { case score, label, `class` }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(detection.score, forKey: .score)
        try c.encode(detection.label, forKey: .label)
        try c.encode(detection.vehicleClass?.name ?? "unknown", forKey: .class)
        try detection.box.encode(to: encoder)
    }
}
