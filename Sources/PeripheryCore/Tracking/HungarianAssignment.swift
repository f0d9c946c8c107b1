/// Minimum-cost assignment on a rectangular cost matrix (the Hungarian method with row and column
/// potentials and shortest augmenting paths, O(n²·m)).
///
/// It finds the same optimum as scipy's `linear_sum_assignment`: exactly `min(rows, columns)` pairs,
/// each row and column used at most once, with the smallest total cost. A wide matrix is solved
/// row by row; a tall one is solved transposed. Costs must be finite — the tracker marks forbidden
/// pairs with a large finite cost and filters them out afterwards.
enum HungarianAssignment {
    /// One assigned pair.
    struct Pair: Hashable, Sendable {
        var row: Int
        var column: Int
    }

    /// The optimal pairs, sorted by row. `costs` is row-major and rectangular; empty gives no pairs.
    static func solve(_ costs: [[Double]]) -> [Pair] {
        let rows = costs.count
        guard rows > 0, let columns = costs.first?.count, columns > 0 else { return [] }
        precondition(costs.allSatisfy { $0.count == columns }, "HungarianAssignment: ragged cost matrix")
        precondition(costs.allSatisfy { $0.allSatisfy(\.isFinite) }, "HungarianAssignment: non-finite cost")
        if rows <= columns {
            return solveWide(rows: rows, columns: columns) { costs[$0][$1] }
        }
        return solveWide(rows: columns, columns: rows) { costs[$1][$0] }
            .map { Pair(row: $0.column, column: $0.row) }
            .sorted { $0.row < $1.row }
    }

    /// Assigns every row of a `rows × columns` matrix with `rows ≤ columns`.
    ///
    /// Rows are added one at a time; each addition grows a Dijkstra-like tree over columns in
    /// reduced costs `c(i, j) − u(i) − v(j)` until it reaches a free column, then flips the path.
    /// Index 0 of the arrays is a virtual column/row (1-based indexing keeps the bookkeeping short).
    /// On equal reduced costs the lowest column wins.
    private static func solveWide(rows: Int, columns: Int, cost: (Int, Int) -> Double) -> [Pair] {
        var rowPotential = [Double](repeating: 0, count: rows + 1)
        var columnPotential = [Double](repeating: 0, count: columns + 1)
        // owner[j]: the 1-based row assigned to column j, 0 when free; owner[0] is the row being added.
        var owner = [Int](repeating: 0, count: columns + 1)
        // previous[j]: the column before j on the shortest path found so far.
        var previous = [Int](repeating: 0, count: columns + 1)
        for row in 1...rows {
            owner[0] = row
            var column = 0
            var slack = [Double](repeating: .infinity, count: columns + 1)
            var inTree = [Bool](repeating: false, count: columns + 1)
            repeat {
                inTree[column] = true
                let current = owner[column]
                var delta = Double.infinity
                var next = 0
                for j in 1...columns where !inTree[j] {
                    let reduced = cost(current - 1, j - 1) - rowPotential[current] - columnPotential[j]
                    if reduced < slack[j] {
                        slack[j] = reduced
                        previous[j] = column
                    }
                    if slack[j] < delta {
                        delta = slack[j]
                        next = j
                    }
                }
                for j in 0...columns {
                    if inTree[j] {
                        rowPotential[owner[j]] += delta
                        columnPotential[j] -= delta
                    } else {
                        slack[j] -= delta
                    }
                }
                column = next
            } while owner[column] != 0
            // Flip the augmenting path back to the virtual column.
            repeat {
                let before = previous[column]
                owner[column] = owner[before]
                column = before
            } while column != 0
        }
        var pairs: [Pair] = []
        pairs.reserveCapacity(rows)
        for j in 1...columns where owner[j] != 0 {
            pairs.append(Pair(row: owner[j] - 1, column: j - 1))
        }
        return pairs.sorted { $0.row < $1.row }
    }
}
