import PeripheryTestSupport
import Testing

@testable import PeripheryCore
@testable import PeripheryGeometry

/// ProjectionLUT build, gather and serialization (reference, `docs/reference/contract.md#5-projectionlut`).
struct ProjectionLUTTests {
    /// A projection that maps (x, y, z) to homogeneous (x, y, z): u = x/z, v = y/z.
    static let identity = Matrix3x4(linear: .identity, translation: SIMD3(0, 0, 0))

    @Test func goldenVisibleFraction() throws {
        let lut = ProjectionLUT(calibration: try goldenCalibration())
        #expect(lut.count == 6560)
        #expect(lut.visibleCount == 4393)
        #expect(lut.visibleFraction == 4393.0 / 6560.0)
        #expect(abs(lut.visibleFraction - 0.669665) < 1e-6)
    }

    /// Every voxel against the spec's quoted golden projection, rounded half away from zero.
    @Test func goldenLUTMatchesQuotedProjection() throws {
        let lut = ProjectionLUT(calibration: try goldenCalibration())
        let p = CameraCalibrationTests.goldenProjection
        var visibilityMismatches = 0, indexMismatches = 0
        for (i, point) in VoxelGrid.points.enumerated() {
            let h = Naive.apply(p, [point.x, point.y, point.z, 1])
            let depth = h[2], safe = depth > 0 ? depth : 1
            let ur = (h[0] / safe).rounded(.toNearestOrAwayFromZero)
            let vr = (h[1] / safe).rounded(.toNearestOrAwayFromZero)
            let visible = depth > 0 && ur >= 0 && ur < 128 && vr >= 0 && vr < 64
            let index = Int(min(max(vr, 0), 63)) * 128 + Int(min(max(ur, 0), 127))
            if (lut.visibility[i] == 1) != visible { visibilityMismatches += 1 }
            if Int(lut.indices[i]) != index { indexMismatches += 1 }
        }
        #expect(visibilityMismatches == 0)
        #expect(indexMismatches == 0)
    }

    /// Hand-worked points through the identity projection.
    @Test(arguments: [
        // (point, visible, index)
        (SIMD3<Double>(10, 5, 1), true, 5 * 128 + 10),
        (SIMD3(21, 10, 2), true, 5 * 128 + 11), // 10.5 rounds away from zero to 11
        (SIMD3(-0.4, 0, 1), true, 0), // −0.4 rounds to −0 = 0: inside
        (SIMD3(-0.5, 0, 1), false, 0), // −0.5 rounds away to −1: outside, clamped to 0
        (SIMD3(127.4999, 63.4999, 1), true, 63 * 128 + 127),
        (SIMD3(127.5, 20, 1), false, 20 * 128 + 127), // 128: outside, clamped to 127
        (SIMD3(20, 63.5, 1), false, 63 * 128 + 20),
        (SIMD3(5, 5, 0), false, 5 * 128 + 5), // depth 0: safe = 1, never visible
        (SIMD3(5, 5, -2), false, 5 * 128 + 5), // behind: divided by 1, not by −2
        (SIMD3(300, -40, -1), false, 127), // behind and off-plane: clamped (u 127, v 0)
        (SIMD3(1e300, 1e300, 1e-300), false, 63 * 128 + 127), // overflows to ∞: clamped, no trap
        (SIMD3(-1e300, 4, 1e-300), false, 63 * 128 + 0),
        // NaN anywhere spreads through the product (NaN · 0 = NaN): u, v and depth are all NaN,
        // which must count as outside and clamp to index 0 rather than trap.
        (SIMD3(.nan, 4, 1), false, 0),
        (SIMD3(4, 4, .nan), false, 0),
    ])
    func handWorkedProjection(point: SIMD3<Double>, visible: Bool, index: Int) {
        let lut = ProjectionLUT(projection: Self.identity, points: [point])
        #expect(lut.visibility == [visible ? 1 : 0])
        #expect(lut.indices == [Int32(index)])
    }

    // MARK: Gather

    @Test func gatherMatchesNaiveLoopAndZeroesInvisible() throws {
        let lut = ProjectionLUT(calibration: try goldenCalibration())
        var rng = SeededRandom(seed: 2026)
        let channels = 64, plane = 64 * 128, voxels = 6560
        let features = (0..<(channels * plane)).map { _ in Float(rng.uniform(-3, 3)) }
        var volume = [Float](repeating: 12345.5, count: channels * voxels) // garbage from a "previous frame"
        features.withUnsafeBufferPointer { f in
            volume.withUnsafeMutableBufferPointer { v in lut.gather(features: f, into: v) }
        }
        var mismatches = 0, zeroed = 0
        for c in 0..<channels {
            for i in 0..<voxels {
                let expected = lut.visibility[i] == 1 ? features[c * plane + Int(lut.indices[i])] : 0
                if volume[c * voxels + i] != expected { mismatches += 1 }
                if lut.visibility[i] == 0 { zeroed += 1 }
            }
        }
        #expect(mismatches == 0)
        #expect(zeroed == channels * (6560 - 4393))
        #expect(!volume.contains(12345.5))
    }

    @Test func gatherOfFewerChannelsLeavesTheRestAlone() throws {
        let lut = ProjectionLUT(calibration: try goldenCalibration())
        let plane = 64 * 128, voxels = 6560
        // Feature value encodes its own plane index, so each gathered value names its source.
        let features = (0..<(2 * plane)).map { Float($0) }
        var volume = [Float](repeating: -7, count: 3 * voxels)
        features.withUnsafeBufferPointer { f in
            volume.withUnsafeMutableBufferPointer { v in lut.gather(features: f, into: v, channels: 2) }
        }
        var mismatches = 0
        for i in 0..<voxels {
            let visible = lut.visibility[i] == 1
            if volume[i] != (visible ? Float(lut.indices[i]) : 0) { mismatches += 1 }
            if volume[voxels + i] != (visible ? Float(plane + Int(lut.indices[i])) : 0) { mismatches += 1 }
        }
        #expect(mismatches == 0)
        #expect(volume[(2 * voxels)...].allSatisfy { $0 == -7 })
    }

    // MARK: Serialization

    @Test func serializationRoundTrip() throws {
        let lut = ProjectionLUT(calibration: try goldenCalibration())
        let bytes = lut.serialized
        #expect(bytes.count == 32_800)
        #expect(ProjectionLUT.serializedByteCount == 32_800)
        // Layout: little-endian int32 indices, then one byte per voxel.
        let first = Int32(bitPattern: UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24)
        #expect(first == lut.indices[0])
        #expect(Array(bytes[26_240...]) == lut.visibility)
        let back = try ProjectionLUT(serialized: bytes)
        #expect(back == lut)
    }

    @Test func serializedLittleEndianLayout() throws {
        var indices = [Int32](repeating: 0, count: 6560)
        indices[0] = 0x1234
        indices[6559] = 8191
        var visibility = [UInt8](repeating: 0, count: 6560)
        visibility[1] = 1
        let lut = try ProjectionLUT(indices: indices, visibility: visibility)
        let bytes = lut.serialized
        #expect(Array(bytes[0..<4]) == [0x34, 0x12, 0, 0])
        #expect(Array(bytes[(4 * 6559)..<(4 * 6560)]) == [0xFF, 0x1F, 0, 0])
        #expect(bytes[26_241] == 1)
    }

    @Test(arguments: [0, 32_799, 32_801, 6560 * 4])
    func wrongByteCount(count: Int) {
        #expect(throws: ProjectionLUTError.wrongByteCount(expected: 32_800, actual: count)) {
            _ = try ProjectionLUT(serialized: [UInt8](repeating: 0, count: count))
        }
    }

    @Test func serializedContentIsValidated() {
        var bytes = [UInt8](repeating: 0, count: 32_800)
        bytes[26_240 + 17] = 2
        #expect(throws: ProjectionLUTError.invalidVisibility(voxel: 17, value: 2)) {
            _ = try ProjectionLUT(serialized: bytes)
        }
        bytes[26_240 + 17] = 1
        bytes[4 * 9 + 3] = 0xFF // index 9 becomes negative
        #expect(throws: ProjectionLUTError.indexOutOfRange(voxel: 9, index: Int(Int32(bitPattern: 0xFF00_0000)))) {
            _ = try ProjectionLUT(serialized: bytes)
        }
    }

    // MARK: init(indices:visibility:)

    @Test func storedInitialiserErrors() throws {
        #expect(throws: ProjectionLUTError.countMismatch(indices: 3, visibility: 2)) {
            _ = try ProjectionLUT(indices: [0, 1, 2], visibility: [0, 1])
        }
        #expect(throws: ProjectionLUTError.indexOutOfRange(voxel: 1, index: -1)) {
            _ = try ProjectionLUT(indices: [0, -1, 8192], visibility: [0, 1, 1])
        }
        #expect(throws: ProjectionLUTError.indexOutOfRange(voxel: 2, index: 8192)) {
            _ = try ProjectionLUT(indices: [0, 5, 8192], visibility: [0, 1, 1])
        }
        #expect(throws: ProjectionLUTError.invalidVisibility(voxel: 0, value: 255)) {
            _ = try ProjectionLUT(indices: [0, 5, 8191], visibility: [255, 1, 1])
        }
        // The plane's first and last index are valid.
        let ok = try ProjectionLUT(indices: [0, 8191], visibility: [1, 0])
        #expect(ok.count == 2 && ok.visibleCount == 1 && ok.visibleFraction == 0.5)
        #expect(try ProjectionLUT(indices: [], visibility: []).visibleFraction == 0)
    }

    @Test func upwardCameraSeesFewVoxels() throws {
        // Every voxel lies below a 1.2 m camera; pitched 30° nose-up, with a half field of view of
        // atan(32/141.4) ≈ 12.7° vertically, it sees almost none (the UI flags < 0.35).
        let up = CameraCalibration(
            intrinsics: try commaIntrinsics(),
            pose: MountPose(pitchDegrees: 30, height: 1.2, forwardOfOrigin: 1.65))
        let fraction = ProjectionLUT(calibration: up).visibleFraction
        #expect(fraction < 0.35)
    }
}
