/// A 3×4 matrix of `Double`, stored by rows: a projective map from homogeneous 3-D points to
/// homogeneous image points.
public struct Matrix3x4: Sendable, Hashable {
    /// The left 3×3 block.
    public var linear: Matrix3
    /// The last column.
    public var translation: SIMD3<Double>

    /// Creates a matrix from its left 3×3 block and its last column.
    public init(linear: Matrix3, translation: SIMD3<Double>) {
        self.linear = linear
        self.translation = translation
    }

    /// Element at `row`, `column` (column 3 is the translation).
    public subscript(row: Int, column: Int) -> Double {
        column == 3 ? translation[row] : linear[row, column]
    }

    /// Applies the matrix to the homogeneous point `(p, 1)`.
    public func apply(_ p: SIMD3<Double>) -> SIMD3<Double> {
        linear * p + translation
    }

    /// Left-multiplies by a 3×3 matrix.
    public static func * (m: Matrix3, p: Matrix3x4) -> Matrix3x4 {
        Matrix3x4(linear: m * p.linear, translation: m * p.translation)
    }

    /// The rows as a row-major array of arrays.
    public var rowMajor: [[Double]] {
        (0..<3).map { r in (0..<4).map { self[r, $0] } }
    }
}

/// A rigid transform `p ↦ R·p + t` between two 3-D frames, with `R` a rotation.
public struct RigidTransform: Sendable, Hashable {
    /// The rotation part.
    public var rotation: Matrix3
    /// The translation part.
    public var translation: SIMD3<Double>

    /// Creates a transform from its rotation and translation.
    public init(rotation: Matrix3, translation: SIMD3<Double>) {
        self.rotation = rotation
        self.translation = translation
    }

    /// Maps a point.
    public func apply(_ p: SIMD3<Double>) -> SIMD3<Double> {
        rotation * p + translation
    }

    /// Composition: `(a ∘ b)(p) = a(b(p))`.
    public static func * (a: RigidTransform, b: RigidTransform) -> RigidTransform {
        RigidTransform(rotation: a.rotation * b.rotation, translation: a.rotation * b.translation + a.translation)
    }

    /// The top three rows of the homogeneous 4×4 matrix.
    public var matrix: Matrix3x4 {
        Matrix3x4(linear: rotation, translation: translation)
    }
}
