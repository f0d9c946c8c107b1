/// The operating point of the decoder.
public struct DecodeSettings: Sendable, Hashable {
    /// Keep a candidate whose best-class sigmoid score is at least this.
    public var scoreThreshold: Float
    /// Circular NMS radius on BEV centres, metres.
    public var nmsRadius: Double
    /// Drop boxes whose size or base height is implausible for their class.
    public var rejectImplausible: Bool
    /// Region outside which boxes are decode artefacts.
    public var region: EvaluationRegion

    /// Creates settings; defaults are the reference operating point (0.50, 2.0 m, filter off).
    public init(
        scoreThreshold: Float = 0.50, nmsRadius: Double = 2.0,
        rejectImplausible: Bool = false, region: EvaluationRegion = .safety40
    ) {
        self.scoreThreshold = scoreThreshold
        self.nmsRadius = nmsRadius
        self.rejectImplausible = rejectImplausible
        self.region = region
    }
}
