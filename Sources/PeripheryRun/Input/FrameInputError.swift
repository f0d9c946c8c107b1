import PeripheryCore
import PeripheryGeometry

/// Why an input cannot be opened: each case names the input (its path, or its URL without a
/// password) and says what was expected, in the one wording that `periphery run`, the C API and
/// Python all report.
public enum FrameInputError: Error, Equatable, CustomStringConvertible {
    /// Nothing is at `path`.
    case notFound(path: String)
    /// `path` exists but cannot be read (`reason`).
    case unreadable(path: String, reason: String)
    /// A directory without PNG or JPEG frames (at its top level or in `images/`).
    case noFrames(path: String)
    /// The input needs a calibration and was given none; `looked` is where one was looked for.
    case needsCalibration(input: String, kind: FrameInput.Kind, looked: String?)
    /// The calibration file cannot be used (the error names the file and field).
    case calibration(CalibrationError)
    /// The frames' size is not the calibration's.
    case sizeMismatch(input: String, frames: PixelSize, calibration: PixelSize)
    /// `option` is for another kind of input: `needs` says which.
    case optionMismatch(input: String, option: String, kind: FrameInput.Kind, needs: String)
    /// `option`'s value cannot work.
    case invalidOption(input: String, option: String, reason: String)
    /// `auto-pitch` lacks what it needs from the drive (`missing`).
    case autoPitch(input: String, missing: String)

    public var description: String {
        switch self {
        case .notFound(let path): "\(path): no such file or directory"
        case .unreadable(let path, let reason): "\(path): \(reason)"
        case .noFrames(let path): "\(path): no PNG or JPEG frames (at its top level or in images/)"
        case .needsCalibration(let input, let kind, let looked):
            "\(input): \(kind) needs a calibration: none given" + (looked.map { ", and there is no \($0)" } ?? "")
        case .calibration(let error): "\(error)"
        case .sizeMismatch(let input, let frames, let calibration):
            "\(input): frames are \(frames.width)x\(frames.height), the calibration's \(calibration.width)x\(calibration.height)"
        case .optionMismatch(let input, let option, let kind, let needs): "\(input): \(option) is for \(needs), not \(kind)"
        case .invalidOption(let input, let option, let reason): "\(input): \(option): \(reason)"
        case .autoPitch(let input, let missing): "\(input): auto-pitch needs \(missing)"
        }
    }
}
