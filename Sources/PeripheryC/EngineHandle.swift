import CPeriphery
import PeripheryInference

/// What a `periphery_engine *` points at: the engine and whether a source holds it.
final class EngineHandle {
    let engine: PerceptionEngine
    /// Set while a source runs the engine on its own thread (`periphery_source_open` to `_destroy`).
    var busy = false

    init(engine: PerceptionEngine) { self.engine = engine }

    /// The engine, unless a source holds it.
    func available() throws(BoundaryFailure) -> PerceptionEngine {
        guard !busy else { throw BoundaryFailure(status: PERIPHERY_ERROR_BUSY, message: "engine: in use by an open source") }
        return engine
    }
}
