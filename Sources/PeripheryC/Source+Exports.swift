import CPeriphery
import Foundation
import PeripheryRun

// The input and source functions of periphery.h.

@_cdecl("periphery_input_check")
public func peripheryInputCheck(
    _ input: UnsafePointer<CChar>?, _ options: UnsafePointer<periphery_source_options>?, _ info: UnsafeMutablePointer<periphery_input_info>?
) -> periphery_status {
    boundary {
        guard let info else { throw BoundaryFailure.invalidArgument("info", "is NULL") }
        let path = try string(input, "input")
        let checked = try FrameInput(path, options: try SourceOptions(options).input)
        var found = periphery_input_info()
        found.kind = checked.kind.code
        found.has_calibration = checked.setup == nil ? 0 : 1
        // Sizes only order a fleet's work: a file gone since its folder was listed counts as empty.
        found.size_bytes = checked.files.reduce(0) { total, file in
            total + ((try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int64) ?? 0)
        }
        info.pointee = found
    }
}

@_cdecl("periphery_source_open")
public func peripherySourceOpen(
    _ engine: OpaquePointer?, _ input: UnsafePointer<CChar>?, _ options: UnsafePointer<periphery_source_options>?,
    _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> periphery_status {
    boundary {
        let out = try cleared(out)
        let handle = try Handle.object(engine, as: EngineHandle.self, "engine")
        let path = try string(input, "input")
        let options = try SourceOptions(options)
        let source = try SourceHandle(engine: handle, input: try FrameInput(path, options: options.input), options: options.session)
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

@_cdecl("periphery_source_warning")
public func peripherySourceWarning(_ source: OpaquePointer?, _ index: Int) -> UnsafePointer<CChar>? {
    guard let handle = try? Handle.object(source, as: SourceHandle.self, "source"), index >= 0 else { return nil }
    return handle.warnings.line(at: index)
}

@_cdecl("periphery_source_destroy")
public func peripherySourceDestroy(_ source: OpaquePointer?) {
    guard let handle = try? Handle.object(source, as: SourceHandle.self, "source") else { return }
    handle.close()
    Handle.release(source)
}

extension FrameInput.Kind {
    /// The `periphery_input_kind` of a kind a C caller can open (raw frames are the CLI's only).
    fileprivate var code: Int32 {
        switch self {
        case .drive: 0
        case .video: 1
        case .realtimeVideo: 2
        case .camera: 3
        case .stream: 4
        case .raw: preconditionFailure("raw frames are opened only by FrameInput(standardInput:)")
        }
    }
}
