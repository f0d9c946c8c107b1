import Foundation

/// Clips made by the system's `ffmpeg` for the video tests, and what `ffmpeg`/`ffprobe` read from
/// them: the independent reference the reader is held to.
package enum VideoTestClips {
    package struct ToolError: Error, CustomStringConvertible {
        package var description: String
    }

    /// Runs `tool` with `arguments`; its standard output.
    @discardableResult
    package static func run(_ tool: String, _ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/" + tool)
        process.arguments = arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ToolError(description: "\(tool) \(arguments.joined(separator: " ")): \(String(decoding: message, as: UTF8.self))")
        }
        return data
    }

    /// A clip of FFmpeg's test pattern: `frames` frames of `size` at `rate`, encoded by `codec`
    /// (with `extra` encoder options) into `path`.
    package static func make(_ path: String, size: String = "96x64", rate: Int = 10, frames: Int = 12, codec: [String], extra: [String] = []) throws {
        try run(
            "ffmpeg",
            ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=\(size):rate=\(rate)", "-frames:v", "\(frames)"]
                + extra + codec + [path])
    }

    /// The presentation times of every frame, as `ffprobe` reports them.
    package static func frameTimes(_ path: String) throws -> [Double] {
        let text = String(
            decoding: try run(
                "ffprobe",
                [
                    "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=best_effort_timestamp_time", "-of", "csv=p=0", path,
                ]), as: UTF8.self)
        let separators = CharacterSet(charactersIn: ", ")
        return text.split(whereSeparator: \.isNewline).compactMap { Double($0.trimmingCharacters(in: separators)) }
    }

    /// Every frame as rgb24, decoded by `ffmpeg` itself with the reader's conversion flags.
    package static func rgbFrames(_ path: String) throws -> [UInt8] {
        Array(
            try run(
                "ffmpeg",
                [
                    "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgb24", "-sws_flags", "bilinear", "-fps_mode", "passthrough", "-",
                ]))
    }
}
