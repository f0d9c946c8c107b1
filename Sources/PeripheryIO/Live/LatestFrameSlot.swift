import Foundation

/// The hand-over between a live source's capture thread and the run: one frame, the newest.
///
/// A frame that arrives while the previous one is still waiting replaces it and counts as dropped,
/// so nothing queues however slow the engine is. The end of the input and a failure are never
/// replaced: they come after the last frame.
final class LatestFrameSlot: @unchecked Sendable {
    /// What ends the stream of frames.
    enum Ending {
        case end
        case failure(any Error)
    }

    private let condition = NSCondition()
    // Guarded by `condition`.
    private var frame: SourceFrame?
    private var ending: Ending?
    private var droppedSinceTaken = 0

    /// Puts `frame` in the slot, dropping the one waiting there.
    func put(_ frame: SourceFrame) {
        condition.lock()
        defer { condition.unlock() }
        if self.frame != nil { droppedSinceTaken += 1 }
        self.frame = frame
        condition.broadcast()
    }

    /// Ends the stream after the frame waiting, if any.
    func finish(_ ending: Ending) {
        condition.lock()
        defer { condition.unlock() }
        if self.ending == nil { self.ending = ending }
        condition.broadcast()
    }

    /// What `take` found.
    enum Taken {
        case frame(SourceFrame)
        case ending(Ending)
        case nothing
    }

    /// The newest frame with the count of frames dropped before it, the ending once no frame waits,
    /// or `.nothing` when `timeout` seconds pass with neither.
    func take(timeout: Double) -> Taken {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while frame == nil && ending == nil {
            if !condition.wait(until: deadline) { return .nothing }
        }
        if var taken = frame {
            taken.dropped = droppedSinceTaken
            frame = nil
            droppedSinceTaken = 0
            return .frame(taken)
        }
        return ending.map { .ending($0) } ?? .nothing
    }

    /// Frames waiting or dropped since the last one taken: what a run that stops now leaves behind.
    var undelivered: Int {
        condition.lock()
        defer { condition.unlock() }
        return droppedSinceTaken + (frame == nil ? 0 : 1)
    }
}
