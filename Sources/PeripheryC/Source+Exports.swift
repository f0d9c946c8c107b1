import CPeriphery

// The source functions of periphery.h.

@_cdecl("periphery_source_open")
public func peripherySourceOpen(
    _ engine: OpaquePointer?, _ input: UnsafePointer<CChar>?, _ options: UnsafePointer<periphery_source_options>?,
    _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> periphery_status {
    boundary {
        let out = try cleared(out)
        let handle = try Handle.object(engine, as: EngineHandle.self, "engine")
        let path = try string(input, "input")
        let o = options?.pointee ?? periphery_source_options()
        let setup = o.calibration == nil ? nil : try Handle.object(o.calibration, as: CalibrationHandle.self, "options.calibration").setup
        guard o.fps == 0 || (o.fps.isFinite && o.fps >= 0.1 && o.fps <= 1000) else {
            throw BoundaryFailure.invalidArgument("options.fps", "\(o.fps) is outside 0.1 ... 1000 (or 0 for 10)")
        }
        guard o.max_frames >= 0 else { throw BoundaryFailure.invalidArgument("options.max_frames", "\(o.max_frames) is negative") }
        let source = try SourceHandle(
            engine: handle, input: path, setup: setup, fps: o.fps == 0 ? 10 : o.fps,
            maxFrames: o.max_frames == 0 ? Int(Int32.max) : Int(o.max_frames))
        out.pointee = Handle.retain(source)
    }
}

@_cdecl("periphery_source_next")
public func peripherySourceNext(_ source: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> periphery_status {
    var status = PERIPHERY_OK
    let boundaryStatus = boundary {
        let out = try cleared(out)
        let handle = try Handle.object(source, as: SourceHandle.self, "source")
        switch handle.next() {
        case .frame(let processed):
            out.pointee = Handle.retain(
                ResultHandle(processed.result, timestamp: processed.frame.timestamp, index: Int64(processed.index), frame: processed.frame))
        case .failure(let failure): throw failure
        case .end: status = PERIPHERY_END
        }
    }
    return boundaryStatus == PERIPHERY_OK ? status : boundaryStatus
}

@_cdecl("periphery_source_destroy")
public func peripherySourceDestroy(_ source: OpaquePointer?) {
    guard let handle = try? Handle.object(source, as: SourceHandle.self, "source") else { return }
    handle.close()
    Handle.release(source)
}
