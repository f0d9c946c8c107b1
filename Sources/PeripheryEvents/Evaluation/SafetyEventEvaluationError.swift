/// Why a drive cannot be evaluated against its truth.
public enum SafetyEventEvaluationError: Error, Equatable, CustomStringConvertible {
    /// The truth measures ranges from another bumper than the events do.
    case egoFrontMismatch(drive: String, truth: Double, events: Double)
    /// A processed frame's time is not a frame of the truth.
    case frameWithoutTruth(drive: String, timestamp: Double)

    public var description: String {
        switch self {
        case .egoFrontMismatch(let drive, let truth, let events):
            "\(drive): truth.json's ego_front_m is \(truth) m but the events measure ranges from a bumper at \(events) m (egoFrontMetres)"
        case .frameWithoutTruth(let drive, let timestamp):
            "\(drive): the frame at \(timestamp) s has no trajectory entry in truth.json (its \"t\" must match frames.csv's pts)"
        }
    }
}
