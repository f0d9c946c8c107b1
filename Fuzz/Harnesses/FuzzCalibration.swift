import Foundation
import Periphery

/// Harness: bytes as a calibration file, then what the engine derives from one — the
/// focal-matched crop and the ProjectionLUT — whose indices must stay inside the network input.
func fuzzCalibration(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard let setup = try? CalibrationFile.parse(Data(bytes: bytes, count: count)) else { return 0 }
    let calibration = CameraCalibration(setup)
    let lut = ProjectionLUT(calibration: calibration)
    precondition((0 ... lut.count).contains(lut.visibleCount), "visible count \(lut.visibleCount) of \(lut.count)")
    return 0
}
