/// A 3×3 matrix of `Double`, stored by rows.
///
/// Small and explicit on purpose: camera geometry needs products, transposes and determinants of
/// 3×3 matrices, and writing them out keeps every sign convention visible.
public struct Matrix3: Sendable, Hashable {
    /// Top row.
    public var row0: SIMD3<Double>
    /// Middle row.
    public var row1: SIMD3<Double>
    /// Bottom row.
    public var row2: SIMD3<Double>

    /// Creates a matrix from its rows.
    public init(rows r0: SIMD3<Double>, _ r1: SIMD3<Double>, _ r2: SIMD3<Double>) {
        row0 = r0
        row1 = r1
        row2 = r2
    }

    /// Creates a matrix from a row-major array of arrays; `nil` unless it is exactly 3×3.
    public init?(rowMajor values: [[Double]]) {
        guard values.count == 3, values.allSatisfy({ $0.count == 3 }) else { return nil }
        self.init(
            rows: SIMD3(values[0][0], values[0][1], values[0][2]),
            SIMD3(values[1][0], values[1][1], values[1][2]),
            SIMD3(values[2][0], values[2][1], values[2][2]))
    }

    /// The identity matrix.
    public static let identity = Matrix3(rows: SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1))

    /// Element at `row`, `column` (both 0-based).
    public subscript(row: Int, column: Int) -> Double {
        get { self.row(row)[column] }
        set {
            switch row {
            case 0: row0[column] = newValue
            case 1: row1[column] = newValue
            case 2: row2[column] = newValue
            default: preconditionFailure("Matrix3 row \(row) out of range")
            }
        }
    }

    /// Row `index` (0-based).
    public func row(_ index: Int) -> SIMD3<Double> {
        switch index {
        case 0: return row0
        case 1: return row1
        case 2: return row2
        default: preconditionFailure("Matrix3 row \(index) out of range")
        }
    }

    /// The transpose.
    public var transposed: Matrix3 {
        Matrix3(
            rows: SIMD3(row0.x, row1.x, row2.x),
            SIMD3(row0.y, row1.y, row2.y),
            SIMD3(row0.z, row1.z, row2.z))
    }

    /// The determinant.
    public var determinant: Double {
        let (a, b, c) = (row0, row1, row2)
        return a.x * (b.y * c.z - b.z * c.y) - a.y * (b.x * c.z - b.z * c.x) + a.z * (b.x * c.y - b.y * c.x)
    }

    /// Matrix–vector product.
    public static func * (m: Matrix3, v: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3((m.row0 * v).sum(), (m.row1 * v).sum(), (m.row2 * v).sum())
    }

    /// Matrix product.
    public static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
        let bt = b.transposed
        func row(_ r: SIMD3<Double>) -> SIMD3<Double> {
            SIMD3((r * bt.row0).sum(), (r * bt.row1).sum(), (r * bt.row2).sum())
        }
        return Matrix3(rows: row(a.row0), row(a.row1), row(a.row2))
    }

    /// The rows as a row-major array of arrays.
    public var rowMajor: [[Double]] {
        [row0, row1, row2].map { [$0.x, $0.y, $0.z] }
    }
}
