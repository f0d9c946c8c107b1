import CPeriphery
import PeripheryCore
import PeripheryGeometry
import PeripheryIO
import PeripheryInference
import PeripheryRun

/// A failure at the boundary: the status a C caller gets and the message behind `periphery_last_error`.
struct BoundaryFailure: Error {
    var status: periphery_status
    var message: String

    /// A NULL pointer, an unknown enum value or a number out of range, named by `argument`.
    static func invalidArgument(_ argument: String, _ problem: String) -> BoundaryFailure {
        BoundaryFailure(status: PERIPHERY_ERROR_INVALID_ARGUMENT, message: "\(argument): \(problem)")
    }

    /// The status for an error of the library: each typed error family has its code.
    init(_ error: any Error) {
        switch error {
        case let failure as BoundaryFailure: self = failure
        case is SafetensorsError: self.init(status: PERIPHERY_ERROR_WEIGHTS, message: "\(error)")
        case is CalibrationError: self.init(status: PERIPHERY_ERROR_CALIBRATION, message: "\(error)")
        case is DetectorSetupError: self.init(status: PERIPHERY_ERROR_UNSUPPORTED, message: "\(error)")
        case is PerceptionError: self.init(status: PERIPHERY_ERROR_FRAME, message: "\(error)")
        case is PreprocessError: self.init(status: PERIPHERY_ERROR_INVALID_ARGUMENT, message: "image: \(error)")
        case let session as PerceptionSessionError:
            switch session {
            case .input: self.init(status: PERIPHERY_ERROR_SOURCE, message: "\(error)")
            case .noIntrinsics: self.init(status: PERIPHERY_ERROR_CALIBRATION, message: "\(error)")
            case .frame: self.init(status: PERIPHERY_ERROR_FRAME, message: "\(error)")
            case .output: self.init(status: PERIPHERY_ERROR_INTERNAL, message: "\(error)")
            }
        case let input as FrameInputError:
            switch input {
            case .needsCalibration, .calibration: self.init(status: PERIPHERY_ERROR_CALIBRATION, message: "\(error)")
            case .optionMismatch, .invalidOption: self.init(status: PERIPHERY_ERROR_INVALID_ARGUMENT, message: "\(error)")
            case .notFound, .unreadable, .noFrames, .sizeMismatch, .autoPitch: self.init(status: PERIPHERY_ERROR_SOURCE, message: "\(error)")
            }
        case is DriveError, is VideoError, is ImageError, is RawFrameError:
            self.init(status: PERIPHERY_ERROR_SOURCE, message: "\(error)")
        default: self.init(status: PERIPHERY_ERROR_INTERNAL, message: "\(error)")
        }
    }

    init(status: periphery_status, message: String) {
        self.status = status
        self.message = message
    }
}

/// Runs the body of an exported function: a thrown error becomes its status and the thread's
/// message, so that no Swift error crosses into C.
func boundary(_ body: () throws -> Void) -> periphery_status {
    do {
        try body()
        return PERIPHERY_OK
    } catch {
        let failure = BoundaryFailure(error)
        failure.message.withCString { periphery_internal_set_error($0) }
        return failure.status
    }
}

/// A C string argument as a Swift string; `argument` names it in the error.
func string(_ pointer: UnsafePointer<CChar>?, _ argument: String) throws(BoundaryFailure) -> String {
    guard let pointer else { throw .invalidArgument(argument, "is NULL") }
    return String(cString: pointer)
}

/// The caller's out pointer, set to NULL so that a failure leaves no stale handle; NULL itself is refused.
func cleared(_ out: UnsafeMutablePointer<OpaquePointer?>?) throws(BoundaryFailure) -> UnsafeMutablePointer<OpaquePointer?> {
    guard let out else { throw .invalidArgument("out", "is NULL") }
    out.pointee = nil
    return out
}
