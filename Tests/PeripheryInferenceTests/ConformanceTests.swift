import Foundation
import Testing

@testable import PeripheryCore
@testable import PeripheryGeometry
@testable import PeripheryInference

/// The reference self-check items against the golden vectors copied from the reference
/// (`Sources/PeripheryInference/Resources/Conformance`), with the reference tolerances:
/// geometry 1e-4, decode 2e-4 on every field, LUT exact.
@Suite struct ConformanceTests {
    let vectors: SelfCheckVectors
    let calibration: CameraCalibration

    init() throws {
        vectors = try SelfCheckVectors.bundled()
        calibration = CameraCalibration(vectors.setup, targetFocal: vectors.trainedFocal)
    }

    @Test func voxelPointsMatchGolden() {
        #expect(vectors.points.count == 3 * 6560)
        for (i, p) in VoxelGrid.points.enumerated() {
            for axis in 0..<3 { #expect(abs(p[axis] - Double(vectors.points[3 * i + axis])) < 1e-4) }
        }
    }

    @Test func anchorsMatchGolden() {
        var worst = 0.0
        for (i, anchor) in AnchorGrid.anchors.enumerated() {
            for (k, value) in anchor.row.enumerated() { worst = max(worst, abs(value - Double(vectors.anchors[7 * i + k]))) }
        }
        // The golden is float32; the reference README quotes a max difference of 3.8e-6 vs double.
        #expect(worst < 1e-5)
    }

    @Test func cropMatchesGolden() {
        let crop: [Int] = [calibration.crop.x, calibration.crop.y, calibration.crop.width, calibration.crop.height]
        #expect(crop == [170, 231, 824, 412])
        #expect(vectors.crop == [170, 231, 824, 412])
    }

    @Test func projectionMatchesGolden() {
        for r in 0..<3 {
            for c in 0..<4 { #expect(abs(calibration.projection[r, c] - vectors.projection[r][c]) < 1e-4) }
        }
    }

    @Test func lutMatchesGolden() {
        let lut = ProjectionLUT(calibration: calibration)
        #expect(lut.visibility == vectors.lut.visibility)
        let indexMismatches = (0..<lut.count).filter { vectors.lut.visibility[$0] == 1 && lut.indices[$0] != vectors.lut.indices[$0] }
        #expect(indexMismatches.isEmpty)
        #expect(lut.visibleCount == 4393)
        #expect(abs(lut.visibleFraction - 0.669665) < 1e-6)
    }

    @Test func decodeMatchesAll63GoldenDetections() throws {
        let detections = DetectionDecoder.decode(vectors.head, settings: DecodeSettings(scoreThreshold: 0.5, nmsRadius: 2.0))
        try #require(detections.count == 63)
        try #require(vectors.detections.count == 63)
        for (d, e) in zip(detections, vectors.detections) {
            #expect(d.label == e.label)
            let fields: [(Double, Double)] = [
                (Double(d.score), e.score), (d.box.x, e.box.x), (d.box.y, e.box.y), (d.box.z, e.box.z),
                (d.box.length, e.box.length), (d.box.width, e.box.width), (d.box.height, e.box.height), (d.box.yaw, e.box.yaw),
            ]
            for (got, expected) in fields { #expect(abs(got - expected) < 2e-4) }
        }
        // Spot values quoted in reference, `docs/reference/contract.md#112-the-manifest`.
        #expect(abs(detections[0].box.x - 12.35) < 2e-4 && abs(detections[0].box.yaw - 0.36405) < 2e-4)
        #expect(abs(Double(detections[62].score) - 0.503066) < 2e-4 && detections[62].label == 1)
    }

    @Test func selfCheckPassesEveryItem() {
        let results = SelfCheck.run(vectors)
        #expect(results.map(\.number) == Array(1...8))
        for r in results { #expect(r.passed, "\(r.number). \(r.name): \(r.detail)") }
        // Items 7–8 compare our geometry with itself, not with a golden; they must say so.
        #expect(results.map(\.basis) == Array(repeating: .golden, count: 6) + [.consistency, .consistency])
    }

    /// The self-check must be able to fail: a head with one winner moved changes item 6.
    @Test func selfCheckDetectsAWrongDecode() throws {
        var classes = vectors.head.classes
        for i in classes.indices { classes[i] = -20 }
        let head = try HeadOutputs(classes: classes, boxes: vectors.head.boxes, directions: vectors.head.directions)
        #expect(DetectionDecoder.decode(head).isEmpty)
        var altered = vectors
        altered.head = head
        let mismatched = SelfCheck.run(altered)
        #expect(mismatched.first { $0.number == 6 }?.passed == false)
    }
}
