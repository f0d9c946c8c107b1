import Dispatch
import Foundation
import Synchronization

/// Persistent worker threads for the kernels: the caller is worker 0, the others wait for the next
/// job spinning for a moment and then sleeping.
///
/// A layer's parallel section lasts 0.1–15 ms and a frame has about 75 of them. Waking a sleeping
/// thread for each one (as a dispatch queue does) costs tens of microseconds per section, several
/// milliseconds per frame; spinning between sections keeps the workers ready, and sleeping after
/// `spinLimit` keeps an idle detector from burning a core.
final class WorkerPool {
    /// State the threads share with the pool; it outlives the pool until the threads have exited.
    private final class State: @unchecked Sendable {
        let generation = Atomic<Int>(0)
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
    static let spinLimit: UInt64 = 2_000_000  // ns

    let workers: Int
    private let state = State()

    /// Starts `workers − 1` threads (the caller is the remaining worker).
    init(workers: Int) {
        self.workers = max(1, workers)
        for index in 1..<self.workers {
            let state = self.state
            let thread = Thread { WorkerPool.loop(state, index) }
            thread.stackSize = 1 << 20
            thread.name = "periphery.worker.\(index)"
            thread.start()
        }
    }

    deinit {
        state.stopping.store(true, ordering: .sequentiallyConsistent)
        state.generation.add(1, ordering: .sequentiallyConsistent)
        state.condition.lock()
        state.condition.broadcast()
        state.condition.unlock()
    }

    /// Runs `job` on every worker and returns when all have finished.
    func run<Job: WorkerJob>(_ job: Job) {
        guard workers > 1 else { return job.run(worker: 0) }
        withUnsafePointer(to: job) { address in
            state.jobType = Job.self
            state.jobAddress = UnsafeRawPointer(address)
            state.pending.store(workers - 1, ordering: .relaxed)
            state.generation.add(1, ordering: .sequentiallyConsistent)
            if state.sleepers.load(ordering: .sequentiallyConsistent) > 0 {
                state.condition.lock()
                state.condition.broadcast()
                state.condition.unlock()
            }
            job.run(worker: 0)
            while state.pending.load(ordering: .acquiring) > 0 {}
            state.jobType = nil
            state.jobAddress = nil
        }
    }

    /// Runs the job of type `type` at `address` as worker `worker`.
    private static func invoke<Job: WorkerJob>(_ type: Job.Type, at address: UnsafeRawPointer, worker: Int) {
        address.assumingMemoryBound(to: Job.self).pointee.run(worker: worker)
    }

    private static func loop(_ state: State, _ index: Int) {
        var seen = 0
        while true {
            var spins = 0
            var deadline: UInt64 = 0
            while state.generation.load(ordering: .acquiring) == seen {
                spins += 1
                guard spins & 1023 == 0 else { continue }
                let now = DispatchTime.now().uptimeNanoseconds
                if deadline == 0 {
                    deadline = now + spinLimit
                } else if now > deadline {
                    state.condition.lock()
                    state.sleepers.add(1, ordering: .sequentiallyConsistent)
                    while state.generation.load(ordering: .sequentiallyConsistent) == seen {
                        state.condition.wait()
                    }
                    state.sleepers.subtract(1, ordering: .sequentiallyConsistent)
                    state.condition.unlock()
                }
            }
            seen = state.generation.load(ordering: .acquiring)
            if state.stopping.load(ordering: .acquiring) { return }
            if let type = state.jobType, let address = state.jobAddress { invoke(type, at: address, worker: index) }
            state.pending.subtract(1, ordering: .releasing)
        }
    }
}
