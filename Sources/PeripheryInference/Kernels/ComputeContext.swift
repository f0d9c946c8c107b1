import Synchronization

/// The threads and per-thread scratch that kernels share.
///
/// Kernels split their work into `threads` parts themselves and call OpenBLAS single-threaded
/// from each, so im2col, epilogues and GEMMs all run in parallel without two thread pools
/// competing for the same cores.
final class ComputeContext {
    let blas: OpenBLAS
    let threads: Int
    /// One im2col scratch per worker, `scratchCount` floats each.
    let scratch: [UnsafeMutablePointer<Float>]
    let scratchCount: Int
    private let pool: WorkerPool
    /// The next item of the running `parallelFor`.
    fileprivate let nextItem = Atomic<Int>(0)

    init(blas: OpenBLAS, threads: Int, arena: TensorArena, scratchCount: Int) {
        self.blas = blas
        self.threads = max(1, threads)
        self.scratchCount = scratchCount
        pool = WorkerPool(workers: max(1, threads))
        scratch = (0..<max(1, threads)).map { _ in arena.take(scratchCount) }
    }

    /// Runs `job` on every worker in parallel (inline when there is one).
    ///
    /// Each worker writes a disjoint part of the output, which is what makes sharing the job's
    /// raw pointers safe.
    func parallel<Job: WorkerJob>(_ job: Job) {
        pool.run(job)
    }

    /// The workers, when there are several.
    var workerPool: WorkerPool? { pool.workers > 1 ? pool : nil }

    /// Runs `job` for every item in `0..<count`, workers taking the next item as they finish the
    /// last: on a shared machine a core that is slowed down takes fewer items instead of holding
    /// every other worker up at the end of the layer.
    func parallelFor<Job: ItemJob>(_ count: Int, _ job: Job) {
        nextItem.store(0, ordering: .relaxed)
        parallel(ItemLoop(context: self, job: job, count: count))
    }

    /// Splits `0..<count` into `threads` near-equal contiguous ranges and runs `job` on them in parallel.
    func parallelRanges<Job: RangeJob>(_ count: Int, _ job: Job) {
        parallel(RangeSplit(job: job, count: count, parts: threads))
    }

    /// Worker `worker`'s scratch as `count` floats of row buffers, for kernels that run no im2col
    /// (max pool, the Winograd transforms): the hot path takes no memory of its own.
    func rowScratch(_ worker: Int, count: Int) -> UnsafeMutablePointer<Float> {
        precondition(count <= scratchCount, "row scratch of \(count) floats exceeds the worker scratch of \(scratchCount)")
        return scratch[worker]
    }

    /// The `index`-th of `parts` near-equal contiguous ranges of `0..<count`.
    static func part(_ index: Int, of parts: Int, count: Int) -> Range<Int> {
        (count * index / parts)..<(count * (index + 1) / parts)
    }
}

/// A parallel section's work for one worker.
///
/// Jobs are values, not closures: the pool hands a job to its threads by address, whereas a
/// closure would have to pass through `withoutActuallyEscaping`, which allocates a context on every
/// call (about 70 per frame; `AllocationTests` keeps the hot path at zero).
protocol WorkerJob {
    func run(worker: Int)
}

/// Work on one contiguous part of a range (``ComputeContext/parallelRanges(_:_:)``).
protocol RangeJob {
    func run(worker: Int, range: Range<Int>)
}

/// Work on one item of many, taken dynamically (``ComputeContext/parallelFor(_:_:)``).
protocol ItemJob {
    func run(worker: Int, item: Int)
}

/// Worker `w` runs part `w` of `parts`.
private struct RangeSplit<Job: RangeJob>: WorkerJob {
    let job: Job, count: Int, parts: Int

    func run(worker: Int) {
        let range = ComputeContext.part(worker, of: parts, count: count)
        if !range.isEmpty { job.run(worker: worker, range: range) }
    }
}

/// Each worker takes items from the context's shared counter until none are left.
private struct ItemLoop<Job: ItemJob>: WorkerJob {
    let context: ComputeContext, job: Job, count: Int

    func run(worker: Int) {
        while true {
            let item = context.nextItem.wrappingAdd(1, ordering: .relaxed).oldValue
            guard item < count else { return }
            job.run(worker: worker, item: item)
        }
    }
}
