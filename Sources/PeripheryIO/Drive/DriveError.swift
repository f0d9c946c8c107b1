import PeripheryCore
import PeripheryGeometry

/// Why a drive cannot be read.
public enum DriveError: Error, Equatable, CustomStringConvertible {
    /// A file or directory cannot be read.
    case unreadable(path: String, reason: String)
    /// A CSV file lacks a required column.
    case missingColumn(path: String, column: String)
    /// The drive has no frames.
    case noFrames(path: String)
    /// Neither `frames.csv` nor a calibration file gives the drive's camera.
    case noCamera(path: String)
    /// A drive directory used without a calibration has none at `expected`.
    case noCalibration(path: String, expected: String)
    /// A frame's size differs from the camera's; `cameraFile` is the file that gives the camera's
    /// size, when another than the drive's own.
    case frameSize(path: String, size: PixelSize, camera: PixelSize, cameraFile: String?)
    /// A dataset file's camera (its `field`, e.g. `P2`) is not a valid camera.
    case invalidCamera(path: String, field: String, CalibrationError)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "\(path): \(reason)"
        case .missingColumn(let path, let column): "\(path): missing column '\(column)'"
        case .noFrames(let path): "\(path): no PNG or JPEG frames"
        case .noCamera(let path): "\(path): no intrinsics in frames.csv and no calibration file"
        case .noCalibration(let path, let expected): "\(path): a drive directory needs \(expected) or a calibration file"
        case .frameSize(let path, let size, let camera, let file): "\(path): \(size), the camera is \(camera)" + (file.map { " in \($0)" } ?? "")
        case .invalidCamera(let path, let field, let error): "\(path): \(field): \(error)"
        }
    }
}

/// A row skipped while reading a drive, for the user to see.
public struct SkippedRow: Sendable, Hashable, CustomStringConvertible {
    /// File the row is in.
    public var path: String
    /// 1-based line number.
    public var line: Int
    /// What is wrong with it.
    public var reason: String

    public var description: String { "\(path):\(line): \(reason), skipped" }
}
