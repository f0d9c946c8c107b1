/// A prediction matched to a ground-truth box (a true positive), with its errors.
public struct MatchedPair: Sendable, Hashable {
    /// The matched prediction.
    public var prediction: Detection
    /// The ground-truth box it took.
    public var groundTruth: GroundTruthBox

    /// Creates a pair.
    public init(prediction: Detection, groundTruth: GroundTruthBox) {
        self.prediction = prediction
        self.groundTruth = groundTruth
    }

    /// BEV centre distance between the two boxes, metres.
    public var centreDistance: Double {
        let dx = prediction.box.x - groundTruth.box.x, dy = prediction.box.y - groundTruth.box.y
        return (dx * dx + dy * dy).squareRoot()
    }

    /// Absolute heading difference, wrapped to [0, π] radians (opposite headings cost π).
    public var yawError: Double {
        abs((prediction.box.yaw - groundTruth.box.yaw).remainder(dividingBy: 2 * Double.pi))
    }

    /// `yawError` in degrees, in [0°, 180°].
    public var yawErrorDegrees: Double { yawError * 180 / Double.pi }

    /// The prediction's bottom height `z − height/2`, metres above the road plane z = 0
    /// (negative: the box sinks into the road).
    public var contactHeight: Double { prediction.box.z - prediction.box.height / 2 }
}
