import CPeriphery
import PeripheryGeometry

// The calibration functions of periphery.h.

@_cdecl("periphery_calibration_load")
public func peripheryCalibrationLoad(_ path: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> periphery_status {
    boundary {
        let out = try cleared(out)
        let setup = try CalibrationFile.load(path: try string(path, "path"))
        out.pointee = Handle.retain(CalibrationHandle(setup: setup))
    }
}

@_cdecl("periphery_calibration_create")
public func peripheryCalibrationCreate(
    _ intrinsics: UnsafePointer<periphery_intrinsics>?, _ mount: UnsafePointer<periphery_mount>?, _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> periphery_status {
    boundary {
        let out = try cleared(out)
        guard let k = intrinsics?.pointee else { throw BoundaryFailure.invalidArgument("intrinsics", "is NULL") }
        guard let m = mount?.pointee else { throw BoundaryFailure.invalidArgument("mount", "is NULL") }
        let camera = try CameraIntrinsics(fx: k.fx, fy: k.fy, cx: k.cx, cy: k.cy, width: Int(k.width), height: Int(k.height))
        let pose = MountPose(
            pitchDegrees: m.pitch_deg, rollDegrees: m.roll_deg, yawDegrees: m.yaw_deg, height: m.height_m,
            forwardOfOrigin: m.forward_of_origin_m, lateralOffset: m.lateral_offset_m)
        try pose.validate()
        out.pointee = Handle.retain(CalibrationHandle(setup: CameraSetup(intrinsics: camera, pose: pose)))
    }
}

@_cdecl("periphery_calibration_get")
public func peripheryCalibrationGet(
    _ calibration: OpaquePointer?, _ intrinsics: UnsafeMutablePointer<periphery_intrinsics>?, _ mount: UnsafeMutablePointer<periphery_mount>?
) -> periphery_status {
    boundary {
        let setup = try Handle.object(calibration, as: CalibrationHandle.self, "calibration").setup
        let k = setup.intrinsics, pose = setup.pose
        let degrees = 180 / Double.pi
        intrinsics?.pointee = periphery_intrinsics(fx: k.fx, fy: k.fy, cx: k.cx, cy: k.cy, width: Int32(clamping: k.width), height: Int32(clamping: k.height))
        mount?.pointee = periphery_mount(
            pitch_deg: pose.pitch * degrees, roll_deg: pose.roll * degrees, yaw_deg: pose.yaw * degrees, height_m: pose.height,
            forward_of_origin_m: pose.forwardOfOrigin, lateral_offset_m: pose.lateralOffset)
    }
}

@_cdecl("periphery_calibration_destroy")
public func peripheryCalibrationDestroy(_ calibration: OpaquePointer?) {
    Handle.release(calibration)
}
