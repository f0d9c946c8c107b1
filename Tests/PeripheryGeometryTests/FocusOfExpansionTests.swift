import Foundation
import PeripheryTestSupport
import Testing

@testable import PeripheryCore
@testable import PeripheryGeometry

/// A flow field of straight travel towards `foe` over scattered depths, rotated by `theta`
/// (radians about the camera's right, down and forward axes), on a 4 px grid of a 448 × 252 image.
private func field(
    foe: SIMD2<Double>, theta: SIMD3<Double>, outliers: Double, seed: UInt64, fx: Double = 400, cx: Double = 224, cy: Double = 126
) -> [FlowSample] {
    var rng = SeededRandom(seed: seed)
    var samples: [FlowSample] = []
    for row in stride(from: 2.0, to: 252, by: 4) {
        for column in stride(from: 2.0, to: 448, by: 4) {
            let p = SIMD2(column, row)
            if rng.uniform(0, 1) < outliers {
                samples.append(FlowSample(position: p, flow: SIMD2(rng.uniform(-6, 6), rng.uniform(-6, 6))))
                continue
            }
            // Translational flow leaves the FoE, scaled by inverse depth.
            var flow = (p - foe) * rng.uniform(0.02, 0.08)
            let x = p.x - cx, y = p.y - cy
            flow += SIMD2(
                theta.x * x * y / fx - theta.y * (fx + x * x / fx) + theta.z * y,
                theta.x * (fx + y * y / fx) - theta.y * x * y / fx - theta.z * x)
            samples.append(FlowSample(position: p, flow: flow))
        }
    }
    return samples
}

@Suite struct FocusOfExpansionTests {
    /// Exact fields, any FoE and rotation: de-rotation with the true rotation recovers the FoE.
    @Test(arguments: [
        (SIMD2(224.0, 126.0), SIMD3(0.0, 0.0, 0.0)), (SIMD2(250.0, 100.0), SIMD3(0.004, -0.006, 0.002)),
        (SIMD2(180.0, 160.0), SIMD3(-0.01, 0.008, -0.005)), (SIMD2(300.0, 90.0), SIMD3(0.002, 0.012, 0.01)),
    ])
    func recoversTheFocusAfterDerotation(foe: SIMD2<Double>, theta: SIMD3<Double>) throws {
        let samples = field(foe: foe, theta: theta, outliers: 0, seed: 1)
        let derotated = FocusOfExpansion.derotated(samples, rotation: theta, fx: 400, fy: 400, cx: 224, cy: 126)
        let estimate = try FocusOfExpansion().estimate(derotated, fx: 400, fy: 400, cx: 224, cy: 126).get()
        #expect(abs(estimate.point.x - foe.x) < 1e-6 && abs(estimate.point.y - foe.y) < 1e-6, "\(estimate)")
        #expect(estimate.expandingShare == 1)
    }

    /// With 40 % random vectors the estimate stays within a few tenths of a pixel.
    @Test(arguments: [UInt64(2), 3, 4, 5])
    func robustToFortyPercentOutliers(seed: UInt64) throws {
        let foe = SIMD2(236.0, 118.0)
        let samples = field(foe: foe, theta: .zero, outliers: 0.4, seed: seed)
        let estimate = try FocusOfExpansion().estimate(samples, fx: 400, fy: 400, cx: 224, cy: 126).get()
        #expect(abs(estimate.point.x - foe.x) < 0.3 && abs(estimate.point.y - foe.y) < 0.3, "\(estimate)")
    }

    /// Without de-rotation a yawing camera's FoE moves by about fx·θy: what the diagnostic shows.
    @Test func uncorrectedRotationShiftsTheFocus() throws {
        let foe = SIMD2(224.0, 126.0), theta = SIMD3(0.0, 0.004, 0.0)
        let raw = try FocusOfExpansion().estimate(field(foe: foe, theta: theta, outliers: 0, seed: 6), fx: 400, fy: 400, cx: 224, cy: 126).get()
        #expect(abs(raw.point.x - foe.x) > 5)
    }

    @Test func sameInputGivesTheSameEstimate() throws {
        let samples = field(foe: SIMD2(240, 130), theta: .zero, outliers: 0.3, seed: 7)
        let a = FocusOfExpansion().estimate(samples, fx: 400, fy: 400, cx: 224, cy: 126)
        let b = FocusOfExpansion().estimate(samples, fx: 400, fy: 400, cx: 224, cy: 126)
        #expect(try a.get() == b.get())
    }

    @Test func refusesContractingAndSparseFields() {
        let expanding = field(foe: SIMD2(224, 126), theta: .zero, outliers: 0, seed: 8)
        let contracting = expanding.map { FlowSample(position: $0.position, flow: -$0.flow) }
        let result = FocusOfExpansion().estimate(contracting, fx: 400, fy: 400, cx: 224, cy: 126)
        #expect(throws: FocusOfExpansion.Failure.contracting(expandingShare: 0)) { try result.get() }
        let sparse = Array(expanding.prefix(60))
        #expect(throws: FocusOfExpansion.Failure.tooFewVectors(count: 60, needed: 91)) {
            try FocusOfExpansion().estimate(sparse, fx: 400, fy: 400, cx: 224, cy: 126).get()
        }
    }
}

@Suite struct PitchWindowTests {
    @Test func medianSigmaAndStates() {
        var window = PitchWindow(profile: .driving)
        #expect(window.pitch == nil && !window.isReportable)
        for i in 0..<100 { window.add(pitch: Double(i), yaw: -Double(i), rawPitch: 2 * Double(i), inliers: i) }
        // 0…99: median 49.5, σ = (sorted[84] − sorted[16]) / 2 = 34.
        #expect(window.pitch == 49.5 && window.yaw == -49.5 && window.pitchWithoutDerotation == 99)
        #expect(window.pitchSigma == 34)
        #expect(window.isReportable && !window.isConverged)
        for _ in 0..<20 { window.reject() }
        #expect(abs(window.acceptRate - 40.0 / 60.0) < 1e-12)
        for i in 0..<400 { window.add(pitch: 1000 + Double(i), yaw: 0, rawPitch: 0, inliers: 50) }
        #expect(window.samples == 400 && window.isConverged && window.pitch == 1199.5)
        #expect(window.medianInliers == 50)
    }

    @Test func sigmaNeedsEightPairsAndHandheldNeverApplies() {
        var window = PitchWindow(profile: .handheld)
        for i in 0..<7 { window.add(pitch: Double(i), yaw: 0, rawPitch: 0, inliers: 40) }
        #expect(window.pitchSigma == 0)
        for i in 0..<200 { window.add(pitch: Double(i), yaw: 0, rawPitch: 0, inliers: 40) }
        #expect(window.samples == 60 && window.isReportable && !window.isConverged)
    }
}

/// A smooth, textured grey image: a sum of sinusoids at several scales, sampled through `warp`
/// (which maps an output pixel to the texture coordinate it shows).
private func texture(width: Int = 448, height: Int = 252, warp: (SIMD2<Double>) -> SIMD2<Double>) -> GreyImage {
    var image = GreyImage(width: width, height: height)
    for y in 0..<height {
        for x in 0..<width {
            // Sampled at the pixel centre, in the camera model's image coordinates.
            let p = warp(SIMD2(Double(x) + 0.5, Double(y) + 0.5))
            var v = 128.0
            for (k, f) in [(0.9, 0.11), (1.7, 0.23), (2.3, 0.05), (0.4, 0.41)] as [(Double, Double)] {
                v += 22 * sin(f * p.x + k) * cos(f * 0.8 * p.y - k)
            }
            image.pixels[y * width + x] = Float(v)
        }
    }
    return image
}

@Suite struct SparseOpticalFlowTests {
    /// A sub-pixel translation is recovered at every kept grid point.
    @Test(arguments: [SIMD2(1.7, -0.6), SIMD2(-3.2, 2.4), SIMD2(6.5, 0.3)])
    func recoversTranslations(shift: SIMD2<Double>) {
        let a = GreyPyramid(texture { $0 }), b = GreyPyramid(texture { $0 - shift })
        let samples = SparseOpticalFlow().flow(from: a, to: b)
        #expect(samples.count > 3000)
        // Bilinear resampling of the finest sinusoid (15 px period) bounds the accuracy.
        let errors = samples.map { s in ((s.flow - shift) * (s.flow - shift)).sum().squareRoot() }.sorted()
        #expect(
            errors[errors.count / 2] < 0.03 && errors[errors.count - 1] < 0.12,
            "median \(errors[errors.count / 2]) px, worst \(errors[errors.count - 1]) px")
    }

    /// A zoom about a point is an expanding field whose focus the estimator finds, in the image
    /// coordinates of the camera model (pixel centres at +0.5).
    @Test func zoomGivesItsFocusOfExpansion() throws {
        let focus = SIMD2(240.0, 120.0)
        let a = GreyPyramid(texture { $0 }), b = GreyPyramid(texture { focus + ($0 - focus) / 1.03 })
        let samples = SparseOpticalFlow().flow(from: a, to: b)
        let estimate = try FocusOfExpansion().estimate(samples, fx: 400, fy: 400, cx: 224, cy: 126).get()
        // Within a fifth of a pixel: a half-pixel slip of the coordinate convention would fail.
        #expect(abs(estimate.point.x - focus.x) < 0.2 && abs(estimate.point.y - focus.y) < 0.2, "\(estimate)")
    }

    /// Unrelated frames leave almost nothing through the forward–backward check; flat ones nothing.
    @Test func rejectsWhatItCannotTrack() {
        let a = GreyPyramid(texture { $0 })
        let b = GreyPyramid(texture { SIMD2($0.y * 1.7 + 11, $0.x * 0.6 - 5) })
        #expect(SparseOpticalFlow().flow(from: a, to: b).count < 100)
        let flat = GreyPyramid(GreyImage(width: 448, height: 252))
        #expect(SparseOpticalFlow().flow(from: flat, to: flat).isEmpty)
    }

    @Test func greyImageAveragesTheFootprint() throws {
        let image = try #require(RGBImage(width: 4, height: 2, pixels: [UInt8](repeating: 200, count: 12) + [UInt8](repeating: 0, count: 12)))
        let grey = GreyImage(image, width: 2)
        #expect(grey.height == 1 && abs(grey.pixels[0] - 100) < 1e-3 && abs(grey.pixels[1] - 100) < 1e-3)
    }
}

@Suite struct MountCalibratorTests {
    /// Frames 0 and 3 of a zoom about a known point (frames between are skipped by the stride) give
    /// the mount angles of that point; slow driving and fast turns are gated.
    @Test func zoomingFramesGiveTheAnglesOfTheirFocus() throws {
        let k = try CameraIntrinsics(fx: 400, fy: 400, cx: 224, cy: 126, width: 448, height: 252)
        let focus = SIMD2(236.0, 111.0)
        func rgb(_ grey: GreyImage) throws -> RGBImage {
            try #require(
                RGBImage(
                    width: grey.width, height: grey.height,
                    pixels: grey.pixels.flatMap { v in
                        [UInt8](repeating: UInt8(max(0, min(255, v.rounded()))), count: 3)
                    }))
        }
        let near = try rgb(texture { $0 }), far = try rgb(texture { focus + ($0 - focus) / 1.03 })
        let calibrator = MountCalibrator(intrinsics: k, roll: 0)
        let still = [GyroSample(t: 0, rate: .zero), GyroSample(t: 0.3, rate: .zero)]
        #expect(calibrator.add(frame: near, t: 0, speed: 15, gyro: still) == .skipped)
        #expect(calibrator.add(frame: near, t: 0.1, speed: 15, gyro: still) == .skipped)
        #expect(calibrator.add(frame: near, t: 0.2, speed: 15, gyro: still) == .skipped)
        guard case .accepted(let pitch, let yaw, let inliers) = calibrator.add(frame: far, t: 0.3, speed: 15, gyro: still) else {
            Issue.record("pair not accepted")
            return
        }
        let truth = MountAngles(focusOfExpansion: focus, intrinsics: k, roll: 0)
        // 0.05° is 0.35 px at f = 400: a half-pixel slip of the image coordinates would fail.
        #expect(
            abs(pitch - truth.pitch) < 0.05 * .pi / 180 && abs(yaw - truth.yaw) < 0.05 * .pi / 180,
            "pitch \((pitch - truth.pitch) * 180 / .pi)°, yaw \((yaw - truth.yaw) * 180 / .pi)°")
        #expect(inliers > 1000 && calibrator.window.samples == 1)
        let slow = MountCalibrator(intrinsics: k, roll: 0)
        #expect(slow.add(frame: near, t: 0, speed: 5, gyro: still) == .gated(.speed))
        let turning = MountCalibrator(intrinsics: k, roll: 0)
        let spin = [GyroSample(t: 0.15, rate: SIMD3(0.1, 0, 0))] // about device x: vehicle up for a level phone
        _ = turning.add(frame: near, t: 0, speed: 15, gyro: spin)
        for t in [0.1, 0.2] { _ = turning.add(frame: near, t: t, speed: 15, gyro: spin) }
        #expect(turning.add(frame: far, t: 0.3, speed: 15, gyro: spin) == .gated(.yawRate))
    }
}

@Suite struct GravityPoseTests {
    /// Gravity seen by a phone on a level road reads back the mount's pitch and roll.
    @Test(arguments: [(-3.659, 0.0), (2.0, 1.5), (-6.0, -2.0), (0.5, 12.0)])
    func gravityGivesMountPitchAndRoll(pitchDegrees: Double, rollDegrees: Double) {
        let pose = MountPose(pitchDegrees: pitchDegrees, rollDegrees: rollDegrees, yawDegrees: 1.0, height: 1.2, forwardOfOrigin: 1.5)
        var gravity = GravityPose()
        gravity.add(gravity: DeviceAxes.fromVehicle(pose) * SIMD3(0, 0, -1))
        #expect(abs((gravity.pitch ?? .nan) - pose.pitch) < 1e-9)
        #expect(abs((gravity.roll ?? .nan) - pose.roll) < 1e-9)
    }

    @Test func smoothsAndRefusesPortraitRoll() {
        var gravity = GravityPose()
        gravity.add(gravity: SIMD3(-1, 0, 0))
        gravity.add(gravity: SIMD3(-cos(0.1), 0, sin(0.1)))
        #expect(abs((gravity.pitch ?? .nan) - 0.02 * 0.1) < 1e-12)
        gravity.add(gravity: SIMD3(0, 1, 0))
        #expect(gravity.rollUnrecoverable && gravity.roll == 0)
        #expect(PoseProvenance.gravity.mayBeOverwritten(by: .estimated) && !PoseProvenance.manual.mayBeOverwritten(by: .gravity))
    }
}

@Suite struct GyroBiasTests {
    /// A drive of bounded pitching and a steady turn, read by a gyro with a constant bias: the
    /// estimate recovers the bias on every axis when the course gives the mean yaw rate, and on the
    /// horizontal axes (the vertical left alone) without one.
    @Test(arguments: [(-4.0, 1.5, 0.004), (2.0, -1.0, -0.01), (-1.0, 0.0, 0.0)])
    func recoversTheBiasOfABoundedDrive(pitchDegrees: Double, rollDegrees: Double, yawRate: Double) throws {
        let pose = MountPose(pitchDegrees: pitchDegrees, rollDegrees: rollDegrees, height: 1.3, forwardOfOrigin: 1.6)
        let device = DeviceAxes.fromVehicle(pose)
        let bias = SIMD3(0.0021, -0.0017, 0.0029)
        var estimator = GyroBias()
        var courses: [(t: Double, degrees: Double)] = []
        // 60 s at 100 Hz; the body pitches at 1.3 Hz (a whole number of periods is not needed).
        for i in 0...6000 {
            let t = Double(i) / 100
            let pitchRate = 0.004 * 2 * .pi * 1.3 * cos(2 * .pi * 1.3 * t)
            let rate = device * SIMD3(0, -pitchRate, yawRate) + bias
            estimator.add(t: t, rate: rate, gravity: device * SIMD3(0, 0, -1))
            if i % 100 == 0 {
                var compass = 350 - yawRate * t * 180 / .pi
                compass -= 360 * (compass / 360).rounded(.down)
                courses.append((t, compass))
            }
        }
        let meanYawRate = try #require(GyroBias.meanYawRate(courses: courses))
        #expect(abs(meanYawRate - yawRate) < 1e-9)
        let full = estimator.bias(meanYawRate: meanYawRate)
        #expect(((full - bias) * (full - bias)).sum().squareRoot() < 2e-5)
        // Without a course only the part of the bias across "up" is known.
        let up = device * SIMD3(0, 0, 1)
        let horizontal = bias - (bias * up).sum() * up
        let partial = estimator.bias(meanYawRate: nil)
        #expect(((partial - horizontal) * (partial - horizontal)).sum().squareRoot() < 2e-5)
    }

    @Test func shortOrEmptyDrivesReportNoBias() {
        var estimator = GyroBias()
        #expect(estimator.bias(meanYawRate: 0) == .zero)
        for i in 0..<100 { estimator.add(t: Double(i) / 100, rate: SIMD3(0.01, 0, 0), gravity: SIMD3(0, 0, -1)) }
        estimator.add(t: .nan, rate: SIMD3(1, 1, 1), gravity: SIMD3(0, 0, -1))
        #expect(estimator.samples == 100)
        #expect(estimator.bias(meanYawRate: 0) == .zero)
        #expect(GyroBias.meanYawRate(courses: [(0, 10)]) == nil)
    }
}

@Suite struct CourseYawTests {
    /// Course minus heading, wrapped across north, median over the fixes that pass the gates.
    @Test func medianOfGatedDifferencesAcrossNorth() throws {
        let fixes = [
            CourseYaw.Fix(course: 1.0, courseAccuracy: 2, speed: 12, heading: 359.5), // +1.5°
            CourseYaw.Fix(course: 359.8, courseAccuracy: 2, speed: 12, heading: 358.6), // +1.2°
            CourseYaw.Fix(course: 90.0, courseAccuracy: nil, speed: 12, heading: 88.0), // +2.0°
            CourseYaw.Fix(course: 90.0, courseAccuracy: 6, speed: 12, heading: 60.0), // course too inaccurate
            CourseYaw.Fix(course: 90.0, courseAccuracy: 2, speed: 4, heading: 60.0), // too slow
            CourseYaw.Fix(course: -1, courseAccuracy: 2, speed: 12, heading: 60.0), // unknown course
        ]
        let estimate = try #require(CourseYaw.estimate(fixes))
        #expect(estimate.fixes == 3)
        #expect(abs(estimate.yaw - 1.5 * .pi / 180) < 1e-12)
        #expect(CourseYaw.estimate(Array(fixes.suffix(3))) == nil)
    }
}
