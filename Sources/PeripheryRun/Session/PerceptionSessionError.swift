import PeripheryIO

/// Why a session ended before the end of its source. Its outputs are finished either way.
public enum PerceptionSessionError: Error, CustomStringConvertible {
    /// The source failed after `processed` frames: a file cut short, a decoding error, a live
    /// source lost for longer than its reconnect timeout (`underlying` names the source).
    case input(processed: Int, underlying: any Error)
    /// The frame has no camera of its own and the run has no calibration.
    case noIntrinsics(frame: String)
    /// The engine refused the frame.
    case frame(name: String, underlying: any Error)
    /// An output could not be written.
    case output(any Error)

    public var description: String {
        switch self {
        case .input(_, let underlying): "\(underlying)"
        case .noIntrinsics(let frame): "\(frame): no intrinsics in frames.csv and no calibration"
        case .frame(let name, let underlying): "\(name): \(underlying)"
        case .output(let underlying): "\(underlying)"
        }
    }
}
