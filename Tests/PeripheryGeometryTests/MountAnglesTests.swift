import Foundation
import PeripheryTestSupport
import Testing

@testable import PeripheryCore
@testable import PeripheryGeometry

/// `mountAngles`, the inverse of `sourceVanishingPoint((1, 0, 0))` (calibration-from-motion §9.1).
struct MountAnglesTests {
    /// The round-trip cases of §9.1, (pitch, roll, yaw) in degrees, K 910/582/437, 1164 × 874.
    @Test(arguments: [
        (0.0, 0.0, 0.0), (-3.659, 0.0, 0.0), (2.5, 0.0, 0.0), (-3.0, 6.0, 0.0), (-3.0, 0.0, 4.0),
        (1.5, -8.0, -5.0), (-6.0, 12.0, 3.5),
    ])
    func focusOfExpansionRoundTrip(pitch: Double, roll: Double, yaw: Double) throws {
        let k = try commaIntrinsics()
        let cal = CameraCalibration(
            intrinsics: k,
            pose: MountPose(
                pitchDegrees: pitch, rollDegrees: roll, yawDegrees: yaw, height: 1.2,
                forwardOfOrigin: 1.65))
        let foe = try #require(cal.sourceVanishingPoint(SIMD3(1, 0, 0)))
        let angles = MountAngles(focusOfExpansion: foe, intrinsics: k, roll: rad(roll))
        #expect(abs(deg(angles.pitch) - pitch) < 1e-6)
        #expect(abs(deg(angles.yaw) - yaw) < 1e-6)
    }

    @Test func principalPointIsLevel() throws {
        let k = try commaIntrinsics()
        let a = MountAngles(focusOfExpansion: SIMD2(582, 437), intrinsics: k, roll: 0)
        #expect(abs(a.pitch) < 1e-15 && abs(a.yaw) < 1e-15)
    }

    @Test(arguments: [-5.0, 2.0, 9.0])
    func closedFormAtZeroRoll(angle: Double) throws {
        // At zero roll, v = cy + fy·tan(p) on the centre column means pitch p (nose-up puts the
        // horizon lower), and u = cx + fx·tan(y) on the centre row means yaw y (a camera turned
        // left sees straight ahead to the right).
        let k = try commaIntrinsics()
        let pitched = MountAngles(focusOfExpansion: SIMD2(582, 437 + 910 * tan(rad(angle))), intrinsics: k, roll: 0)
        #expect(abs(deg(pitched.pitch) - angle) < 1e-9 && abs(pitched.yaw) < 1e-12)
        let yawed = MountAngles(focusOfExpansion: SIMD2(582 + 910 * tan(rad(angle)), 437), intrinsics: k, roll: 0)
        #expect(abs(deg(yawed.yaw) - angle) < 1e-9 && abs(yawed.pitch) < 1e-12)
    }

    @Test func rollMatters() throws {
        // The same pixel read with the wrong roll gives different angles: roll is not ignored.
        let k = try commaIntrinsics()
        let foe = SIMD2<Double>(640, 400)
        let a = MountAngles(focusOfExpansion: foe, intrinsics: k, roll: 0)
        let b = MountAngles(focusOfExpansion: foe, intrinsics: k, roll: rad(10))
        #expect(abs(deg(a.pitch - b.pitch)) > 0.1 || abs(deg(a.yaw - b.yaw)) > 0.1)
    }
}
