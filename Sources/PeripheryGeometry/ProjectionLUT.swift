import PeripheryCore

/// For each of the 6560 voxels, the feature-plane pixel it samples and whether it is visible.
///
/// Built once per calibration; the gather then lifts the 64 × 128 feature map into the BEV volume
/// every frame with one indexed copy per channel.
public struct ProjectionLUT: Sendable, Hashable {
    /// Feature-plane index `v · 128 + u` per voxel, always in range (clamped even when invisible).
    public let indices: [Int32]
    /// 1 if the voxel projects in front of the camera and inside the feature plane, else 0.
    public let visibility: [UInt8]

    /// Projects every voxel point (reference, `docs/reference/contract.md#5-projectionlut`).
    ///
    /// `(X, Y, Z) = P · [p, 1]`; `u = round(X/Z)`, `v = round(Y/Z)` rounding half away from zero,
    /// with Z replaced by 1 when it is not positive; visible iff `Z > 0` and `(u, v)` is inside the
    /// plane; indices are clamped into the plane.
    ///
    /// - Parameters:
    ///   - projection: grid metres → homogeneous feature pixels.
    ///   - points: voxel points in volume order.
    public init(projection: Matrix3x4, points: [SIMD3<Double>] = VoxelGrid.points) {
        let width = Safety40.featureWidth, height = Safety40.featureHeight
        var indices = [Int32](repeating: 0, count: points.count)
        var visibility = [UInt8](repeating: 0, count: points.count)
        for (i, p) in points.enumerated() {
            let h = projection.apply(p)
            let depth = h.z
            let safe = depth > 0 ? depth : 1
            let uf = (h.x / safe).rounded(), vf = (h.y / safe).rounded()
            // Clamp in Double first: a point near the camera plane can project beyond Int's range.
            // A NaN coordinate (non-finite calibration) would trap in Int(_:): treat it as outside.
            let u = uf.isNaN ? -1 : Int(min(max(uf, -1), Double(width)))
            let v = vf.isNaN ? -1 : Int(min(max(vf, -1), Double(height)))
            let visible = depth > 0 && u >= 0 && u < width && v >= 0 && v < height
            let cu = min(max(u, 0), width - 1), cv = min(max(v, 0), height - 1)
            indices[i] = Int32(cv * width + cu)
            visibility[i] = visible ? 1 : 0
        }
        self.indices = indices
        self.visibility = visibility
    }

    /// Builds the LUT of a calibration.
    public init(calibration: CameraCalibration) {
        self.init(projection: calibration.projection)
    }

    /// Creates a LUT from stored indices and flags, checking that they fit the feature plane.
    ///
    /// - Throws: `ProjectionLUTError` if the counts differ, an index is outside the plane or a flag
    ///   is not 0 or 1.
    public init(indices: [Int32], visibility: [UInt8]) throws(ProjectionLUTError) {
        guard indices.count == visibility.count else {
            throw .countMismatch(indices: indices.count, visibility: visibility.count)
        }
        let plane = Int32(Safety40.featurePlaneSize)
        if let bad = indices.firstIndex(where: { $0 < 0 || $0 >= plane }) {
            throw .indexOutOfRange(voxel: bad, index: Int(indices[bad]))
        }
        if let bad = visibility.firstIndex(where: { $0 > 1 }) {
            throw .invalidVisibility(voxel: bad, value: visibility[bad])
        }
        self.indices = indices
        self.visibility = visibility
    }

    /// Number of voxels.
    public var count: Int { indices.count }

    /// Number of visible voxels.
    public var visibleCount: Int { visibility.reduce(0) { $0 + Int($1) } }

    /// Share of visible voxels. A sane windshield mount gives 0.5–0.7; near 0 means a flipped pitch.
    public var visibleFraction: Double { count == 0 ? 0 : Double(visibleCount) / Double(count) }

    /// Lifts features into the BEV volume: `volume[c, i] = visible[i] ? features[c, index[i]] : 0`.
    ///
    /// Invisible voxels are written as zero, not skipped, so the volume buffer can be reused
    /// without clearing. Allocates nothing.
    ///
    /// - Parameters:
    ///   - features: `[channels, 64 · 128]`, each channel a row-major 64 × 128 plane.
    ///   - volume: `[channels, voxelCount]`, each channel in voxel (gx, gy, gz) order.
    ///   - channels: channel count of both buffers.
    public func gather(
        features: UnsafeBufferPointer<Float>, into volume: UnsafeMutableBufferPointer<Float>,
        channels: Int = Safety40.featureChannels
    ) {
        let plane = Safety40.featurePlaneSize, voxels = count
        precondition(features.count >= channels * plane, "features buffer holds fewer than \(channels) planes")
        precondition(volume.count >= channels * voxels, "volume buffer holds fewer than \(channels) × \(voxels)")
        guard let src = features.baseAddress, let dst = volume.baseAddress else { return }
        indices.withUnsafeBufferPointer { index in
            visibility.withUnsafeBufferPointer { visible in
                for c in 0..<channels {
                    let from = src + c * plane, to = dst + c * voxels
                    for i in 0..<voxels {
                        to[i] = visible[i] != 0 ? from[Int(index[i])] : 0
                    }
                }
            }
        }
    }
}

/// Why stored LUT data cannot be used.
public enum ProjectionLUTError: Error, Equatable, CustomStringConvertible {
    /// Indices and visibility flags differ in number.
    case countMismatch(indices: Int, visibility: Int)
    /// An index points outside the 64 × 128 feature plane.
    case indexOutOfRange(voxel: Int, index: Int)
    /// A visibility flag is neither 0 nor 1.
    case invalidVisibility(voxel: Int, value: UInt8)
    /// Serialized data has the wrong length.
    case wrongByteCount(expected: Int, actual: Int)

    public var description: String {
        switch self {
        case .countMismatch(let i, let v): "LUT has \(i) indices but \(v) visibility flags"
        case .indexOutOfRange(let voxel, let index): "LUT index \(index) of voxel \(voxel) is outside the feature plane"
        case .invalidVisibility(let voxel, let value): "LUT visibility \(value) of voxel \(voxel) is not 0 or 1"
        case .wrongByteCount(let e, let a): "LUT data has \(a) bytes, expected \(e)"
        }
    }
}
