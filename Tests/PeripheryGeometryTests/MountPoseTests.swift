import Foundation
import Testing

@testable import PeripheryCore
@testable import PeripheryGeometry

/// MountPose conventions of reference, `docs/reference/contract.md#41-mount-pose`, `#42-vehicle-to-sensor-rotation`.
struct MountPoseTests {
    @Test func fallbackIsCommaRig() {
        let p = MountPose.fallback
        #expect(abs(deg(p.pitch) - -3.659) < 1e-12)
        #expect(p.roll == 0 && p.yaw == 0)
        #expect(p.height == 1.20 && p.forwardOfOrigin == 1.65 && p.lateralOffset == 0)
        #expect(p.isPlausible)
    }

    @Test func degreeInitialiserConverts() {
        let p = MountPose(pitchDegrees: 2, rollDegrees: -3, yawDegrees: 4, height: 1.3, forwardOfOrigin: 1.1, lateralOffset: 0.2)
        #expect(abs(p.pitch - 2 * .pi / 180) < 1e-15)
        #expect(abs(p.roll - -3 * .pi / 180) < 1e-15)
        #expect(abs(p.yaw - 4 * .pi / 180) < 1e-15)
        #expect(p.cameraCentre == SIMD3(1.1, 0.2, 1.3))
    }

    /// R against `Rx(−roll)·Ry(pitch)·Rz(−yaw)` multiplied out naively.
    @Test(
        arguments: [
            (0.0, 0.0, 0.0), (-3.659, 0.0, 0.0), (4.0, 0.0, 0.0), (0.07 * 180 / .pi, -0.05 * 180 / .pi, 0.03 * 180 / .pi),
            (-6.0, 12.0, 3.5), (1.5, -8.0, -5.0), (20.0, 20.0, -20.0),
        ] as [(Double, Double, Double)])
    func rotationMatchesNaiveProduct(pitch: Double, roll: Double, yaw: Double) {
        let pose = MountPose(pitchDegrees: pitch, rollDegrees: roll, yawDegrees: yaw, height: 1.2, forwardOfOrigin: 1.65)
        let expected = Naive.rotation(pitch: rad(pitch), roll: rad(roll), yaw: rad(yaw))
        let got = pose.vehicleToSensorRotation.rowMajor
        var worst = 0.0
        for i in 0..<3 { for j in 0..<3 { worst = max(worst, abs(got[i][j] - expected[i][j])) } }
        #expect(worst < 1e-15)
    }

    @Test(arguments: [-0.3, -0.0638, 0.0, 0.1, 0.4])
    func zeroRollYawIsPythonRy(pitch: Double) {
        // At roll = yaw = 0, R = Ry(pitch) = [[cos p, 0, sin p], [0, 1, 0], [−sin p, 0, cos p]].
        let r = MountPose(pitch: pitch, height: 1.2, forwardOfOrigin: 1.65).vehicleToSensorRotation.rowMajor
        let expected = [[cos(pitch), 0, sin(pitch)], [0, 1, 0], [-sin(pitch), 0, cos(pitch)]]
        for i in 0..<3 { for j in 0..<3 { #expect(abs(r[i][j] - expected[i][j]) < 1e-15) } }
    }

    @Test func selfCheckPoseIsOrthonormal() {
        // Self-check item 7: (0.07, −0.05, 0.03) rad, orthonormal and det +1 within 1e-12.
        let r = MountPose(pitch: 0.07, roll: -0.05, yaw: 0.03, height: 1.2, forwardOfOrigin: 1.65).vehicleToSensorRotation
        let rrt = (r * r.transposed).rowMajor
        for i in 0..<3 { for j in 0..<3 { #expect(abs(rrt[i][j] - (i == j ? 1 : 0)) < 1e-12) } }
        #expect(abs(r.determinant - 1) < 1e-12)
    }

    @Test func sensorFromVehicleMapsCameraCentreToOrigin() {
        let pose = MountPose(pitchDegrees: -4, rollDegrees: 3, yawDegrees: 2, height: 1.4, forwardOfOrigin: 1.9, lateralOffset: 0.3)
        let t = pose.sensorFromVehicle
        let origin = t.apply(pose.cameraCentre)
        #expect(abs(origin.x) < 1e-15 && abs(origin.y) < 1e-15 && abs(origin.z) < 1e-15)
        // A point 10 m ahead of a level camera lies 10 m along sensor +x.
        let level = MountPose(pitch: 0, height: 1.2, forwardOfOrigin: 1.65).sensorFromVehicle
        let ahead = level.apply(SIMD3(11.65, 0, 1.2))
        #expect(abs(ahead.x - 10) < 1e-12 && abs(ahead.y) < 1e-12 && abs(ahead.z) < 1e-12)
    }

    @Test func noseDownCameraSeesGroundAhead() {
        // Python: a camera looking DOWN by d has vehicle → sensor Ry(−d), d = −pitch. The road point
        // on the camera's optical axis, at range h/tan d, maps onto sensor +x.
        let d = rad(5), h = 1.2
        let pose = MountPose(pitch: -d, height: h, forwardOfOrigin: 0)
        let onAxis = pose.sensorFromVehicle.apply(SIMD3(h / tan(d), 0, 0))
        #expect(abs(onAxis.y) < 1e-12 && abs(onAxis.z) < 1e-12)
        #expect(abs(onAxis.x - h / sin(d)) < 1e-12)
    }

    // MARK: Plausibility (reference, `docs/reference/contract.md#41-mount-pose`)

    @Test(arguments: [
        // (pitch°, roll°, yaw°, height, forward, lateral, field or nil)
        (25.0, 0.0, 0.0, 1.2, 1.65, 0.0, String?.none),
        (-25.0, 25.0, -25.0, 1.2, 1.65, 0.0, nil),
        (25.001, 0.0, 0.0, 1.2, 1.65, 0.0, "pitch_deg"),
        (0.0, -25.001, 0.0, 1.2, 1.65, 0.0, "roll_deg"),
        (0.0, 0.0, 30.0, 1.2, 1.65, 0.0, "yaw_deg"),
        (0.0, 0.0, 0.0, 0.3, 1.65, 0.0, "height_m"),
        (0.0, 0.0, 0.0, 0.3001, 1.65, 0.0, nil),
        (0.0, 0.0, 0.0, 3.0, 1.65, 0.0, "height_m"),
        (0.0, 0.0, 0.0, 2.999, 1.65, 0.0, nil),
        (0.0, 0.0, 0.0, 1.2, -2.0, 0.0, "forward_of_origin_m"),
        (0.0, 0.0, 0.0, 1.2, 6.0, 0.0, "forward_of_origin_m"),
        (0.0, 0.0, 0.0, 1.2, 5.999, 0.0, nil),
        (0.0, 0.0, 0.0, 1.2, 1.65, 1.3, nil),
        (0.0, 0.0, 0.0, 1.2, 1.65, -1.31, "lateral_offset_m"),
        (40.0, 0.0, 0.0, 5.0, 1.65, 0.0, "pitch_deg"), // first failing field is named
    ])
    func plausibilityLimits(
        pitch: Double, roll: Double, yaw: Double, height: Double, forward: Double,
        lateral: Double, field: String?
    ) {
        let pose = MountPose(
            pitchDegrees: pitch, rollDegrees: roll, yawDegrees: yaw, height: height,
            forwardOfOrigin: forward, lateralOffset: lateral)
        #expect(pose.isPlausible == (field == nil))
        do {
            try pose.validate()
            #expect(field == nil)
        } catch {
            #expect(error.field == field)
            if case .outOfRange = error {} else { Issue.record("expected outOfRange, got \(error)") }
        }
    }

    @Test func nonFiniteIsNamed() {
        let pose = MountPose(pitch: 0, height: .nan, forwardOfOrigin: 1.65)
        #expect(throws: CalibrationError.nonFinite(field: "height_m")) { try pose.validate() }
    }
}
