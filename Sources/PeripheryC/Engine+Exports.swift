import CPeriphery
import PeripheryInference

// The engine functions of periphery.h.

// periphery_api_version and periphery_version are in CPeriphery/Boundary.c.

@_cdecl("periphery_engine_create")
public func peripheryEngineCreate(
    _ weightsPath: UnsafePointer<CChar>?, _ threads: Int32, _ precision: Int32, _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> periphery_status {
    boundary {
        let out = try cleared(out)
        let path = try string(weightsPath, "weights_path")
        guard threads >= 0, threads <= 1024 else { throw BoundaryFailure.invalidArgument("threads", "\(threads) is outside 0 ... 1024") }
        let chosen: InferencePrecision
        switch precision {
        case 0: chosen = .auto
        case 1: chosen = .fp32
        case 2: chosen = .int8
        case 3: chosen = .bf16
        default: throw BoundaryFailure.invalidArgument("precision", "\(precision) is not a periphery_precision")
        }
        let weights = try Safety40Weights(path: path)
        let engine = try PerceptionEngine(weights: weights, threads: threads == 0 ? nil : Int(threads), precision: chosen)
        out.pointee = Handle.retain(EngineHandle(engine: engine))
    }
}

@_cdecl("periphery_engine_destroy")
public func peripheryEngineDestroy(_ engine: OpaquePointer?) {
    Handle.release(engine)
}

@_cdecl("periphery_engine_precision")
public func peripheryEnginePrecision(_ engine: OpaquePointer?) -> Int32 {
    guard let handle = try? Handle.object(engine, as: EngineHandle.self, "engine") else { return -1 }
    switch handle.engine.precision {
    case .auto: return 0
    case .fp32: return 1
    case .int8: return 2
    case .bf16: return 3
    }
}

@_cdecl("periphery_engine_threads")
public func peripheryEngineThreads(_ engine: OpaquePointer?) -> Int32 {
    guard let handle = try? Handle.object(engine, as: EngineHandle.self, "engine") else { return -1 }
    return Int32(clamping: handle.engine.threads)
}

@_cdecl("periphery_engine_reset")
public func peripheryEngineReset(_ engine: OpaquePointer?) -> periphery_status {
    boundary { try Handle.object(engine, as: EngineHandle.self, "engine").available().reset() }
}
