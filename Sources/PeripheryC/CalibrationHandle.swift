import PeripheryGeometry

/// What a `periphery_calibration *` points at: a camera and its mount, immutable.
final class CalibrationHandle {
    let setup: CameraSetup

    init(setup: CameraSetup) { self.setup = setup }
}
