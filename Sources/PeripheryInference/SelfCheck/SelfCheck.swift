import Foundation
import PeripheryCore
import PeripheryGeometry

/// The outcome of one self-check item.
package struct SelfCheckResult: Sendable, Hashable {
    /// Item number in the reference's list (1–8).
    package var number: Int
    /// Short name.
    package var name: String
    /// Whether the measured error is within tolerance.
    package var passed: Bool
    /// The measured error and the tolerance, in words.
    package var detail: String
    /// What the item compares with.
    package var basis: SelfCheckBasis = .golden
}

/// What a self-check item is measured against.
package enum SelfCheckBasis: String, Sendable, Hashable {
    /// The reference's golden vectors: agreement with the reference itself.
    case golden
    /// The project's own geometry run forward and back (signs, orthonormality, round trips): it
    /// catches a broken inverse or a flipped sign, not a difference from the reference.
    case consistency
}

/// The reference self-check, items 1–8: voxel points, anchors, crop, projection, LUT and decode
/// against the golden vectors; mount-axis signs and the focus-of-expansion round trip as
/// consistency checks of the project's own geometry (`SelfCheckBasis`).
package enum SelfCheck {
    /// Tolerance of geometric quantities (points, anchors, projection).
    static let geometryTolerance = 1e-4
    /// Tolerance of every decoded field.
    static let decodeTolerance = 2e-4
    /// Tolerance of the FoE round trip, degrees.
    static let roundTripToleranceDegrees = 1e-6

    /// Runs every item against the vectors.
    package static func run(_ vectors: SelfCheckVectors) -> [SelfCheckResult] {
        let calibration = CameraCalibration(vectors.setup, targetFocal: vectors.trainedFocal)
        return [
            checkPoints(vectors), checkAnchors(vectors), checkCrop(vectors, calibration),
            checkProjection(vectors, calibration), checkLUT(vectors, calibration), checkDecode(vectors),
            checkMountAxes(vectors.setup.intrinsics), checkFocusOfExpansion(vectors.setup.intrinsics),
        ]
    }

    static func checkPoints(_ v: SelfCheckVectors) -> SelfCheckResult {
        var worst = 0.0
        for (i, p) in VoxelGrid.points.enumerated() {
            for axis in 0..<3 { worst = max(worst, abs(p[axis] - Double(v.points[3 * i + axis]))) }
        }
        return tolerance(1, "voxel points", error: worst, limit: geometryTolerance, unit: "m")
    }

    static func checkAnchors(_ v: SelfCheckVectors) -> SelfCheckResult {
        var worst = 0.0
        for (i, anchor) in AnchorGrid.anchors.enumerated() {
            for (k, value) in anchor.row.enumerated() { worst = max(worst, abs(value - Double(v.anchors[7 * i + k]))) }
        }
        return tolerance(2, "anchors", error: worst, limit: geometryTolerance, unit: "m")
    }

    static func checkCrop(_ v: SelfCheckVectors, _ c: CameraCalibration) -> SelfCheckResult {
        let got = [c.crop.x, c.crop.y, c.crop.width, c.crop.height]
        return SelfCheckResult(
            number: 3, name: "focal-matched crop", passed: got == v.crop,
            detail: """
                \(got[2])×\(got[3]) at (\(got[0]), \(got[1])), \
                expected \(v.crop[2])×\(v.crop[3]) at (\(v.crop[0]), \(v.crop[1])); achieved focal \(format(c.crop.achievedFocal, 3))
                """)
    }

    static func checkProjection(_ v: SelfCheckVectors, _ c: CameraCalibration) -> SelfCheckResult {
        var worst = Double.infinity
        if v.projection.count == 3, v.projection.allSatisfy({ $0.count == 4 }) {
            worst = 0
            for r in 0..<3 { for k in 0..<4 { worst = max(worst, abs(c.projection[r, k] - v.projection[r][k])) } }
        }
        return tolerance(4, "projection", error: worst, limit: geometryTolerance, unit: "")
    }

    static func checkLUT(_ v: SelfCheckVectors, _ c: CameraCalibration) -> SelfCheckResult {
        let lut = ProjectionLUT(calibration: c)
        var visibilityMismatches = 0, indexMismatches = 0
        for i in 0..<min(lut.count, v.lut.count) {
            if lut.visibility[i] != v.lut.visibility[i] { visibilityMismatches += 1 }
            if v.lut.visibility[i] != 0 && lut.indices[i] != v.lut.indices[i] { indexMismatches += 1 }
        }
        let passed =
            lut.count == v.lut.count && visibilityMismatches == 0 && indexMismatches == 0
            && lut.visibleCount == v.visibleVoxels
        return SelfCheckResult(
            number: 5, name: "projection LUT", passed: passed,
            detail: """
                \(visibilityMismatches) visibility / \(indexMismatches) index mismatches, \
                \(lut.visibleCount)/\(lut.count) visible (\(format(lut.visibleFraction, 6))), expected \(v.visibleVoxels)
                """)
    }

    static func checkDecode(_ v: SelfCheckVectors) -> SelfCheckResult {
        let got = DetectionDecoder.decode(v.head, settings: v.decodeSettings)
        let labelsMatch = got.map(\.label) == v.detections.map(\.label)
        var worst = got.count == v.detections.count ? 0.0 : .infinity
        for (d, e) in zip(got, v.detections) {
            let pairs = [
                (Double(d.score), e.score), (d.box.x, e.box.x), (d.box.y, e.box.y), (d.box.z, e.box.z),
                (d.box.length, e.box.length), (d.box.width, e.box.width), (d.box.height, e.box.height), (d.box.yaw, e.box.yaw),
            ]
            for (a, b) in pairs { worst = max(worst, abs(a - b)) }
        }
        return SelfCheckResult(
            number: 6, name: "decode", passed: labelsMatch && worst < decodeTolerance,
            detail: """
                \(got.count) detections (expected \(v.detections.count)), labels \(labelsMatch ? "equal" : "differ"), \
                max field error \(format(worst)) (tol \(format(decodeTolerance)))
                """)
    }

    static func checkMountAxes(_ intrinsics: CameraIntrinsics) -> SelfCheckResult {
        let base = MountPose(pitch: 0, height: 1.2, forwardOfOrigin: 1.65)
        // Collapse: with zero roll and yaw, R is the Python reference's Ry(pitch), written out here.
        let p = -3.659 * Double.pi / 180
        let ry = Matrix3(rows: SIMD3(cos(p), 0, sin(p)), SIMD3(0, 1, 0), SIMD3(-sin(p), 0, cos(p)))
        var pose = base
        pose.pitch = p
        let collapse = maxDifference(pose.vehicleToSensorRotation, ry)

        let r = MountPose(pitch: 0.07, roll: -0.05, yaw: 0.03, height: 1.2, forwardOfOrigin: 1.65).vehicleToSensorRotation
        let orthonormality = maxDifference(r * r.transposed, .identity)
        let determinant = abs(r.determinant - 1)

        func image(_ change: (inout MountPose) -> Void) -> CameraCalibration {
            var changed = base
            change(&changed)
            return CameraCalibration(intrinsics: intrinsics, pose: changed)
        }
        let level = image { _ in }
        let ground = SIMD3(40.0, 0, 0)
        let five = 5 * Double.pi / 180
        let pitchMove = difference(image { $0.pitch = five }.sourcePoint(ground), level.sourcePoint(ground), axis: 1)
        let yawMove = difference(image { $0.yaw = five }.sourcePoint(ground), level.sourcePoint(ground), axis: 0)
        let rolled = image { $0.roll = five }
        let rollMove = difference(
            rolled.sourceVanishingPoint(SIMD3(1, 0.3, 0)), rolled.sourceVanishingPoint(SIMD3(1, -0.3, 0)), axis: 1)

        let passed =
            collapse < geometryTolerance && orthonormality < 1e-12 && determinant < 1e-12
            && pitchMove > 1 && yawMove > 1 && rollMove > 1
        return SelfCheckResult(
            number: 7, name: "mount axes", passed: passed,
            detail: """
                Ry collapse \(format(collapse)), RRᵀ−I \(format(orthonormality)), |det−1| \(format(determinant)); \
                pitch +5° moves ground point down \(format(pitchMove, 1)) px, yaw +5° right \(format(yawMove, 1)) px, \
                roll +5° left horizon down \(format(rollMove, 1)) px
                """,
            basis: .consistency)
    }

    /// The round-trip cases (pitch, roll, yaw) in degrees of the reference.
    static let focusOfExpansionCases: [(pitch: Double, roll: Double, yaw: Double)] = [
        (0, 0, 0), (-3.659, 0, 0), (2.5, 0, 0), (-3, 6, 0), (-3, 0, 4), (1.5, -8, -5), (-6, 12, 3.5),
    ]

    static func checkFocusOfExpansion(_ intrinsics: CameraIntrinsics) -> SelfCheckResult {
        var worst = 0.0
        for c in focusOfExpansionCases {
            let pose = MountPose(pitchDegrees: c.pitch, rollDegrees: c.roll, yawDegrees: c.yaw, height: 1.2, forwardOfOrigin: 1.65)
            guard let foe = CameraCalibration(intrinsics: intrinsics, pose: pose).sourceVanishingPoint(SIMD3(1, 0, 0)) else {
                worst = .infinity
                continue
            }
            let angles = MountAngles(focusOfExpansion: foe, intrinsics: intrinsics, roll: pose.roll)
            worst = max(worst, abs(angles.pitch * 180 / .pi - c.pitch), abs(angles.yaw * 180 / .pi - c.yaw))
        }
        return tolerance(
            8, "focus of expansion round trip", error: worst, limit: roundTripToleranceDegrees, unit: "°", basis: .consistency)
    }

    static func tolerance(
        _ number: Int, _ name: String, error: Double, limit: Double, unit: String, basis: SelfCheckBasis = .golden
    ) -> SelfCheckResult {
        SelfCheckResult(
            number: number, name: name, passed: error < limit,
            detail: "max |Δ| \(format(error))\(unit.isEmpty ? "" : " " + unit) (tol \(format(limit))\(unit.isEmpty ? "" : " " + unit))",
            basis: basis)
    }

    static func maxDifference(_ a: Matrix3, _ b: Matrix3) -> Double {
        var worst = 0.0
        for r in 0..<3 { for c in 0..<3 { worst = max(worst, abs(a[r, c] - b[r, c])) } }
        return worst
    }

    /// `a[axis] − b[axis]`, or −∞ if either point is missing (so the check fails).
    static func difference(_ a: SIMD2<Double>?, _ b: SIMD2<Double>?, axis: Int) -> Double {
        guard let a, let b else { return -.infinity }
        return a[axis] - b[axis]
    }

    static func format(_ x: Double, _ decimals: Int? = nil) -> String {
        guard x.isFinite else { return "\(x)" }
        if let decimals { return String(format: "%.\(decimals)f", x) }
        return String(format: "%.2e", x)
    }
}
