extension VideoFrameSource {
    /// One frame of the video at `path`: the `index`-th (from 0), or else the first shown at or after
    /// `seconds` from the first frame.
    ///
    /// - Throws: `VideoError` naming the file, and `.incomplete` when the video has no such frame.
    public static func frame(in path: String, index: Int? = nil, seconds: Double? = nil) throws -> SourceFrame {
        precondition((index ?? 0) >= 0 && (seconds ?? 0) >= 0, "negative video frame")
        var source = try VideoFrameSource(path: path, start: seconds ?? 0)
        var delivered = 0
        while let frame = try source.next() {
            if index == nil || delivered == index { return frame }
            delivered += 1
        }
        let which = index.map { "frame \($0)" } ?? String(format: "a frame at %.3f s", seconds ?? 0)
        throw VideoError.incomplete(path: path, frames: delivered, reason: "the video has no \(which)")
    }
}
