import CPeriphery
import PeripheryIO
import PeripheryInference
import PeripheryRun

/// A `periphery_source_options` read into the library's options: how the input is opened
/// (`FrameInput.Options`) and the session's own (`PerceptionSession.Options`). Zero fields take
/// the CLI's defaults; ranges the library checks itself are left to it (`FrameInput`), so that the
/// C API words those errors as `periphery run` does.
struct SourceOptions {
    var input = FrameInput.Options()
    var session = PerceptionSession.Options()

    /// The options at `pointer`, or the defaults for NULL.
    init(_ pointer: UnsafePointer<periphery_source_options>?) throws {
        let o = pointer?.pointee ?? periphery_source_options()
        if o.calibration != nil {
            input.calibration = .setup(try Handle.object(o.calibration, as: CalibrationHandle.self, "options.calibration").setup)
        }
        guard o.max_frames >= 0 else { throw BoundaryFailure.invalidArgument("options.max_frames", "\(o.max_frames) is negative") }
        session.maxFrames = o.max_frames == 0 ? Int(Int32.max) : Int(o.max_frames)
        session.keepCorrupt = try Self.flag(o.keep_corrupt, "options.keep_corrupt")
        input.realtime = try Self.flag(o.realtime, "options.realtime")
        input.autoPitch = try Self.flag(o.auto_pitch, "options.auto_pitch")
        if o.fps != 0 { input.fps = o.fps }
        if o.start_s != 0 { input.start = o.start_s }
        if o.duration_s != 0 { input.duration = o.duration_s }
        guard o.every >= 0, o.every <= Int32.max else { throw BoundaryFailure.invalidArgument("options.every", "\(o.every) is outside 0 ... 2³¹ − 1") }
        if o.every != 0 { input.every = Int(o.every) }
        input.live = try Self.live(o)
    }

    /// The live options; their ranges are `LiveFrameSource`'s to check.
    private static func live(_ o: periphery_source_options) throws(BoundaryFailure) -> LiveSourceOptions {
        var live = LiveSourceOptions()
        live.listen = try flag(o.listen, "options.listen")
        if o.read_timeout_s != 0 { live.readTimeout = o.read_timeout_s }
        if o.reconnect_timeout_s != 0 { live.reconnectTimeout = max(0, o.reconnect_timeout_s) }
        switch o.rtsp_transport {
        case 0: live.rtspTransport = nil
        case 1: live.rtspTransport = .tcp
        case 2: live.rtspTransport = .udp
        default: throw .invalidArgument("options.rtsp_transport", "\(o.rtsp_transport) is not a periphery_rtsp_transport")
        }
        live.videoSize = o.video_size.map { String(cString: $0) }
        if o.framerate != 0 { live.framerate = o.framerate }
        live.inputFormat = o.input_format.map { String(cString: $0) }
        return live
    }

    private static func flag(_ value: Int32, _ argument: String) throws(BoundaryFailure) -> Bool {
        guard value == 0 || value == 1 else { throw .invalidArgument(argument, "\(value) is neither 0 nor 1") }
        return value == 1
    }
}
