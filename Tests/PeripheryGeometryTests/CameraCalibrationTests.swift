import Foundation
import PeripheryTestSupport
import Testing

@testable import PeripheryCore
@testable import PeripheryGeometry

/// Network and feature intrinsics, the grid → feature projection and the sign probes
/// (reference, `docs/reference/contract.md#42-vehicle-to-sensor-rotation`, `#44-network-intrinsics-and-projection`, `#45-source-projection-and-ground-guides`).
struct CameraCalibrationTests {
    /// The golden 3×4 projection (reference, `docs/reference/contract.md#44-network-intrinsics-and-projection`), pitch −3.659°, h 1.2, fwd 1.65, comma K.
    static let goldenProjection: [[Double]] = [
        [141.35922330097085, 63.86953863182999, -4.084364694438494, -47.70588767851261],
        [0.0, 22.91347836460667, -143.11325068451362, -107.76939616350106],
        [0.0, 0.9979615411223437, -0.06381819835060148, -0.7454044949767596],
    ]

    @Test func networkIntrinsics() throws {
        let k = try goldenCalibration().networkIntrinsics
        #expect(abs(k[0, 0] - 565.437) < 1e-3)
        #expect(abs(k[1, 1] - 565.437) < 1e-3)
        #expect(abs(k[0, 2] - 256) < 1e-9)
        #expect(abs(k[1, 2] - 128) < 1e-9)
        #expect(k[0, 1] == 0 && k[1, 0] == 0 && k.row2 == SIMD3(0, 0, 1))
    }

    @Test func featureIntrinsics() throws {
        let k = try goldenCalibration().featureIntrinsics
        #expect(abs(k[0, 0] - 141.359) < 1e-3)
        #expect(abs(k[1, 1] - 141.359) < 1e-3)
        #expect(abs(k[0, 2] - 64) < 1e-9)
        #expect(abs(k[1, 2] - 32) < 1e-9)
        #expect(k.row2 == SIMD3(0, 0, 1))
        // Exactly a quarter of the network K's first two rows (no half-pixel shift).
        let n = try goldenCalibration().networkIntrinsics
        #expect(abs(k[0, 0] - n[0, 0] / 4) < 1e-12 && abs(k[0, 2] - n[0, 2] / 4) < 1e-12)
    }

    @Test func goldenProjection() throws {
        let p = try goldenCalibration().projection.rowMajor
        var worst = 0.0
        for r in 0..<3 { for c in 0..<4 { worst = max(worst, abs(p[r][c] - Self.goldenProjection[r][c])) } }
        #expect(worst < 1e-4)
    }

    @Test func projectionMatchesNaiveComposition() throws {
        // Same matrix from plain-array arithmetic of §4.3–4.4, for a pose with every term non-zero.
        let k = try CameraIntrinsics(fx: 1400, fy: 1395, cx: 950, cy: 530, width: 1920, height: 1080)
        let pose = MountPose(
            pitchDegrees: 2.5, rollDegrees: -4, yawDegrees: 3, height: 1.45, forwardOfOrigin: 2.1,
            lateralOffset: -0.35)
        let got = CameraCalibration(intrinsics: k, pose: pose).projection.rowMajor
        let expected = Naive.projection(
            k: Naive.featureK(fx: 1400, fy: 1395, cx: 950, cy: 530, width: 1920, height: 1080), pose: pose)
        var worst = 0.0
        for r in 0..<3 { for c in 0..<4 { worst = max(worst, abs(got[r][c] - expected[r][c])) } }
        #expect(worst < 1e-10)
    }

    @Test func horizonRowAtZeroRollYaw() throws {
        // Network image horizon row = cy_net + fy_net · tan(pitch).
        for pitchDeg in [-3.659, 0.0, 4.0, -8.0] {
            let cal = CameraCalibration(
                intrinsics: try commaIntrinsics(),
                pose: MountPose(pitchDegrees: pitchDeg, height: 1.2, forwardOfOrigin: 1.65))
            let vp = try #require(cal.networkVanishingPoint(SIMD3(1, 0, 0)))
            let n = cal.networkIntrinsics
            #expect(abs(vp.y - (n[1, 2] + n[1, 1] * tan(rad(pitchDeg)))) < 1e-9)
            #expect(abs(vp.x - n[0, 2]) < 1e-9)
        }
    }

    // MARK: Sign probes (reference, `docs/reference/contract.md#42-vehicle-to-sensor-rotation`)

    static func calibration(pitch: Double = -3.659, roll: Double = 0, yaw: Double = 0, lateral: Double = 0) throws
        -> CameraCalibration
    {
        CameraCalibration(
            intrinsics: try commaIntrinsics(),
            pose: MountPose(
                pitchDegrees: pitch, rollDegrees: roll, yawDegrees: yaw, height: 1.2,
                forwardOfOrigin: 1.65, lateralOffset: lateral))
    }

    @Test(arguments: [-3.659, 0.0])
    func pitchUpMovesGroundPointDown(base: Double) throws {
        let ground = SIMD3<Double>(40, 0, 0)
        let before = try #require(try Self.calibration(pitch: base).sourcePoint(ground))
        let after = try #require(try Self.calibration(pitch: base + 5).sourcePoint(ground))
        #expect(after.y - before.y > 1)
    }

    @Test(arguments: [-3.659, 0.0])
    func yawLeftMovesStraightAheadPointRight(base: Double) throws {
        let ahead = SIMD3<Double>(40, 0, 1.2)
        let before = try #require(try Self.calibration(pitch: base).sourcePoint(ahead))
        let after = try #require(try Self.calibration(pitch: base, yaw: 5).sourcePoint(ahead))
        #expect(after.x - before.x > 1)
    }

    @Test(arguments: [-3.659, 0.0])
    func rollDropsLeftEndOfHorizon(base: Double) throws {
        let cal = try Self.calibration(pitch: base, roll: 5)
        let left = try #require(cal.sourceVanishingPoint(SIMD3(1, 0.3, 0)))
        let right = try #require(cal.sourceVanishingPoint(SIMD3(1, -0.3, 0)))
        #expect(left.y - right.y > 1)
        #expect(left.x < right.x) // (1, 0.3, 0) points left
    }

    @Test func pitchProbeMagnitude() throws {
        // At zero roll and yaw the row of a ground point d ahead of the camera is
        // cy + fy · tan(pitch + atan(h/d)): the probe's shift written out.
        for pitch in [-3.659, 1.341] {
            let p = try #require(try Self.calibration(pitch: pitch).sourcePoint(SIMD3(40, 0, 0)))
            let expected = 437 + 910 * tan(rad(pitch) + atan(1.2 / (40 - 1.65)))
            #expect(abs(p.y - expected) < 1e-9)
        }
    }

    // MARK: Lateral offset

    @Test func cameraLeftOfCentrelineSeesCentrelineShiftedRight() throws {
        let point = SIMD3<Double>(20, 0, 0)
        let centred = try #require(try Self.calibration().sourcePoint(point))
        let left = try #require(try Self.calibration(lateral: 0.5).sourcePoint(point))
        #expect(left.x - centred.x > 1)
        // Expected shift at zero yaw and roll: fx · 0.5 / depth, depth along the optical axis.
        let r = Naive.rotation(pitch: rad(-3.659), roll: 0, yaw: 0)
        let depth = Naive.apply(r, [20 - 1.65, 0, -1.2])[0]
        #expect(abs((left.x - centred.x) - 910 * 0.5 / depth) < 1e-9)
    }

    @Test(arguments: [0.5, -0.8, 1.2])
    func lateralOffsetTranslatesOrigin(offset: Double) throws {
        // Projecting p with offset o equals projecting p − (0, o, 0) with offset 0.
        let moved = try Self.calibration(roll: 3, yaw: -2, lateral: offset)
        let centred = try Self.calibration(roll: 3, yaw: -2)
        for p in [SIMD3<Double>(20, 0, 0), SIMD3(8, 3, 0.5), SIMD3(35, -6, 1.5)] {
            let a = try #require(moved.sourcePoint(p))
            let b = try #require(centred.sourcePoint(p - SIMD3(0, offset, 0)))
            #expect(abs(a.x - b.x) < 1e-9 && abs(a.y - b.y) < 1e-9)
        }
        // The same through the grid projection: vehicle y = −gx, so the grid point moves by +o in gx.
        for g in [SIMD3<Double>(0, 10, -2.5), SIMD3(-4.5, 20, -1), SIMD3(6, 35, -2.5)] {
            let a = moved.projection.apply(g), b = centred.projection.apply(g + SIMD3(offset, 0, 0))
            #expect(abs(a.x / a.z - b.x / b.z) < 1e-9 && abs(a.y / a.z - b.y / b.z) < 1e-9)
        }
    }

    // MARK: Source projection details

    @Test func pointsBehindCameraHaveNoPixel() throws {
        let cal = try Self.calibration()
        #expect(cal.sourcePoint(SIMD3(1.65, 0, 1.2)) == nil) // the camera centre itself
        #expect(cal.sourcePoint(SIMD3(-10, 0, 0)) == nil)
        #expect(cal.sourceVanishingPoint(SIMD3(-1, 0, 0)) == nil)
        // Nose-down by 3.659°: straight up is behind the image plane (depth sin(pitch) < 0),
        // straight down in front of it.
        #expect(cal.sourceVanishingPoint(SIMD3(0, 0, 1)) == nil)
        #expect(cal.sourceVanishingPoint(SIMD3(0, 0, -1)) != nil)
    }

    @Test func groundGuides() throws {
        let cal = try Self.calibration(roll: 4)
        let guides = cal.groundGuides()
        #expect(guides.rungs.map(\.range) == [10, 20, 30, 40])
        for rung in guides.rungs {
            let left = try #require(cal.sourcePoint(SIMD3(rung.range, 6, 0)))
            let right = try #require(cal.sourcePoint(SIMD3(rung.range, -6, 0)))
            #expect(rung.segment.start == left && rung.segment.end == right)
            #expect(left.x < right.x)
        }
        // Horizon: centred on the forward vanishing point, slope −tan(roll) for fx = fy, zero yaw.
        let horizon = try #require(guides.horizon)
        let vp = try #require(cal.sourceVanishingPoint(SIMD3(1, 0, 0)))
        let mid = (horizon.start + horizon.end) / 2
        #expect(abs(mid.x - vp.x) < 1e-9 && abs(mid.y - vp.y) < 1e-9)
        let slope = (horizon.end.y - horizon.start.y) / (horizon.end.x - horizon.start.x)
        #expect(abs(slope - -tan(rad(4))) < 1e-9)
        #expect(horizon.start.x < horizon.end.x)
        let length = ((horizon.end - horizon.start) * (horizon.end - horizon.start)).sum().squareRoot()
        #expect(abs(length - 4 * 1164) < 1e-6)
    }
}
