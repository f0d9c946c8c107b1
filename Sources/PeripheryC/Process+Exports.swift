import CPeriphery
import PeripheryCore
import PeripheryIO
import PeripheryInference

// periphery_engine_process: one frame through the engine.

/// The caller's pixels copied into a `FramePixels`, every field checked before a byte is read.
func framePixels(_ image: UnsafePointer<periphery_image>?) throws(BoundaryFailure) -> FramePixels {
    guard let image = image?.pointee else { throw .invalidArgument("image", "is NULL") }
    guard let data = image.data else { throw .invalidArgument("image.data", "is NULL") }
    let format: PixelFormat
    switch image.format {
    case Int32(PERIPHERY_PIXEL_RGB8.rawValue): format = .rgb8
    case Int32(PERIPHERY_PIXEL_BGR8.rawValue): format = .bgr8
    case Int32(PERIPHERY_PIXEL_BGRA8.rawValue): format = .bgra8
    default: throw .invalidArgument("image.format", "\(image.format) is not a periphery_pixel_format")
    }
    let width = Int(image.width), height = Int(image.height), stride = Int(image.row_stride)
    guard (1...RGBImage.maxSide).contains(width) else { throw .invalidArgument("image.width", "\(width) is outside 1 ... \(RGBImage.maxSide)") }
    guard (1...RGBImage.maxSide).contains(height) else {
        throw .invalidArgument("image.height", "\(height) is outside 1 ... \(RGBImage.maxSide)")
    }
    let row = width * format.bytesPerPixel
    // maxSide bounds width and height, so only the stride can make the product overflow.
    guard stride >= row, stride <= Int(Int32.max) else {
        throw .invalidArgument("image.row_stride", "\(stride) is outside \(row) ... \(Int32.max) for \(width) pixels of \(format)")
    }
    let count = (height - 1) * stride + row
    do {
        return try FramePixels(width: width, height: height, rowStride: stride, format: format, bytes: Array(UnsafeBufferPointer(start: data, count: count)))
    } catch {
        throw .invalidArgument("image", "\(error)")
    }
}

/// The caller's ego motion, checked to be finite with a non-negative interval.
func egoMotion(_ ego: UnsafePointer<periphery_ego_motion>?) throws(BoundaryFailure) -> EgoDelta? {
    guard let e = ego?.pointee else { return nil }
    for (value, name) in [(e.dx, "ego.dx"), (e.dy, "ego.dy"), (e.dyaw, "ego.dyaw"), (e.dt, "ego.dt")] where !value.isFinite {
        throw .invalidArgument(name, "\(value) is not finite")
    }
    guard e.dt >= 0 else { throw .invalidArgument("ego.dt", "\(e.dt) is negative") }
    return EgoDelta(dx: e.dx, dy: e.dy, dyaw: e.dyaw, dt: e.dt)
}

@_cdecl("periphery_engine_process")
public func peripheryEngineProcess(
    _ engine: OpaquePointer?, _ image: UnsafePointer<periphery_image>?, _ calibration: OpaquePointer?, _ timestamp: Double,
    _ ego: UnsafePointer<periphery_ego_motion>?, _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> periphery_status {
    boundary {
        let out = try cleared(out)
        let engine = try Handle.object(engine, as: EngineHandle.self, "engine").available()
        let setup = try Handle.object(calibration, as: CalibrationHandle.self, "calibration").setup
        let pixels = try framePixels(image)
        let frame = PerceptionFrame(
            pixels: pixels, timestamp: timestamp, intrinsics: setup.intrinsics, pose: setup.pose, ego: try egoMotion(ego))
        let result = try engine.process(frame)
        out.pointee = Handle.retain(ResultHandle(result, timestamp: timestamp))
    }
}
