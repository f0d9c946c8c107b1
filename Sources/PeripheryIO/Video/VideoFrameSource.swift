import CFFmpeg
import CVideo
import Foundation
import PeripheryCore
import PeripheryGeometry

/// The frames of a video file, in presentation order and timed by the stream's own timestamps
/// (variable frame rates keep theirs): every container and codec the system's FFmpeg decodes
/// (MP4, MOV, MKV, AVI; H.264, H.265, MJPEG, VP9, AV1).
///
/// Decoding runs ahead on a thread of its own. `motion.csv` and `location.csv` beside the video, in
/// the drive layout and on the stream's clock, give each frame its ego motion and the mount
/// calibrator its motion; without them frames carry none.
public struct VideoFrameSource: FrameSource {
    /// The largest frame side and area read (8K video fits); a container claiming more is refused
    /// before any frame memory is committed.
    public static let maxSide = 16_384
    public static let maxPixels = 40_000_000

    /// The video file.
    public let path: String
    /// What its container says.
    public let info: VideoInfo
    /// The motion and location tables beside the video, when there are any.
    public let motion: DriveDirectory?
    private let decoder: VideoDecoder
    private let selection: VideoDecoder.Selection
    private var previous: Double?

    /// Opens `path`; delivers the frames from `start` seconds after the first, for `duration`
    /// seconds, every `every`-th of those.
    ///
    /// - Throws: `VideoError.unreadable` naming the file: not a video, no video track, an
    ///   unsupported codec; `DriveError` for a motion table beside it that cannot be read.
    public init(path: String, start: Double = 0, duration: Double = .infinity, every: Int = 1) throws {
        precondition(start >= 0 && duration > 0 && every >= 1, "bad video frame selection")
        var reader: OpaquePointer?
        var raw = pv_video_info()
        var message = [CChar](repeating: 0, count: 512)
        var options = pv_open_options()
        options.busy = lendCore
        let code = message.withUnsafeMutableBufferPointer {
            pv_reader_open_with(path, &options, &reader, &raw, $0.baseAddress, Int32($0.count))
        }
        guard code == 0, let reader else { throw VideoError.unreadable(path: path, reason: String(cMessage: message)) }
        let codec = withUnsafeBytes(of: raw.codec) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        info = VideoInfo(
            width: Int(raw.width), height: Int(raw.height), fps: raw.fps > 0 ? raw.fps : nil,
            duration: raw.duration > 0 ? raw.duration : nil, frameCount: raw.frame_count > 0 ? Int(raw.frame_count) : nil,
            codec: codec)
        guard info.width <= Self.maxSide, info.height <= Self.maxSide, info.width * info.height <= Self.maxPixels else {
            pv_reader_close(reader)
            throw VideoError.unreadable(path: path, reason: "a frame size of \(info.width)x\(info.height) is beyond the limit (\(Self.maxPixels) pixels)")
        }
        self.path = path
        selection = VideoDecoder.Selection(start: start, duration: duration, every: every)
        decoder = VideoDecoder(reader: reader, info: info, path: path, selection: selection)
        motion = try Self.motionTables(beside: path)
    }

    /// Unknown in advance: `expectedCount` estimates it.
    public var count: Int? { nil }

    /// The frames the selection should deliver, from the container's frame count or duration; an
    /// estimate for progress reports, not a promise.
    public var expectedCount: Int? {
        guard let total = info.duration ?? info.frameCount.flatMap({ n in info.fps.map { Double(n) / $0 } }),
            let fps = info.fps ?? info.frameCount.map({ Double($0) / total })
        else { return nil }
        let seconds = max(0, min(total - selection.start, selection.duration))
        return Int((seconds * fps / Double(selection.every)).rounded(.up))
    }

    /// - Throws: `VideoError.incomplete` naming the file and how many frames came before.
    public mutating func next() throws -> SourceFrame? {
        switch decoder.next() {
        case .end:
            return nil
        case .failure(let error):
            throw error
        case .frame(let image, let seconds, let index, let corrupt):
            let ego = motion?.recordedEgo(since: previous, to: seconds)
            previous = seconds
            var frame = SourceFrame(
                name: "\(path) frame \(index)", image: image, timestamp: seconds, ego: ego,
                motion: motion.map { $0.mountMotion(at: seconds) })
            frame.corrupt = corrupt
            return frame
        }
    }

    /// `motion.csv` and `location.csv` in the video's folder, as a drive without frames.
    static func motionTables(beside path: String) throws -> DriveDirectory? {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        let (motion, location) = (try DriveDirectory.table("motion.csv", in: folder), try DriveDirectory.table("location.csv", in: folder))
        guard motion != nil || location != nil else { return nil }
        return try DriveDirectory(path: folder.path, pictures: [], frames: nil, motion: motion, location: location)
    }
}
