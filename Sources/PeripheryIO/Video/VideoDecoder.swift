import CFFmpeg
import CVideo
import Foundation
import PeripheryCore

/// Decodes a video on a thread of its own, up to three frames ahead of the caller, so that
/// decoding runs while the engine works on the previous frame. The thread borrows a core from
/// `CoreBudget.process` while it decodes, so that the engine's workers give it one instead of
/// fighting it for the cores.
///
/// The thread owns the FFmpeg reader; it stops at the end of the selection, at the first error, or
/// when the decoder is released, and closes the reader itself.
final class VideoDecoder {
    /// What the thread hands over, in order.
    enum Item {
        case frame(RGBImage, seconds: Double, index: Int, corrupt: Bool)
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

    private let queue = Queue()

    init(reader: OpaquePointer, info: VideoInfo, path: String, selection: Selection) {
        // The thread holds the queue, not the decoder, so that releasing the decoder stops it.
        let queue = queue, reader = Reader(pointer: reader)
        let thread = Thread {
            Self.decode(reader.pointer, info: info, path: path, selection: selection, into: queue)
            pv_reader_close(reader.pointer)
            queue.finish()
        }
        thread.name = "periphery video decode"
        thread.start()
    }

    deinit {
        queue.stop()
    }

    /// The next item, waiting for the thread when none is ready; `.end` for ever after the last.
    func next() -> Item { queue.next() }

    /// The FFmpeg reader, handed to the thread that alone uses it from then on.
    private struct Reader: @unchecked Sendable { let pointer: OpaquePointer }

    /// The items between the thread and the caller, at most `depth` of them.
    private final class Queue: @unchecked Sendable {
        private let condition = NSCondition()
        // Guarded by `condition`.
        private var ready: [Item] = []
        private var stopping = false
        private var running = true
        private let depth = 3

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
        func push(_ item: Item) -> Bool {
            condition.lock()
            defer { condition.unlock() }
            while ready.count >= depth && !stopping { condition.wait() }
            guard !stopping else { return false }
            ready.append(item)
            condition.broadcast()
            return true
        }

        /// The thread has stopped.
        func finish() {
            condition.lock()
            running = false
            condition.broadcast()
            condition.unlock()
        }

        /// Asks the thread to stop and waits until it has (and has closed the reader).
        func stop() {
            condition.lock()
            stopping = true
            ready.removeAll()
            condition.broadcast()
            while running { condition.wait() }
            condition.unlock()
        }
    }

    private static func decode(_ reader: OpaquePointer, info: VideoInfo, path: String, selection: Selection, into queue: Queue) {
        let size = info.width * info.height * 3
        var decoded = 0, selected = 0
        var first: Double?
        var message = [CChar](repeating: 0, count: 512)
        while true {
            var meta = pv_frame_meta(), code: Int32 = 0
            let pixels = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
                // The reader takes a core from CoreBudget.process only while it decodes (`lendCore`).
                code = message.withUnsafeMutableBufferPointer {
                    pv_reader_next(reader, buffer.baseAddress, &meta, $0.baseAddress, Int32($0.count))
                }
                count = code == 1 ? size : 0
            }
            if code == 0 {
                _ = queue.push(decoded == 0 ? .failure(.incomplete(path: path, frames: 0, reason: "the video track holds no frames")) : .end)
                return
            }
            if code < 0 {
                _ = queue.push(.failure(.incomplete(path: path, frames: decoded, reason: String(cMessage: message))))
                return
            }
            let index = decoded, seconds = meta.seconds
            decoded += 1
            let origin = first ?? seconds
            first = origin
            if seconds < origin + selection.start { continue }
            if seconds >= origin + selection.start + selection.duration {
                _ = queue.push(.end)
                return
            }
            defer { selected += 1 }
            guard selected % selection.every == 0 else { continue }
            guard let image = RGBImage(width: info.width, height: info.height, pixels: pixels) else { continue }
            if !queue.push(.frame(image, seconds: seconds, index: index, corrupt: meta.corrupt != 0)) { return }
        }
    }
}

/// Every reader's busy callback (`pv_open_options.busy`): a core of `CoreBudget.process` while it
/// decodes and converts, none while it waits for packets (a live source waits most of the time,
/// and a core lent to a thread that waits would only slow the engine).
func lendCore(_ working: Int32) {
    if working != 0 { CoreBudget.process.acquire() } else { CoreBudget.process.release() }
}
