import CPeriphery

// The result functions of periphery.h. A NULL or foreign handle reads as an empty result.

private func handle(_ result: OpaquePointer?) -> ResultHandle? {
    try? Handle.object(result, as: ResultHandle.self, "result")
}

@_cdecl("periphery_result_detections")
public func peripheryResultDetections(_ result: OpaquePointer?, _ count: UnsafeMutablePointer<Int>?) -> UnsafePointer<periphery_detection>? {
    let detections = handle(result)?.detections
    count?.pointee = detections?.count ?? 0
    return detections.flatMap { UnsafePointer($0.baseAddress) }
}

@_cdecl("periphery_result_tracks")
public func peripheryResultTracks(_ result: OpaquePointer?, _ count: UnsafeMutablePointer<Int>?) -> UnsafePointer<periphery_track>? {
    let tracks = handle(result)?.tracks
    count?.pointee = tracks?.count ?? 0
    return tracks.flatMap { UnsafePointer($0.baseAddress) }
}

@_cdecl("periphery_result_events")
public func peripheryResultEvents(_ result: OpaquePointer?, _ count: UnsafeMutablePointer<Int>?) -> UnsafePointer<periphery_event>? {
    let events = handle(result)?.events
    count?.pointee = events?.count ?? 0
    return events.flatMap { UnsafePointer($0.baseAddress) }
}

@_cdecl("periphery_result_timings")
public func peripheryResultTimings(_ result: OpaquePointer?) -> periphery_timings {
    handle(result)?.timings ?? periphery_timings()
}

@_cdecl("periphery_result_timestamp")
public func peripheryResultTimestamp(_ result: OpaquePointer?) -> Double {
    handle(result)?.timestamp ?? .nan
}

@_cdecl("periphery_result_index")
public func peripheryResultIndex(_ result: OpaquePointer?) -> Int64 {
    handle(result)?.index ?? -1
}

@_cdecl("periphery_result_tracker_reset")
public func peripheryResultTrackerReset(_ result: OpaquePointer?) -> Int32 {
    handle(result)?.trackerReset == true ? 1 : 0
}

@_cdecl("periphery_result_image")
public func peripheryResultImage(_ result: OpaquePointer?) -> periphery_image {
    guard let result = handle(result), result.width > 0 else { return periphery_image() }
    return periphery_image(
        data: UnsafePointer(result.pixels.baseAddress), width: result.width, height: result.height, row_stride: Int64(result.width) * 3,
        format: Int32(PERIPHERY_PIXEL_RGB8.rawValue))
}

/// The name of no result: one NUL, for the life of the process (never written after it is made).
nonisolated(unsafe) private let emptyName: UnsafeMutablePointer<CChar> = {
    let name = UnsafeMutablePointer<CChar>.allocate(capacity: 1)
    name.initialize(to: 0)
    return name
}()

@_cdecl("periphery_result_name")
public func peripheryResultName(_ result: OpaquePointer?) -> UnsafePointer<CChar> {
    UnsafePointer(handle(result)?.name ?? emptyName)
}

@_cdecl("periphery_result_destroy")
public func peripheryResultDestroy(_ result: OpaquePointer?) {
    Handle.release(result)
}
