import Foundation
import PeripheryTestSupport
import Testing

@testable import PeripheryCore
@testable import PeripheryGeometry
@testable import PeripheryInference

/// Whole-network parity with the independent PyTorch reference (`python/periphery/reference/safety40.py`) on the
/// committed weights: `Fixtures/safety40_parity.safetensors` holds the reference's image, features,
/// volume and head outputs (float32, from `tools/make_goldens.py`; the comma calibration LUT).
/// Tolerance: max|ours − ref| / max|ref| ≤ 1e-4 per tensor.
@Suite(.serialized) struct NetworkParityTests {
    static let fixturePath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/safety40_parity.safetensors").path
    static let weightsPath = repositoryPath("Weights/safety40-random-init.safetensors")

    static func relative(_ ours: [Float], _ reference: [Float]) -> Double {
        relativeError(ours, reference.map(Double.init))
    }

    @Test(arguments: [1, 2, 3])
    func matchesPyTorchReference(threads: Int) throws {
        let fixture = try SafetensorsFile(path: Self.fixturePath)
        let detector = try Detector(weights: try Safety40Weights(path: Self.weightsPath), threads: threads)
        let lut = ProjectionLUT(calibration: CameraCalibration(try SelfCheckVectors.bundled().setup))
        let (detections, _) = try detector.detect(image: try fixture.floats("image"), lut: lut)

        #expect(Self.relative(detector.features, try fixture.floats("features")) <= 1e-4)
        #expect(Self.relative(detector.volume, try fixture.floats("volume")) <= 1e-4)
        let head = detector.headOutputs
        #expect(Self.relative(head.classes, try fixture.floats("classes")) <= 1e-4)
        #expect(Self.relative(head.boxes, try fixture.floats("boxes")) <= 1e-4)
        #expect(Self.relative(head.directions, try fixture.floats("directions")) <= 1e-4)

        // Identical decoded detections from our head and from the reference head.
        let reference = DetectionDecoder.decode(try fixture.headOutputs())
        #expect(!reference.isEmpty)
        #expect(detections.map(\.candidate) == reference.map(\.candidate))
        #expect(detections.map(\.label) == reference.map(\.label))
        for (d, r) in zip(detections, reference) {
            #expect(abs(d.box.x - r.box.x) < 1e-3 && abs(d.box.y - r.box.y) < 1e-3 && abs(d.box.yaw - r.box.yaw) < 1e-3)
        }
    }

    @Test func rejectsWrongSizedInputs() throws {
        let detector = try Detector(weights: try Safety40Weights(path: Self.weightsPath), threads: 1)
        let lut = ProjectionLUT(calibration: CameraCalibration(try SelfCheckVectors.bundled().setup))
        #expect(throws: DetectorError.wrongImageSize(expected: 3 * 256 * 512, actual: 10)) {
            try detector.detect(image: [Float](repeating: 0, count: 10), lut: lut)
        }
    }
}
