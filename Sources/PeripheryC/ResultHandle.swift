import CPeriphery
import PeripheryCore
import PeripheryEvents
import PeripheryIO
import PeripheryInference

/// What a `periphery_result *` points at: one frame's outputs as the plain structs of periphery.h,
/// in memory that the handle owns until `periphery_result_destroy`.
final class ResultHandle {
    let detections: UnsafeMutableBufferPointer<periphery_detection>
    let tracks: UnsafeMutableBufferPointer<periphery_track>
    let events: UnsafeMutableBufferPointer<periphery_event>
    let timings: periphery_timings
    let timestamp: Double
    let index: Int64
    let trackerReset: Bool
    /// Tightly packed RGB8 rows of a source's frame; empty for `periphery_engine_process`.
    let pixels: UnsafeMutableBufferPointer<UInt8>
    let width: Int32
    let height: Int32
    let name: UnsafeMutablePointer<CChar>

    /// `result` of the frame at `timestamp`; `frame` and `index` when it came from a source.
    init(_ result: PerceptionResult, timestamp: Double, index: Int64 = -1, frame: SourceFrame? = nil) {
        detections = .allocate(capacity: result.detections.count)
        _ = detections.initialize(from: result.detections.map(ResultHandle.detection))
        tracks = .allocate(capacity: result.tracks.count)
        _ = tracks.initialize(from: result.tracks.map(ResultHandle.track))
        events = .allocate(capacity: result.safety.reports.count)
        _ = events.initialize(from: result.safety.reports.map(ResultHandle.event))
        let t = result.timings
        timings = periphery_timings(
            calibrate_ms: t.calibrate, preprocess_ms: t.preprocess, inference_ms: t.inference, track_ms: t.track, total_ms: t.total)
        self.timestamp = timestamp
        self.index = index
        trackerReset = result.trackerReset
        let image = frame?.image
        pixels = .allocate(capacity: image?.pixels.count ?? 0)
        _ = pixels.initialize(from: image?.pixels ?? [])
        width = Int32(clamping: image?.width ?? 0)
        height = Int32(clamping: image?.height ?? 0)
        let utf8 = Array((frame?.name ?? "").utf8CString)
        name = .allocate(capacity: utf8.count)
        name.initialize(from: utf8, count: utf8.count)
    }

    deinit {
        detections.deallocate()
        tracks.deallocate()
        events.deallocate()
        pixels.deallocate()
        name.deallocate()
    }

    static func box(_ b: VehicleBox) -> periphery_box {
        periphery_box(x: b.x, y: b.y, z: b.z, length: b.length, width: b.width, height: b.height, yaw: b.yaw)
    }

    static func detection(_ d: Detection) -> periphery_detection {
        periphery_detection(score: d.score, label: Int32(d.label), box: box(d.box))
    }

    static func event(_ r: SafetyEventReport) -> periphery_event {
        let type: Int32 =
            switch r.type {
            case .forwardCollision: 0
            case .closeFollowing: 1
            case .cutIn: 2
            }
        let phase: Int32 =
            switch r.phase {
            case .start: 0
            case .update: 1
            case .end: 2
            }
        return periphery_event(
            type: type, phase: phase, track: Int64(r.track), ttc_s: r.timeToCollision ?? .nan, headway_s: r.headway ?? .nan,
            range_m: r.range ?? .nan)
    }

    static func track(_ t: TrackedVehicle) -> periphery_track {
        let state: Int32 =
            switch t.state {
            case .unknown: 0
            case .parked: 1
            case .moving: 2
            }
        return periphery_track(
            id: Int64(t.id), label: Int32(t.label), state: state, box: box(t.box), score: t.score, vx: t.velocity?.x ?? 0,
            vy: t.velocity?.y ?? 0, has_velocity: t.velocity == nil ? 0 : 1, observed: t.observed ? 1 : 0, hits: Int32(clamping: t.hits),
            age_s: t.ageSeconds)
    }
}
