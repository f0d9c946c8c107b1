import Foundation
import Periphery

/// `periphery run`: the whole pipeline over a drive, a video file, raw video on stdin, a camera or
/// a network stream.
enum RunCommand: Command {
    static let name = "run"
    static let summary = "Run detection and tracking over a drive, a video, raw frames on stdin, a camera or a stream."
    static let help = """
        USAGE: periphery run DRIVE|VIDEO|/dev/videoN|URL [--calibration C.json] [--out DIR] [--render]
                             [--render-video OUT.mp4] [--mcap OUT.mcap] [--serve [HOST:]PORT] [--max-frames N] [...]
               periphery run --stdin-raw WxH --fps F --calibration C.json [--out DIR] [...]

        DRIVE is a directory of frames (PNG/JPEG, in name order) with optional frames.csv, motion.csv and
        location.csv in the reference drive layout. VIDEO is a file FFmpeg decodes (MP4, MOV, MKV, AVI, TS;
        H.264, H.265, MJPEG, VP9, AV1), timed by its own timestamps, with motion.csv and location.csv beside
        it when present. /dev/videoN is a V4L2 camera; URL an rtsp://, udp://, srt://, tcp:// or http(s)://
        stream (docs/guides/live.md). A camera, a stream, or a VIDEO with --realtime runs live: the engine takes
        the newest frame and drops the rest. Without motion or --gpsd the ego is taken as stationary.

        Writes OUT/replay-safety40-v1.jsonl (one line per frame, a summary last), with --render
        OUT/render/NNNNNN.png composites, with --render-video the same as an H.264 MP4, with --mcap a
        Foxglove MCAP (docs/guides/mcap.md). With --serve, viewers watch live: a page at http://HOST:PORT/ and
        Foxglove at ws://HOST:PORT (docs/guides/live.md). SIGINT or SIGTERM stops after the frame in flight with
        every output finished (exit 0); if the input fails, everything before is kept and finished (exit 3).

        OPTIONS:
          --calibration C.json   camera and mount (default: calibration.json in DRIVE or beside VIDEO)
          --out DIR              output directory (default: DRIVE or VIDEO's folder; . for stdin, cameras, URLs)
          --render, --render-video OUT.mp4, --mcap OUT.mcap
                                 composites as PNGs or an H.264 video; a Foxglove MCAP
          --serve [HOST:]PORT    serve the live view (default host 127.0.0.1); off loopback a token is needed
          --token T              the token viewers must give (?token=T or Authorization: Bearer T); one is
                                 generated and printed when --serve is not loopback and none is given
          --view-fps F           most frames a second sent to viewers (default 15)
          --max-frames N         stop after N processed frames
          --duration S           live: stop after S wall-clock seconds; VIDEO: S seconds of the video
          --start S, --every N   of a VIDEO: begin S seconds in, take every Nth frame
          --realtime             play a VIDEO at its own rate under the live rules
          --video-size WxH, --framerate F, --input-format mjpeg|yuyv422|...
                                 capture options of a V4L2 camera
          --rtsp-transport tcp|udp, --listen
                                 RTSP transport; wait for a camera or sender to connect to URL
          --timeout S            live: longest wait for one read (default 3)
          --reconnect-timeout S  stream: how long to keep reconnecting a lost source (default 10)
          --keep-corrupt         process damaged frames (marked in their line) instead of skipping them
          --gpsd [HOST:PORT]     ego motion from a running gpsd (default 127.0.0.1:2947)
          --auto-pitch           estimate the mount pitch from the drive's motion while running
          --fps F                frame rate for --stdin-raw, or for drives without frames.csv (default 10)
          --stdin-raw WxH        read raw rgb24 frames of this size from standard input
          --progress             show the progress line even when standard error is not a terminal
          --weights W            weights file (default: Weights/safety40-synthetic.safetensors)
          --threads T            worker threads (default: all cores)
        \(Defaults.precisionHelp)
          --help                 show this help
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(
            RunSources.expandingGPSD(arguments),
            options: [
                "calibration", "out", "max-frames", "fps", "stdin-raw", "weights", "threads", "precision", "int8-kernel", "render-video", "mcap",
                "start", "duration", "every", "video-size", "framerate", "input-format", "rtsp-transport", "timeout",
                "reconnect-timeout", "gpsd", "serve", "token", "view-fps",
            ],
            flags: ["render", "auto-pitch", "progress", "realtime", "listen", "keep-corrupt"])
        let input = args.positional.first
        let live = input.flatMap(LiveSourceKind.of) ?? (args.flag("realtime") ? .file : nil)
        var isDirectory: ObjCBool = false
        let isVideo = input.map { FileManager.default.fileExists(atPath: $0, isDirectory: &isDirectory) && !isDirectory.boolValue } ?? false
        let folder = input.map { isVideo ? URL(fileURLWithPath: $0).deletingLastPathComponent().path : (live == nil ? $0 : ".") }
        // A drive, or the folder of a video, may carry its own calibration file.
        let calibrationPath =
            args.value("calibration")
            ?? (live == .camera || live == .stream ? nil : folder).map { $0 + "/calibration.json" }
            .flatMap { FileManager.default.fileExists(atPath: $0) ? $0 : nil }
        let setup = try calibrationPath.map(CalibrationFile.load(path:))
        let weights = try Defaults.loadWeights(try Defaults.weightsPath(args))
        let engine = try PerceptionEngine(
            weights: weights, threads: try Defaults.threads(args), precision: try Defaults.precision(args),
            int8Kernel: try Defaults.int8Kernel(args))
        let stop = StopRequest()
        StopSignals.install(stop)
        let session = RunSession(engine: engine, weights: weights, setup: setup, args: args, stop: stop)
        let sources = RunSources(args: args, setup: setup, stop: stop)
        if args.value("stdin-raw") != nil {
            try args.expectNoPositional()
            var source = try sources.raw()
            return try session.run(&source, out: args.value("out") ?? ".", fps: source.fps)
        }
        guard args.positional.count == 1, let input, let folder else {
            throw CLIError("give one DRIVE directory, VIDEO file, /dev/videoN or stream URL, or --stdin-raw WxH")
        }
        if let live {
            if args.flag("auto-pitch") { throw CLIError("--auto-pitch needs a drive directory") }
            var source = try sources.live(input, kind: live)
            let gpsd = try sources.gpsd()
            let duration = try args.value("duration").map { _ in try args.number("duration", default: 0, in: 1e-3...1e7) }
            return try session.run(&source, out: args.value("out") ?? folder, fps: 30, duration: duration, ego: gpsd)
        }
        if isVideo {
            var source = try sources.video(input)
            return try session.run(&source, out: args.value("out") ?? folder, fps: source.info.fps ?? 10, expected: source.expectedCount)
        }
        var source = try sources.drive(input, engine: engine)
        return try session.run(&source, out: args.value("out") ?? input, fps: try args.number("fps", default: 10, in: 0.1...1000))
    }
}
