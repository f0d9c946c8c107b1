import Foundation
import PeripheryIO
import PeripheryInference
import PeripheryRun

/// The hand-over of a source's results from the session's thread to the caller of
/// `periphery_source_next`: one slot, so that the session waits for the caller (a file source is
/// read no faster than its results are taken; a live source drops frames meanwhile, as live sources
/// do).
final class ResultChannel: @unchecked Sendable {
    enum Item {
        case frame(ProcessedFrame)
        case failure(BoundaryFailure)
        case end
    }

    private let condition = NSCondition()
    private var slot: Item?
    private var closed = false

    /// Waits for the slot to be free and fills it; false when the caller has gone (`close`).
    func put(_ item: Item) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while slot != nil && !closed { condition.wait() }
        guard !closed else { return false }
        slot = item
        condition.broadcast()
        return true
    }

    /// Waits for an item and takes it; the end stays in the slot, so that every later call sees it.
    func take() -> Item {
        condition.lock()
        defer { condition.unlock() }
        while slot == nil { condition.wait() }
        guard let item = slot else { return .end }
        if case .end = item { return item }
        slot = nil
        condition.broadcast()
        return item
    }

    /// The caller has gone: a waiting `put` returns false, and so does every later one.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}

/// The session output that hands each processed frame to the channel.
final class ChannelOutput: PerceptionOutput {
    struct Closed: Error, CustomStringConvertible {
        var description: String { "the source was destroyed" }
    }

    let channel: ResultChannel

    init(channel: ResultChannel) { self.channel = channel }

    func write(_ processed: ProcessedFrame) throws {
        guard channel.put(.frame(processed)) else { throw Closed() }
    }

    func finish(_ summary: RunSummary) throws {}
}
