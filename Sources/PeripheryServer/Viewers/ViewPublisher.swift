import Foundation
import PeripheryCore
import PeripheryIO
import PeripheryRun

/// Encodes frames for viewers on a thread of its own, so that the engine only hands a frame over.
/// One frame waits at most: a newer one replaces it (the newest wins, as everywhere in a live run).
final class ViewPublisher: @unchecked Sendable {
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var waiting: (frame: ProcessedFrame, egoPath: [SIMD3<Double>])?
    private var stopping = false
    private var thread: Thread?
    private let done = DispatchSemaphore(value: 0)

    private let encoder: FoxgloveEncoder
    private let deliver: ([FoxgloveEncoder.Message]) -> Void
    private let onError: (String) -> Void

    /// Starts the thread; `deliver` gets each frame's messages on it.
    init(encoder: FoxgloveEncoder, deliver: @escaping ([FoxgloveEncoder.Message]) -> Void, onError: @escaping (String) -> Void) {
        (self.encoder, self.deliver, self.onError) = (encoder, deliver, onError)
        let thread = Thread { [self] in loop() }
        thread.name = "periphery-view-encoder"
        self.thread = thread
        thread.start()
    }

    /// Hands `frame` and the ego path at it over, replacing a frame still waiting.
    func offer(_ frame: ProcessedFrame, egoPath: [SIMD3<Double>]) {
        condition.lock()
        defer { condition.unlock() }
        waiting = (frame, egoPath)
        condition.signal()
    }

    /// Ends the thread after the frame it is encoding, and waits for it.
    func stop() {
        condition.lock()
        let started = thread != nil && !stopping
        stopping = true
        condition.signal()
        condition.unlock()
        if started { done.wait() }
    }

    private func loop() {
        while true {
            condition.lock()
            while waiting == nil && !stopping { condition.wait() }
            if stopping {
                condition.unlock()
                done.signal()
                return
            }
            let next = waiting
            waiting = nil
            condition.unlock()
            guard let (frame, egoPath) = next else { continue }
            do {
                // Encoding is heavy work outside the engine's pools: it borrows a core meanwhile, so
                // that the pools do not outnumber the cores (CoreBudget).
                let messages = try CoreBudget.process.borrow {
                    try encoder.messages(for: frame, egoPath: egoPath, name: "live view frame \(frame.index)")
                }
                deliver(messages)
            } catch {
                onError("live view: frame \(frame.index) not sent: \(error)")
            }
        }
    }
}
