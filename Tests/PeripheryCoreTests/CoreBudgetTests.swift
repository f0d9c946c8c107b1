import Testing

@testable import PeripheryCore

/// How many of a pool's workers take part while other threads hold cores.
struct CoreBudgetTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var cores: Int, workers: Int, borrowed: Int, active: Int
        var testDescription: String { "\(workers) workers, \(borrowed) of \(cores) cores borrowed" }
    }

    static let cases: [Case] = [
        Case(cores: 2, workers: 2, borrowed: 0, active: 2),
        Case(cores: 2, workers: 2, borrowed: 1, active: 1),
        Case(cores: 2, workers: 2, borrowed: 2, active: 1),
        Case(cores: 2, workers: 1, borrowed: 1, active: 1),
        // A pool smaller than the machine leaves the borrower a free core.
        Case(cores: 16, workers: 2, borrowed: 1, active: 2),
        Case(cores: 16, workers: 16, borrowed: 1, active: 15),
        Case(cores: 16, workers: 15, borrowed: 2, active: 14),
        // A pool larger than the machine, as its user asked, keeps its size until a core is borrowed.
        Case(cores: 2, workers: 4, borrowed: 0, active: 4),
        Case(cores: 2, workers: 4, borrowed: 1, active: 3),
    ]

    @Test(arguments: cases)
    func activeWorkers(_ c: Case) {
        let budget = CoreBudget(cores: c.cores)
        func holding(_ n: Int) -> Int {
            n == 0 ? budget.activeWorkers(of: c.workers) : budget.borrow { holding(n - 1) }
        }
        #expect(holding(c.borrowed) == c.active)
        #expect(budget.borrowed == 0)
        #expect(budget.activeWorkers(of: c.workers) == c.workers)
    }

    struct Failure: Error {}

    /// A body that throws gives its core back.
    @Test func throwingBodyReturnsTheCore() {
        let budget = CoreBudget(cores: 2)
        #expect(throws: Failure.self) { try budget.borrow { throw Failure() } }
        #expect(budget.borrowed == 0)
        #expect(budget.activeWorkers(of: 2) == 2)
    }
}
