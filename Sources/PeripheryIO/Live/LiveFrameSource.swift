import Foundation
import PeripheryCore
import PeripheryGeometry

/// Frames of a camera, a network stream, or a file played at its own rate, under the real-time
/// rule: a thread of its own captures and decodes every packet (H.264 needs its references), and
/// `next()` hands over only the newest decoded frame; the frames it replaced count as dropped.
/// Capturing starts with the first `next()`.
///
/// Frame times come from the stream's clock; each frame also keeps its arrival on
/// `MonotonicClock`. A network source that drops, or is not up yet, is reopened with backoff
/// until `reconnectTimeout`; the first frame after the gap carries it. Damaged frames are delivered
/// marked `corrupt`, for the run to skip and count.
public final class LiveFrameSource: FrameSource {
    /// What is read.
    public let source: String
    /// A camera, a stream or a paced file.
    public let kind: LiveSourceKind
    /// How it was opened.
    public let options: LiveSourceOptions
    /// The motion and location tables beside a paced file, when there are any.
    public let motion: DriveDirectory?
    private let slot = LatestFrameSlot()
    private let capture: Capture
    private let stop: StopRequest?
    private var previous: Double?

    /// Starts capturing `source` (a `/dev/videoN`, a stream URL, or with `kind: .file` a video file)
    /// at `width` × `height` (the calibration's size: a stream of the same aspect ratio is scaled
    /// to it, any other size is an error). `next()` returns nil once `stop` is requested. `report`
    /// hears, from the capture thread, when a stream is lost and when it comes back.
    ///
    /// - Throws: `VideoError.invalidOption` for an option that cannot work; `DriveError` for a
    ///   motion table beside a file that cannot be read. Opening happens on the capture thread: a
    ///   source that cannot be opened is reported by `next()`.
    public init(
        source: String, kind: LiveSourceKind, options: LiveSourceOptions = LiveSourceOptions(), width: Int, height: Int,
        stop: StopRequest? = nil, report: (@Sendable (String) -> Void)? = nil
    ) throws {
        let name = LiveSourceKind.redacted(source)
        try options.validate(source: name)
        self.source = name
        self.kind = kind
        self.options = options
        self.stop = stop
        motion = kind == .file ? try VideoFrameSource.motionTables(beside: source) : nil
        capture = Capture(
            url: source, name: name, kind: kind, options: options, width: width, height: height, slot: slot, report: report)
        let capture = capture
        let thread = Thread { capture.run() }
        thread.name = "periphery live capture"
        thread.start()
    }

    deinit {
        capture.cancel()
    }

    /// Live: frames come at the source's pace.
    public var isLive: Bool { true }

    /// Unknown: a live source has no end in advance.
    public var count: Int? { nil }

    /// Frames decoded so far, damaged ones included.
    public var received: Int { capture.received }

    /// Times the source was lost and reopened.
    public var reconnects: Int { capture.reconnects }

    /// Decoded frames not delivered since the last delivered one.
    public var undelivered: Int { slot.undelivered }

    /// The newest frame, waiting for one; nil at the end of a file or once a stop is requested.
    ///
    /// - Throws: `VideoError` naming the source: `.unreadable` (cannot be opened), `.timedOut` (lost
    ///   for longer than the reconnect timeout), `.incomplete` (decoding failed, or a file cut short).
    public func next() throws -> SourceFrame? {
        capture.begin()
        while stop?.isRequested != true {
            switch slot.take(timeout: 0.05) {
            case .nothing:
                continue
            case .ending(.failure(let error)):
                throw error
            case .ending(.end):
                return nil
            case .frame(var frame):
                if frame.gap != nil { previous = nil }
                frame.ego = motion?.recordedEgo(since: previous, to: frame.timestamp)
                frame.motion = motion.map { $0.mountMotion(at: frame.timestamp) }
                previous = frame.timestamp
                return frame
            }
        }
        return nil
    }

    /// Stops capturing and waits for the thread to let go of the source.
    public func close() {
        capture.cancel()
    }
}
