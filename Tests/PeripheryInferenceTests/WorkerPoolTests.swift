import Foundation
import PeripheryGeometry
import Synchronization
import Testing

@testable import PeripheryCore
@testable import PeripheryInference

/// The worker pool runs every worker's part of a job exactly once, whether or not another thread
/// has borrowed a core from its budget.
struct WorkerPoolTests {
    /// Counts the runs of each worker index and notes which thread ran it. An `NSLock` (pthreads)
    /// rather than `Mutex`, whose futex ThreadSanitizer cannot see.
    final class Ledger: @unchecked Sendable {
        private let lock = NSLock()
        private var runs: [(count: Int, thread: ObjectIdentifier?)]
        init(workers: Int) { runs = Array(repeating: (0, nil), count: workers) }
        func record(_ worker: Int, on thread: ObjectIdentifier) { lock.withLock { runs[worker] = (runs[worker].count + 1, thread) } }
        var counts: [Int] { lock.withLock { runs.map(\.count) } }
        var threads: [ObjectIdentifier?] { lock.withLock { runs.map(\.thread) } }
    }

    struct Recording: WorkerJob {
        let ledger: Ledger
        func run(worker: Int) { ledger.record(worker, on: ObjectIdentifier(Thread.current)) }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var cores: Int, workers: Int, borrowed: Int
        var testDescription: String { "\(workers) workers, \(borrowed) of \(cores) cores borrowed" }
    }

    static let cases: [Case] = [
        Case(cores: 2, workers: 2, borrowed: 0), Case(cores: 2, workers: 2, borrowed: 1), Case(cores: 2, workers: 2, borrowed: 2),
        Case(cores: 4, workers: 4, borrowed: 1), Case(cores: 4, workers: 4, borrowed: 3), Case(cores: 2, workers: 3, borrowed: 1),
        Case(cores: 8, workers: 3, borrowed: 6),
    ]

    /// Each part runs once; the parts of the workers left out run on the caller's thread.
    @Test(arguments: cases)
    func everyPartRunsOnce(_ c: Case) {
        let budget = CoreBudget(cores: c.cores)
        let pool = WorkerPool(workers: c.workers, budget: budget)
        func holding(_ n: Int, _ body: () -> Void) { n == 0 ? body() : budget.borrow { holding(n - 1, body) } }
        holding(c.borrowed) {
            let active = budget.activeWorkers(of: c.workers)
            for _ in 0..<50 {
                let ledger = Ledger(workers: c.workers)
                pool.run(Recording(ledger: ledger))
                #expect(ledger.counts == Array(repeating: 1, count: c.workers))
                let caller = ObjectIdentifier(Thread.current)
                for worker in [0] + Array(active..<c.workers) { #expect(ledger.threads[worker] == caller, "worker \(worker)") }
            }
        }
    }

    /// A thread that borrows and returns a core again and again while the caller runs jobs: every
    /// job still runs each part exactly once.
    @Test func borrowingWhileJobsRun() {
        let budget = CoreBudget(cores: 2)
        let pool = WorkerPool(workers: 2, budget: budget)
        let stop = Atomic<Bool>(false)
        let borrower = Thread {
            while !stop.load(ordering: .relaxed) {
                budget.borrow { for _ in 0..<Int.random(in: 0..<2000) { _ = stop.load(ordering: .relaxed) } }
            }
        }
        borrower.start()
        for _ in 0..<5000 {
            let ledger = Ledger(workers: 2)
            pool.run(Recording(ledger: ledger))
            let counts = ledger.counts
            #expect(counts == [1, 1])
            if counts != [1, 1] { break }
        }
        stop.store(true, ordering: .relaxed)
    }

    /// With a core borrowed, the preprocessor's split resize gives the same tensor as one thread.
    @Test func borrowedCoreKeepsTheResult() throws {
        let budget = CoreBudget(cores: 2)
        let image = RGBImage(width: 640, height: 360, pixels: (0..<(640 * 360 * 3)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) })
        let frame = try FramePixels(try #require(image))
        let crop = FocalMatchedCrop(intrinsics: try CameraIntrinsics(fx: 420, fy: 420, cx: 321.5, cy: 178, width: 640, height: 360))
        let one = Preprocessor(threads: 1), split = Preprocessor(pool: WorkerPool(workers: 2, budget: budget))
        one.process(frame, crop: crop)
        for borrowed in [false, true] {
            if borrowed { budget.borrow { split.process(frame, crop: crop) } } else { split.process(frame, crop: crop) }
            #expect(split.tensor == one.tensor, "borrowed \(borrowed)")
        }
    }
}
