/// What the tracker takes for one camera frame: its time, ego motion and detections (a line of a
/// recorded detection stream, or a frame of the engine).
public struct TrackerInput: Sendable, Equatable {
    /// Frame time, seconds.
    public var t: Double
    /// Ego motion since the previous line; nil when the line has none (the tracker is then reset).
    public var ego: EgoDelta?
    /// The frame's vehicles in the vehicle frame.
    public var detections: [Detection]

    /// Creates one frame's input.
    public init(t: Double, ego: EgoDelta?, detections: [Detection]) {
        self.t = t
        self.ego = ego
        self.detections = detections
    }
}
