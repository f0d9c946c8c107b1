import CFFmpeg
import CVideo
import Foundation
import PeripheryCore

/// Decodes a video on a thread of its own, up to `depth` frames ahead of the caller, so that
/// decoding runs while the engine works on the previous frame.
///
/// The thread owns the FFmpeg reader; it stops at the end of the selection, at the first error, or
/// when the decoder is released, and closes the reader itself.
final class VideoDecoder: @unchecked Sendable {
    /// What the thread hands over, in order.
    enum Item {
        case frame(RGBImage, seconds: Double, index: Int)
        case end
        case failure(VideoError)
    }

    /// Which frames to deliver: from `start` seconds after the first frame, for `duration` seconds,
    /// every `every`-th of those.
    struct Selection {
        var start = 0.0
        var duration = Double.infinity
        var every = 1
    }

    private let condition = NSCondition()
    // Guarded by `condition`.
    private var ready: [Item] = []
    private var stopping = false
    private var running = true
    private let depth = 3
    /// Used by the thread only.
    private let reader: OpaquePointer

    init(reader: OpaquePointer, info: VideoInfo, path: String, selection: Selection) {
        self.reader = reader
        let thread = Thread { [self] in
            decode(self.reader, info: info, path: path, selection: selection)
            pv_reader_close(self.reader)
            condition.lock()
            running = false
            condition.broadcast()
            condition.unlock()
        }
        thread.name = "periphery video decode"
        thread.start()
    }

    deinit {
        condition.lock()
        stopping = true
        condition.broadcast()
        while running { condition.wait() }
        condition.unlock()
    }

    /// The next item, waiting for the thread when none is ready; `.end` for ever after the last.
    func next() -> Item {
        condition.lock()
        defer { condition.unlock() }
        while ready.isEmpty && running { condition.wait() }
        guard !ready.isEmpty else { return .end }
        let item = ready.removeFirst()
        condition.broadcast()
        return item
    }

    /// Hands `item` over, waiting while `depth` items are queued; false once the caller has gone.
    private func push(_ item: Item) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while ready.count >= depth && !stopping { condition.wait() }
        guard !stopping else { return false }
        ready.append(item)
        condition.broadcast()
        return true
    }

    private func decode(_ reader: OpaquePointer, info: VideoInfo, path: String, selection: Selection) {
        let size = info.width * info.height * 3
        var decoded = 0, selected = 0
        var first: Double?
        var message = [CChar](repeating: 0, count: 512)
        while true {
            var seconds = 0.0, code: Int32 = 0
            let pixels = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
                code = message.withUnsafeMutableBufferPointer {
                    pv_reader_next(reader, buffer.baseAddress, &seconds, $0.baseAddress, Int32($0.count))
                }
                count = code == 1 ? size : 0
            }
            if code == 0 {
                _ = push(decoded == 0 ? .failure(.incomplete(path: path, frames: 0, reason: "the video track holds no frames")) : .end)
                return
            }
            if code < 0 {
                _ = push(.failure(.incomplete(path: path, frames: decoded, reason: VideoError.message(message))))
                return
            }
            let index = decoded
            decoded += 1
            let origin = first ?? seconds
            first = origin
            if seconds < origin + selection.start { continue }
            if seconds >= origin + selection.start + selection.duration {
                _ = push(.end)
                return
            }
            defer { selected += 1 }
            guard selected % selection.every == 0 else { continue }
            guard let image = RGBImage(width: info.width, height: info.height, pixels: pixels) else { continue }
            if !push(.frame(image, seconds: seconds, index: index)) { return }
        }
    }
}
