import Foundation
import PeripheryTestSupport
import Testing

@testable import PeripheryCore
@testable import PeripheryGeometry

/// Properties over seeded random plausible cameras (`SeededRandom`; `RandomCamera`).
struct GeometryPropertyTests {
    static let trials = 240

    static func cameras(seed: UInt64) throws -> [RandomCamera] {
        var rng = SeededRandom(seed: seed)
        return try (0..<trials).map { _ in try RandomCamera.make(&rng) }
    }

    /// The library's projection equals the spec composition written out with plain arrays.
    @Test func projectionMatchesNaiveComposition() throws {
        var worst = 0.0
        for cam in try Self.cameras(seed: 11) {
            let k = cam.intrinsics
            let got = CameraCalibration(intrinsics: k, pose: cam.pose).projection.rowMajor
            let want = Naive.projection(
                k: Naive.featureK(fx: k.fx, fy: k.fy, cx: k.cx, cy: k.cy, width: k.width, height: k.height), pose: cam.pose)
            for r in 0..<3 {
                for c in 0..<4 { worst = max(worst, abs(got[r][c] - want[r][c]) / max(1, abs(want[r][c]))) }
            }
        }
        #expect(worst < 1e-12)
    }

    /// Every voxel's LUT entry equals the direct projection of its point through the 3×4 matrix,
    /// rounded half away from zero; visible voxels land where they project, invisible ones are
    /// clamped.
    @Test func lutIndexEqualsDirectProjection() throws {
        var mismatches = 0, visibleTotal = 0
        for cam in try Self.cameras(seed: 12) {
            let cal = CameraCalibration(intrinsics: cam.intrinsics, pose: cam.pose)
            let lut = ProjectionLUT(calibration: cal)
            let m = cal.projection.rowMajor
            let (r0, r1, r2) = (m[0], m[1], m[2])
            for (i, p) in VoxelGrid.points.enumerated() {
                let x = r0[0] * p.x + r0[1] * p.y + r0[2] * p.z + r0[3]
                let y = r1[0] * p.x + r1[1] * p.y + r1[2] * p.z + r1[3]
                let z = r2[0] * p.x + r2[1] * p.y + r2[2] * p.z + r2[3]
                let safe = z > 0 ? z : 1
                let u = (x / safe).rounded(.toNearestOrAwayFromZero), v = (y / safe).rounded(.toNearestOrAwayFromZero)
                let visible = z > 0 && u >= 0 && u <= 127 && v >= 0 && v <= 63
                let cu = Int(min(max(u, 0), 127)), cv = Int(min(max(v, 0), 63))
                if (lut.visibility[i] == 1) != visible || Int(lut.indices[i]) != cv * 128 + cu { mismatches += 1 }
                if visible { visibleTotal += 1 }
            }
        }
        #expect(mismatches == 0)
        // The random cameras are plausible mounts, so a good share of voxels is visible.
        #expect(Double(visibleTotal) / Double(Self.trials * 6560) > 0.3)
    }

    /// `MountAngles(focusOfExpansion: sourceVanishingPoint((1,0,0)), …, roll:)` returns the pose.
    @Test func focusOfExpansionRoundTrip() throws {
        var worst = 0.0
        for cam in try Self.cameras(seed: 13) {
            let cal = CameraCalibration(intrinsics: cam.intrinsics, pose: cam.pose)
            let foe = try #require(cal.sourceVanishingPoint(SIMD3(1, 0, 0)))
            let a = MountAngles(focusOfExpansion: foe, intrinsics: cam.intrinsics, roll: cam.pose.roll)
            worst = max(worst, abs(deg(a.pitch - cam.pose.pitch)), abs(deg(a.yaw - cam.pose.yaw)))
        }
        #expect(worst < 1e-6)
    }

    /// R is orthonormal with determinant +1 within 1e-12 for every pose.
    @Test func rotationIsOrthonormal() throws {
        var worstOrtho = 0.0, worstDet = 0.0
        for cam in try Self.cameras(seed: 14) {
            let r = cam.pose.vehicleToSensorRotation
            let rrt = (r * r.transposed).rowMajor
            for i in 0..<3 { for j in 0..<3 { worstOrtho = max(worstOrtho, abs(rrt[i][j] - (i == j ? 1 : 0))) } }
            worstDet = max(worstDet, abs(r.determinant - 1))
        }
        #expect(worstOrtho < 1e-12)
        #expect(worstDet < 1e-12)
    }

    /// Sign probes hold for every random pose, not only the golden one.
    @Test func signProbesHoldEverywhere() throws {
        var failures = 0
        for cam in try Self.cameras(seed: 15) {
            let p = cam.pose
            func cal(_ dp: Double = 0, _ dr: Double = 0, _ dy: Double = 0) -> CameraCalibration {
                CameraCalibration(
                    intrinsics: cam.intrinsics,
                    pose: MountPose(
                        pitch: p.pitch + dp, roll: p.roll + dr, yaw: p.yaw + dy, height: p.height,
                        forwardOfOrigin: p.forwardOfOrigin, lateralOffset: p.lateralOffset))
            }
            let ground = SIMD3<Double>(p.forwardOfOrigin + 40, p.lateralOffset, 0)
            let ahead = SIMD3<Double>(p.forwardOfOrigin + 40, p.lateralOffset, p.height)
            guard let g0 = cal().sourcePoint(ground), let g1 = cal(rad(5)).sourcePoint(ground),
                let a0 = cal().sourcePoint(ahead), let a1 = cal(0, 0, rad(5)).sourcePoint(ahead)
            else {
                failures += 1
                continue
            }
            if !(g1.y - g0.y > 1) { failures += 1 }
            if !(a1.x - a0.x > 1) { failures += 1 }
            // Roll probe from a level pose with this camera's pitch.
            let rolled = CameraCalibration(
                intrinsics: cam.intrinsics,
                pose: MountPose(
                    pitch: p.pitch, roll: rad(5), height: p.height, forwardOfOrigin: p.forwardOfOrigin))
            guard let l = rolled.sourceVanishingPoint(SIMD3(1, 0.3, 0)),
                let r = rolled.sourceVanishingPoint(SIMD3(1, -0.3, 0))
            else {
                failures += 1
                continue
            }
            if !(l.y - r.y > 1) { failures += 1 }
        }
        #expect(failures == 0)
    }

    // MARK: Range sensitivity to pitch

    /// Ground range, ahead of the camera, whose source row is `row` for a zero-roll/yaw pose.
    static func groundRange(row: Double, pitch: Double, height: Double, intrinsics: CameraIntrinsics) -> Double? {
        let cal = CameraCalibration(intrinsics: intrinsics, pose: MountPose(pitch: pitch, height: height, forwardOfOrigin: 0))
        // Rows fall towards the horizon as range grows: bisect on [0.5 m, 10 km].
        var lo = 0.5, hi = 10_000.0
        guard let near = cal.sourcePoint(SIMD3(lo, 0, 0)), let far = cal.sourcePoint(SIMD3(hi, 0, 0)),
            near.y > row, far.y < row
        else { return nil }
        for _ in 0..<200 {
            let mid = (lo + hi) / 2
            guard let p = cal.sourcePoint(SIMD3(mid, 0, 0)) else { return nil }
            if p.y > row { lo = mid } else { hi = mid }
        }
        return (lo + hi) / 2
    }

    /// Hold the image row fixed (the ray's angle relative to the camera), nudge pitch by ±ε and
    /// re-solve the ground range it sees: the central difference matches `∂d/∂θ = h / sin²θ`,
    /// θ = atan(h/d) the depression, within 1 %.
    @Test func rangeSensitivityToPitch() throws {
        var rng = SeededRandom(seed: 16)
        let k = try commaIntrinsics()
        let eps = 1e-4
        var worst = 0.0, checked = 0
        for _ in 0..<Self.trials {
            let pitch = rad(rng.uniform(-8, 8)), h = rng.uniform(0.8, 2.2), d = rng.uniform(5, 40)
            let cal = CameraCalibration(intrinsics: k, pose: MountPose(pitch: pitch, height: h, forwardOfOrigin: 0))
            let row = try #require(cal.sourcePoint(SIMD3(d, 0, 0))).y
            let plus = try #require(Self.groundRange(row: row, pitch: pitch + eps, height: h, intrinsics: k))
            let minus = try #require(Self.groundRange(row: row, pitch: pitch - eps, height: h, intrinsics: k))
            let numeric = (plus - minus) / (2 * eps)
            let theta = atan(h / d)
            let analytic = h / (sin(theta) * sin(theta))
            worst = max(worst, abs(numeric / analytic - 1))
            checked += 1
            // Nose-up by ε makes the same row look farther.
            #expect(plus > d && minus < d)
        }
        #expect(checked == Self.trials)
        #expect(worst < 0.01)
    }

    @Test func sensitivityQuotedAtFortyMetres() throws {
        // "∂d/∂θ = h/sin²θ ≈ 23 m per degree" at 1.20 m, 40 m; "40 m ahead is 1.72° below horizontal".
        let k = try commaIntrinsics()
        let h = 1.2, d = 40.0, pitch = rad(-3.659), eps = 1e-4
        #expect(abs(deg(atan(h / d)) - 1.72) < 0.005)
        let cal = CameraCalibration(intrinsics: k, pose: MountPose(pitch: pitch, height: h, forwardOfOrigin: 0))
        let row = try #require(cal.sourcePoint(SIMD3(d, 0, 0))).y
        let plus = try #require(Self.groundRange(row: row, pitch: pitch + eps, height: h, intrinsics: k))
        let minus = try #require(Self.groundRange(row: row, pitch: pitch - eps, height: h, intrinsics: k))
        let metresPerDegree = (plus - minus) / (2 * eps) * .pi / 180
        #expect(abs(metresPerDegree - 23.3) < 0.2)
    }
}
