import Foundation

/// Why a video file could not be read or written to the end.
public enum VideoError: Error, Equatable, CustomStringConvertible {
    /// The file cannot be opened as a video: not a video, no video track, an unsupported codec.
    case unreadable(path: String, reason: String)
    /// Decoding stopped early; `frames` frames were delivered before it did.
    case incomplete(path: String, frames: Int, reason: String)
    /// The frames do not fit what the run expects (a size that is not the calibration's).
    case mismatch(path: String, reason: String)
    /// A live source said nothing for `seconds`, reconnecting included.
    case timedOut(path: String, seconds: Double, reason: String)
    /// A live source's option cannot be used (`option` names it).
    case invalidOption(path: String, option: String, reason: String)
    /// Writing a video failed.
    case unwritable(path: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "\(path): \(reason)"
        case .incomplete(let path, let frames, let reason): "\(path): \(reason); \(frames) frames were decoded before it"
        case .mismatch(let path, let reason): "\(path): \(reason)"
        case .timedOut(let path, let seconds, let reason):
            "\(path): no frames for \(String(format: "%.1f", seconds)) s, reconnecting included (last: \(reason))"
        case .invalidOption(let path, let option, let reason): "\(path): --\(option) \(reason)"
        case .unwritable(let path, let reason): "\(path): cannot write the video (\(reason))"
        }
    }
}
