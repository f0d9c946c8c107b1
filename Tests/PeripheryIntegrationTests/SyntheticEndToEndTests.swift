import Foundation
import PeripheryTestSupport
import Testing

@testable import PeripheryCore
@testable import PeripheryGeometry
@testable import PeripheryIO
@testable import PeripheryInference
@testable import PeripherySynthetic

/// The demo weights through the whole engine on three committed synthetic frames that no training
/// run saw (seed 777, frames 9, 12 and 22: 13 vehicles, 0–35 m), scored by the evaluation rule.
@Suite struct SyntheticEndToEndTests {
    static let frames = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/synthetic").path

    func evaluate(weights: String) throws -> DetectionReport {
        let dataset = SyntheticDataset(path: Self.frames)
        let engine = try PerceptionEngine(weights: try Safety40Weights(path: weights), threads: 2)
        var evaluation = DetectionEvaluation(matcher: DetectionMatcher(scoreThreshold: 0.6))
        for index in try dataset.indices() {
            let (image, setup, truth) = try dataset.read(index: index)
            engine.reset()
            let result = try engine.process(
                PerceptionFrame(
                    pixels: try FramePixels(image), timestamp: 0, intrinsics: setup.intrinsics, pose: setup.pose))
            evaluation.add(predictions: result.detections, truth: truth)
        }
        return evaluation.report
    }

    @Test func demoWeightsFindTheVehiclesWhereTheyAre() throws {
        let report = try evaluate(weights: repositoryPath("Weights/safety40-synthetic.safetensors"))
        #expect(report.frames == 3)
        #expect(report.recall >= 0.6, "\(report)")
        #expect(report.precision >= 0.6, "\(report)")
        #expect(try #require(report.medianCentreError) <= 0.8, "\(report)")
        #expect(try #require(report.medianYawErrorDegrees) <= 8, "\(report)")
    }

    /// The same frames through the untrained random initialisation find nothing right: the test
    /// above measures the training, not the frames.
    @Test func untrainedWeightsDoNot() throws {
        let report = try evaluate(weights: repositoryPath("Weights/safety40-random-init.safetensors"))
        #expect(report.recall < 0.3, "\(report)")
    }
}
