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

    init(blas: OpenBLAS, threads: Int, arena: TensorArena, scratchCount: Int) {
        self.blas = blas
        self.threads = max(1, threads)
        self.scratchCount = scratchCount
        pool = WorkerPool(workers: max(1, threads))
        scratch = (0..<max(1, threads)).map { _ in arena.take(scratchCount) }
    }

    /// Runs `body(worker)` for every worker in parallel (inline when there is one).
    ///
    /// Kernels pass closures over raw pointers; each worker writes a disjoint part of the output,
    /// which is what makes sharing them safe.
    func parallel(_ body: (Int) -> Void) {
        pool.run(body)
    }

    /// Runs `body(worker, item)` for every item in `0..<count`, workers taking the next item as they
    /// finish the last: on a shared machine a core that is slowed down takes fewer items instead of
    /// holding every other worker up at the end of the layer.
    func parallelFor(_ count: Int, _ body: (_ worker: Int, _ item: Int) -> Void) {
        let next = Atomic<Int>(0)
        parallel { worker in
            while true {
                let item = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard item < count else { return }
                body(worker, item)
            }
        }
    }

    /// Splits `0..<count` into `threads` near-equal contiguous ranges and runs them in parallel.
    func parallelRanges(_ count: Int, _ body: (Range<Int>) -> Void) {
        parallel { worker in
            let range = ComputeContext.part(worker, of: threads, count: count)
            if !range.isEmpty { body(range) }
        }
    }

    /// The `index`-th of `parts` near-equal contiguous ranges of `0..<count`.
    static func part(_ index: Int, of parts: Int, count: Int) -> Range<Int> {
        (count * index / parts) ..< (count * (index + 1) / parts)
    }
}
