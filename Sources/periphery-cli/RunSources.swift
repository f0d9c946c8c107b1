import Foundation
import Periphery

/// What `periphery run`'s arguments say about its input: the library's `FrameInput` with the options
/// given, and the gpsd client.
struct RunSources {
    let args: Arguments

    /// The input: raw rgb24 frames on standard input (`--stdin-raw WxH`) or the one positional
    /// argument, classified, its calibration found, by the library's rules.
    func input() throws -> FrameInput {
        var options = FrameInput.Options()
        if let path = args.value("calibration") { options.calibration = .file(path) }
        options.realtime = args.flag("realtime")
        options.autoPitch = args.flag("auto-pitch")
        options.bodyPitch = args.flag("body-pitch")
        options.fps = try args.number("fps", default: 10, in: 0.1...1000)
        options.start = try args.number("start", default: 0, in: 0...1e7)
        options.duration = try args.value("duration").map { _ in try args.number("duration", default: 0, in: 1e-3...1e7) }
        options.every = Int(try args.number("every", default: 1, in: 1...1e6))
        options.live = try liveOptions()
        if let size = args.value("stdin-raw") {
            try args.expectNoPositional()
            let parts = size.lowercased().split(separator: "x").compactMap { Int($0) }
            guard parts.count == 2 else { throw CLIError("--stdin-raw \(size) must be WxH") }
            return try FrameInput(standardInput: PixelSize(width: parts[0], height: parts[1]), options: options)
        }
        guard args.positional.count == 1, let input = args.positional.first else {
            throw CLIError("give one DRIVE directory, VIDEO file, /dev/videoN or stream URL, or --stdin-raw WxH")
        }
        return try FrameInput(input, options: options)
    }

    /// How to open a camera, a stream, or a video file played at its own rate.
    private func liveOptions() throws -> LiveSourceOptions {
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
        return options
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
