/// Why a video file could not be read or written to the end.
public enum VideoError: Error, Equatable, CustomStringConvertible {
    /// The file cannot be opened as a video: not a video, no video track, an unsupported codec.
    case unreadable(path: String, reason: String)
    /// Decoding stopped early; `frames` frames were delivered before it did.
    case incomplete(path: String, frames: Int, reason: String)
    /// The frames do not fit what the run expects (a size that is not the calibration's).
    case mismatch(path: String, reason: String)
    /// Writing a video failed.
    case unwritable(path: String, reason: String)

    public var description: String {
        switch self {
        case let .unreadable(path, reason): "\(path): \(reason)"
        case let .incomplete(path, frames, reason): "\(path): \(reason); \(frames) frames were decoded before it"
        case let .mismatch(path, reason): "\(path): \(reason)"
        case let .unwritable(path, reason): "\(path): cannot write the video (\(reason))"
        }
    }
}
