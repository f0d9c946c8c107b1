import PeripheryTestSupport
import Testing

@testable import PeripheryCore

/// `HungarianAssignment` against exhaustive search on small random matrices.
struct HungarianAssignmentTests {
    /// Smallest total cost over every assignment of min(rows, columns) pairs, by enumeration.
    static func bruteForce(_ costs: [[Double]]) -> Double {
        let rows = costs.count, columns = costs[0].count
        let tall = rows > columns
        let (small, large) = tall ? (columns, rows) : (rows, columns)
        func cost(_ i: Int, _ j: Int) -> Double { tall ? costs[j][i] : costs[i][j] }
        var best = Double.infinity
        var used = [Bool](repeating: false, count: large)
        func search(_ i: Int, _ total: Double) {
            if i == small {
                best = min(best, total)
                return
            }
            for j in 0..<large where !used[j] {
                used[j] = true
                search(i + 1, total + cost(i, j))
                used[j] = false
            }
        }
        search(0, 0)
        return best
    }

    /// Checks that the pairs form a full assignment sorted by row and returns its cost.
    static func checkedCost(_ pairs: [HungarianAssignment.Pair], _ costs: [[Double]]) -> Double? {
        let rows = costs.count, columns = costs[0].count
        guard pairs.count == min(rows, columns),
            Set(pairs.map(\.row)).count == pairs.count, Set(pairs.map(\.column)).count == pairs.count,
            pairs.allSatisfy({ (0..<rows).contains($0.row) && (0..<columns).contains($0.column) }),
            pairs.map(\.row) == pairs.map(\.row).sorted()
        else { return nil }
        return pairs.reduce(0) { $0 + costs[$1.row][$1.column] }
    }

    enum Kind: String, CaseIterable, Sendable {
        /// Uniform real costs.
        case real
        /// Small integers: many ties.
        case integer
        /// Tracker-like: real costs with some entries forbidden (1e6).
        case gated
    }

    @Test(arguments: Kind.allCases)
    func matchesBruteForceOnRandomMatrices(kind: Kind) {
        var rng = SeededRandom(seed: 0x4855_4E47 &+ UInt64(Kind.allCases.firstIndex(of: kind) ?? 0))
        var checked = 0
        for _ in 0..<120 {
            let rows = 1 + Int(rng.next() % 6), columns = 1 + Int(rng.next() % 7)
            let costs: [[Double]] = (0..<rows).map { _ in
                (0..<columns).map { _ in
                    switch kind {
                    case .real: rng.uniform(0, 10)
                    case .integer: Double(rng.next() % 4)
                    case .gated: rng.uniform(0, 1) < 0.4 ? 1e6 : rng.uniform(0, 6)
                    }
                }
            }
            let pairs = HungarianAssignment.solve(costs)
            guard let cost = Self.checkedCost(pairs, costs) else {
                Issue.record("\(rows)×\(columns): not a full assignment: \(pairs)")
                continue
            }
            let best = Self.bruteForce(costs)
            if kind == .integer {
                #expect(cost == best, "\(rows)×\(columns) \(costs)")
            } else {
                #expect(abs(cost - best) <= 1e-9 * max(1, best), "\(rows)×\(columns) \(costs)")
            }
            checked += 1
        }
        #expect(checked == 120)
    }

    @Test func squareAndTallCasesByHand() {
        // The greedy choice (row 0 → column 0) is not optimal here.
        let square: [[Double]] = [[1, 2], [1, 10]]
        #expect(HungarianAssignment.solve(square) == [.init(row: 0, column: 1), .init(row: 1, column: 0)])
        // Tall: three tracks, two detections; pairs come back sorted by row.
        let tall: [[Double]] = [[5, 9], [1, 8], [7, 2]]
        #expect(HungarianAssignment.solve(tall) == [.init(row: 1, column: 0), .init(row: 2, column: 1)])
        // Wide: one row picks the cheapest column.
        #expect(HungarianAssignment.solve([[3, 1, 2]]) == [.init(row: 0, column: 1)])
    }

    @Test func emptyMatricesGiveNoPairs() {
        #expect(HungarianAssignment.solve([]).isEmpty)
        #expect(HungarianAssignment.solve([[], []]).isEmpty)
    }
}
