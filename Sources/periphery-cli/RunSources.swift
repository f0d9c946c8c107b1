import Foundation
import Periphery

/// The frame sources `periphery run` builds from its arguments.
struct RunSources {
    let args: Arguments
    let setup: CameraSetup?
    let stop: StopRequest

    /// Raw rgb24 frames on standard input.
    func raw() throws -> RawFrameSource {
        let size = try args.required("stdin-raw")
        guard let setup else { throw CLIError("--stdin-raw needs --calibration") }
        let parts = size.lowercased().split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2, parts[0] == setup.intrinsics.width, parts[1] == setup.intrinsics.height else {
            throw CLIError("--stdin-raw \(size) must be WxH and match the calibration's \(setup.intrinsics.width)x\(setup.intrinsics.height)")
        }
        return RawFrameSource(width: parts[0], height: parts[1], fps: try args.number("fps", default: 10, in: 0.1...1000))
    }

    /// A camera, a stream, or a video file played at its own rate.
    func live(_ input: String, kind: LiveSourceKind) throws -> LiveFrameSource {
        guard let setup else { throw CLIError("\(LiveSourceKind.redacted(input)): a live source needs --calibration") }
        var options = LiveSourceOptions()
        options.videoSize = args.value("video-size")
        options.framerate = try args.value("framerate").map { _ in try args.number("framerate", default: 30, in: 0.1...1000) }
        options.inputFormat = args.value("input-format")
        if let transport = args.value("rtsp-transport") {
            guard let value = LiveSourceOptions.RTSPTransport(rawValue: transport) else { throw CLIError("--rtsp-transport must be tcp or udp") }
            options.rtspTransport = value
        }
        options.listen = args.flag("listen")
        options.readTimeout = try args.number("timeout", default: options.readTimeout, in: 0.05...3600)
        options.reconnectTimeout = try args.number("reconnect-timeout", default: options.reconnectTimeout, in: 0...86_400)
        if kind != .camera, options.videoSize != nil || options.framerate != nil || options.inputFormat != nil {
            throw CLIError("--video-size, --framerate and --input-format are for a /dev/videoN camera")
        }
        return try LiveFrameSource(
            source: input, kind: kind, options: options, width: setup.intrinsics.width, height: setup.intrinsics.height, stop: stop,
            report: { printError("warning: \($0)") })
    }

    /// A video file, read as fast as the engine goes.
    func video(_ input: String) throws -> VideoFrameSource {
        let source = try VideoFrameSource(
            path: input, start: try args.number("start", default: 0, in: 0...1e7),
            duration: try args.number("duration", default: .infinity, in: 1e-3 ... .infinity),
            every: Int(try args.number("every", default: 1, in: 1...1e6)))
        guard let setup else { throw CLIError("\(input): a video needs --calibration (or calibration.json beside it)") }
        guard source.info.width == setup.intrinsics.width, source.info.height == setup.intrinsics.height else {
            let (video, camera) = ("\(source.info.width)x\(source.info.height)", "\(setup.intrinsics.width)x\(setup.intrinsics.height)")
            throw VideoError.mismatch(path: input, reason: "frames are \(video), the calibration's \(camera)")
        }
        if args.flag("auto-pitch") { throw CLIError("--auto-pitch needs a drive directory") }
        return source
    }

    /// A drive directory; with --auto-pitch the engine gets the drive's mount calibrator.
    func drive(_ input: String, engine: PerceptionEngine) throws -> DriveFrameSource {
        let drive = try DriveDirectory(path: input, fps: try args.number("fps", default: 10, in: 0.1...1000))
        for row in drive.skipped { printError("warning: \(row)") }
        if args.flag("auto-pitch") {
            guard !drive.gyro.isEmpty, !drive.speeds.isEmpty else {
                throw CLIError("--auto-pitch needs a drive directory with motion.csv and location.csv")
            }
            // The wiring of `periphery calibrate`, so that the two agree.
            guard let calibration = try? DriveMountCalibration(drive: drive, setup: setup) else {
                throw CLIError("--auto-pitch needs the camera: no intrinsics in frames.csv and no --calibration")
            }
            engine.mountCalibrator = calibration.calibrator
        }
        return DriveFrameSource(drive: drive)
    }

    /// The gpsd client of `--gpsd HOST:PORT`, if asked for.
    func gpsd() throws -> (any LiveEgoSource)? {
        guard let address = args.value("gpsd") else { return nil }
        guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]), (1...65_535).contains(port) else {
            throw CLIError("--gpsd \(address) must be HOST:PORT")
        }
        let host = address[..<colon].trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return try GPSDClient(host: host.isEmpty ? "127.0.0.1" : host, port: port)
    }

    /// `--gpsd` may stand alone (the default HOST:PORT) or take a HOST:PORT; the argument parser
    /// wants a value, so a bare one gets the default.
    static func expandingGPSD(_ arguments: [String]) -> [String] {
        var out: [String] = [], rest = arguments[...]
        while let argument = rest.popFirst() {
            guard argument == "--gpsd" else {
                out.append(argument)
                continue
            }
            if let next = rest.first, !next.hasPrefix("-"), !next.contains("/"), next.contains(":") {
                out.append("--gpsd=\(next)")
                rest = rest.dropFirst()
            } else {
                out.append("--gpsd=127.0.0.1:2947")
            }
        }
        return out
    }
}
