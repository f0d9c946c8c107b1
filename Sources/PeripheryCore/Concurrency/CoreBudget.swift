import Foundation
import Synchronization

/// The processor cores that the library's compute threads share.
///
/// The engine's worker pools spin between parallel sections, so a third busy thread (a video
/// decoder beside a two-core pool) makes the kernel deschedule a worker in the middle of a section
/// while the other workers spin, waiting for it. A thread that does heavy work outside the pools
/// therefore borrows a core for the duration, and a pool that would otherwise outnumber the cores
/// runs its sections on fewer workers meanwhile (`activeWorkers(of:)`): the work stays the same,
/// only which thread runs each part changes.
package final class CoreBudget: Sendable {
    /// The process's budget: every core the process may run on.
    package static let process = CoreBudget(cores: ProcessInfo.processInfo.activeProcessorCount)

    /// The cores shared.
    package let cores: Int
    private let borrowers = Atomic<Int>(0)

    package init(cores: Int) {
        precondition(cores >= 1, "a core budget needs a core")
        self.cores = cores
    }

    /// How many cores are borrowed now.
    package var borrowed: Int { borrowers.load(ordering: .relaxed) }

    /// Runs `body` holding one core.
    package func borrow<Result>(_ body: () throws -> Result) rethrows -> Result {
        acquire()
        defer { release() }
        return try body()
    }

    /// Takes one core, for work whose start and end are seen apart (a C decoder's callbacks);
    /// every `acquire` is followed by one `release`.
    package func acquire() { borrowers.add(1, ordering: .relaxed) }

    /// Gives back a core taken by `acquire`.
    package func release() { borrowers.subtract(1, ordering: .relaxed) }

    /// How many of a pool's `workers` should take part in a parallel section now: all of them,
    /// unless they and the borrowed cores together outnumber the cores; then one fewer for each
    /// borrowed core (never below one). A pool larger than the machine, which its user asked for,
    /// keeps its size while nothing is borrowed.
    package func activeWorkers(of workers: Int) -> Int {
        let borrowed = self.borrowed
        let excess = workers + borrowed - cores
        guard excess > 0 else { return workers }
        return max(1, workers - min(excess, borrowed))
    }
}
