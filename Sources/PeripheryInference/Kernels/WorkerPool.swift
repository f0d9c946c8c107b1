import Dispatch
import Foundation
import PeripheryCore
import Synchronization

/// Persistent worker threads for the kernels: the caller is worker 0, the others wait for the next
/// job spinning for a moment and then sleeping.
///
/// A layer's parallel section lasts 0.1–15 ms and a frame has about 75 of them. Waking a sleeping
/// thread for each one (as a dispatch queue does) costs tens of microseconds per section, several
/// milliseconds per frame; spinning between sections keeps the workers ready, and sleeping after
/// `spinLimit` keeps an idle detector from burning a core.
///
/// While another thread borrows a core from the pool's `CoreBudget` (a video decoder does), the
/// pool runs its sections on fewer workers: the caller runs the parts of the workers left out,
/// and those sleep instead of spinning for the borrowed core.
final class WorkerPool {
    /// State the threads share with the pool; it outlives the pool until the threads have exited.
    private final class State: @unchecked Sendable {
        /// The latest job's sequence number and how many workers (indices 0 ..< active) take
        /// part in it, `sequence << 16 | active`: one word, so that a worker reads both at once.
        let ticket = Atomic<Int>(0)
        let pending = Atomic<Int>(0)
        let sleepers = Atomic<Int>(0)
        let stopping = Atomic<Bool>(false)
        let condition = NSCondition()
        /// The running job's type and address (on the caller's stack); written by the caller only
        /// while no worker reads them (between jobs).
        nonisolated(unsafe) var jobType: (any WorkerJob.Type)?
        nonisolated(unsafe) var jobAddress: UnsafeRawPointer?
    }

    /// How long a worker spins for the next job before sleeping.
    static let spinLimit: UInt64 = 2_000_000 // ns

    let workers: Int
    /// The cores the pool shares with other busy threads.
    let budget: CoreBudget
    private let state = State()

    /// Starts `workers − 1` threads (the caller is the remaining worker).
    init(workers: Int, budget: CoreBudget = .process) {
        precondition(workers < 1 << 16, "\(workers) workers: a job ticket counts up to 65535")
        self.workers = max(1, workers)
        self.budget = budget
        for index in 1..<self.workers {
            let state = self.state, workers = self.workers
            let thread = Thread { WorkerPool.loop(state, index, workers: workers, budget: budget) }
            thread.stackSize = 1 << 20
            thread.name = "periphery.worker.\(index)"
            thread.start()
        }
    }

    deinit {
        state.stopping.store(true, ordering: .sequentiallyConsistent)
        state.ticket.add(1 << 16, ordering: .sequentiallyConsistent)
        state.condition.lock()
        state.condition.broadcast()
        state.condition.unlock()
    }

    /// Runs `job` as every worker, `job.run(worker: w)` once for each w in `0 ..< workers`, and
    /// returns when all have finished.
    func run<Job: WorkerJob>(_ job: Job) {
        let active = workers > 1 ? budget.activeWorkers(of: workers) : 1
        guard active > 1 else {
            for worker in 0..<workers { job.run(worker: worker) }
            return
        }
        withUnsafePointer(to: job) { address in
            state.jobType = Job.self
            state.jobAddress = UnsafeRawPointer(address)
            state.pending.store(active - 1, ordering: .relaxed)
            let sequence = state.ticket.load(ordering: .relaxed) >> 16 + 1
            state.ticket.store(sequence << 16 | active, ordering: .sequentiallyConsistent)
            if state.sleepers.load(ordering: .sequentiallyConsistent) > 0 {
                state.condition.lock()
                state.condition.broadcast()
                state.condition.unlock()
            }
            job.run(worker: 0)
            for worker in active..<workers { job.run(worker: worker) }
            while state.pending.load(ordering: .acquiring) > 0 {}
            state.jobType = nil
            state.jobAddress = nil
        }
    }

    /// Runs the job of type `type` at `address` as worker `worker`.
    private static func invoke<Job: WorkerJob>(_ type: Job.Type, at address: UnsafeRawPointer, worker: Int) {
        address.assumingMemoryBound(to: Job.self).pointee.run(worker: worker)
    }

    private static func loop(_ state: State, _ index: Int, workers: Int, budget: CoreBudget) {
        var seen = 0
        while true {
            var spins = 0
            var deadline: UInt64 = 0
            while state.ticket.load(ordering: .acquiring) == seen {
                spins += 1
                guard spins & 1023 == 0 else { continue }
                let now = DispatchTime.now().uptimeNanoseconds
                if deadline == 0 {
                    deadline = now + spinLimit
                } else if now > deadline || index >= budget.activeWorkers(of: workers) {
                    state.condition.lock()
                    state.sleepers.add(1, ordering: .sequentiallyConsistent)
                    while state.ticket.load(ordering: .sequentiallyConsistent) == seen {
                        state.condition.wait()
                    }
                    state.sleepers.subtract(1, ordering: .sequentiallyConsistent)
                    state.condition.unlock()
                }
            }
            seen = state.ticket.load(ordering: .acquiring)
            if state.stopping.load(ordering: .acquiring) { return }
            // Left out of this job: the caller runs this worker's part.
            guard index < seen & 0xFFFF else { continue }
            if let type = state.jobType, let address = state.jobAddress { invoke(type, at: address, worker: index) }
            state.pending.subtract(1, ordering: .releasing)
        }
    }
}
