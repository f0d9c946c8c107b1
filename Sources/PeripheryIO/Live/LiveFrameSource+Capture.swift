import CFFmpeg
import CVideo
import Foundation
import PeripheryCore

extension LiveFrameSource {
    /// The capture thread's side: opening, reconnecting, decoding, pacing.
    final class Capture: @unchecked Sendable {
        let url: String, name: String
        let kind: LiveSourceKind
        let options: LiveSourceOptions
        let width: Int, height: Int
        let slot: LatestFrameSlot
        let report: (@Sendable (String) -> Void)?
        /// Set from any thread (pv_flag_set); FFmpeg's blocking calls poll it.
        private let cancelFlag = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
        private let done = NSCondition()
        // Guarded by `done`.
        private var running = true, begun = false
        private let counts = NSLock()
        // Guarded by `counts`.
        private var receivedCount = 0, reconnectCount = 0
        /// When the last frame arrived: a stream is lost from then, not from when a read gave up.
        private var lastArrival: Double?

        init(
            url: String, name: String, kind: LiveSourceKind, options: LiveSourceOptions, width: Int, height: Int, slot: LatestFrameSlot,
            report: (@Sendable (String) -> Void)?
        ) {
            (self.url, self.name, self.kind, self.options, self.width, self.height) = (url, name, kind, options, width, height)
            (self.slot, self.report) = (slot, report)
            cancelFlag.initialize(to: 0)
        }

        deinit {
            cancelFlag.deallocate()
        }

        var received: Int { counts.withLock { receivedCount } }
        var reconnects: Int { counts.withLock { reconnectCount } }
        private var cancelled: Bool { pv_flag_get(cancelFlag) != 0 }

        /// Lets the thread open the source: on the first `next()`, once the run (and its engine,
        /// which loads OpenBLAS before a camera's libavdevice can) is ready for frames.
        func begin() {
            done.lock()
            begun = true
            done.broadcast()
            done.unlock()
        }

        /// Asks the thread to stop and waits until it has closed the source.
        func cancel() {
            pv_flag_set(cancelFlag)
            done.lock()
            while running { done.wait() }
            done.unlock()
        }

        func run() {
            defer {
                done.lock()
                running = false
                done.broadcast()
                done.unlock()
            }
            done.lock()
            while !begun && !cancelled { _ = done.wait(until: Date(timeIntervalSinceNow: 0.05)) }
            done.unlock()
            var lost: Double?
            var backoff = 0.25
            let started = MonotonicClock.now
            while !cancelled {
                switch open() {
                case .failure(let reason):
                    // A camera or a file that cannot be opened will not open later.
                    guard kind == .stream else { return slot.finish(.failure(VideoError.unreadable(path: name, reason: reason))) }
                    if MonotonicClock.now - (lost ?? started) >= options.reconnectTimeout {
                        let seconds = MonotonicClock.now - (lost ?? started)
                        return slot.finish(.failure(VideoError.timedOut(path: name, seconds: seconds, reason: reason)))
                    }
                    pause(backoff)
                    backoff = min(backoff * 2, 1)
                case .success(let reader):
                    backoff = 0.25
                    let gap = lost.map { MonotonicClock.now - $0 }
                    if let gap { report?("\(name): reconnected after \(String(format: "%.1f", gap)) s") }
                    let ending = read(reader, gap: gap)
                    pv_reader_close(reader)
                    switch ending {
                    case .end where kind != .stream:
                        return slot.finish(.end)
                    case .failure(let reason) where kind != .stream:
                        return slot.finish(.failure(VideoError.incomplete(path: name, frames: received, reason: reason)))
                    case .fatal(let reason):
                        return slot.finish(.failure(VideoError.incomplete(path: name, frames: received, reason: reason)))
                    case .cancelled:
                        return slot.finish(.end)
                    case .end, .failure:
                        // A stream that ends or fails was lost: reopen it until the timeout.
                        let reason = if case .failure(let reason) = ending { reason } else { "the stream ended" }
                        report?("\(name): lost (\(reason)); reconnecting for up to \(String(format: "%g", options.reconnectTimeout)) s")
                        lost = lastArrival ?? MonotonicClock.now
                        counts.withLock { reconnectCount += 1 }
                    }
                }
            }
            slot.finish(.end)
        }

        private enum Opened {
            case success(OpaquePointer)
            case failure(String)
        }

        private func open() -> Opened {
            var reader: OpaquePointer?
            var info = pv_video_info()
            var message = [CChar](repeating: 0, count: 512)
            let rate = options.framerate.map { String(format: "%g", $0) }
            let code = withOptionalCString(kind == .camera ? "v4l2" : nil) { format in
                withOptionalCString(options.videoSize) { size in
                    withOptionalCString(rate) { rate in
                        withOptionalCString(options.inputFormat) { input in
                            withOptionalCString(options.rtspTransport?.rawValue) { transport in
                                var o = pv_open_options()
                                o.format = format
                                o.video_size = size
                                o.framerate = rate
                                o.input_format = input
                                o.rtsp_transport = transport
                                o.listen = options.listen ? 1 : 0
                                o.timeout = kind == .file ? 0 : options.readTimeout
                                o.low_latency = kind == .file ? 0 : 1
                                o.cancel = UnsafePointer(cancelFlag)
                                o.busy = lendCore
                                o.width = Int32(width)
                                o.height = Int32(height)
                                return message.withUnsafeMutableBufferPointer {
                                    pv_reader_open_with(url, &o, &reader, &info, $0.baseAddress, Int32($0.count))
                                }
                            }
                        }
                    }
                }
            }
            guard code == 0, let reader else { return .failure(String(cMessage: message)) }
            return .success(reader)
        }

        private enum ReadEnding {
            case end, cancelled
            case failure(String)
            /// A frame that no reconnection would make deliverable.
            case fatal(String)
        }

        /// Decodes frames into the slot until the input ends, fails or the thread is cancelled.
        private func read(_ reader: OpaquePointer, gap: Double?) -> ReadEnding {
            let size = width * height * 3
            var message = [CChar](repeating: 0, count: 512)
            var gap = gap
            var first: (pts: Double, clock: Double)?
            while !cancelled {
                var meta = pv_frame_meta(), code: Int32 = 0
                let pixels = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
                    // The reader takes a core from CoreBudget.process only while it decodes (`lendCore`).
                    code = message.withUnsafeMutableBufferPointer {
                        pv_reader_next(reader, buffer.baseAddress, &meta, $0.baseAddress, Int32($0.count))
                    }
                    count = code == 1 ? size : 0
                }
                if cancelled { return .cancelled }
                if code == 0 { return .end }
                if code == -2 { return .fatal(String(cMessage: message)) }
                if code < 0 { return .failure(String(cMessage: message)) }
                let index = counts.withLock {
                    receivedCount += 1
                    return receivedCount - 1
                }
                if kind == .file {
                    // Played at its own rate: each frame waits for its time after the first.
                    let origin = first ?? (meta.seconds, MonotonicClock.now)
                    first = origin
                    pause(origin.clock + (meta.seconds - origin.pts) - MonotonicClock.now)
                }
                guard let image = RGBImage(width: width, height: height, pixels: pixels) else { continue }
                var frame = SourceFrame(name: "\(name) frame \(index)", image: image, timestamp: meta.seconds)
                frame.arrival = MonotonicClock.now
                lastArrival = frame.arrival
                frame.corrupt = meta.corrupt != 0
                frame.gap = gap
                gap = nil
                slot.put(frame)
            }
            return .cancelled
        }

        /// Sleeps up to `seconds`, waking early when cancelled.
        private func pause(_ seconds: Double) {
            let until = MonotonicClock.now + seconds
            while !cancelled, case let left = until - MonotonicClock.now, left > 0 {
                usleep(UInt32(min(left, 0.02) * 1e6))
            }
        }
    }
}

/// `body` with `text` as a C string, or with nil.
private func withOptionalCString<R>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let text else { return body(nil) }
    return text.withCString { body($0) }
}
