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
          --calibration C.json   camera and mount (default: \(FrameInput.calibrationFileName) in DRIVE or beside VIDEO)
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
          --body-pitch           follow the body's pitch over bumps, frame by frame, from motion.csv's gyro
                                 and gravity (the LUT moves with the camera)
          --events FILE          safety-event settings, a JSON object of the fields to change
                                 ({"forwardCollision": {"timeToCollisionSeconds": 2.5}}; docs/guides/events.md)
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
                "reconnect-timeout", "gpsd", "serve", "token", "view-fps", "events",
            ],
            flags: ["render", "auto-pitch", "body-pitch", "progress", "realtime", "listen", "keep-corrupt"])
        let sources = RunSources(args: args)
        let input = try sources.input()
        let weights = try Defaults.loadWeights(try Defaults.weightsPath(args))
        let engine = try PerceptionEngine(
            weights: weights, threads: try Defaults.threads(args), precision: try Defaults.precision(args),
            int8Kernel: try Defaults.int8Kernel(args))
        if let path = args.value("events") { try engine.configureEvents(try SafetyEventConfiguration(contentsOfFile: path)) }
        let stop = StopRequest()
        StopSignals.install(stop)
        var opened = try input.open(for: engine, stop: stop, report: { printError("warning: \($0)") })
        let ego = input.kind.isLive ? try sources.gpsd() : nil
        let session = RunSession(engine: engine, weights: weights, setup: input.setup, args: args, stop: stop)
        return try session.run(
            &opened.source, out: args.value("out") ?? input.folder ?? ".", fps: opened.fps, expected: opened.expectedCount,
            duration: opened.wallClockLimit, ego: ego)
    }
}
