import Foundation
import PeripheryTestSupport
import Testing

@testable import PeripheryInference

/// The provenance read from a weights file's metadata: what the CLI's notes, the sidecar's
/// checkpoint and the live view's metadata are made from.
struct WeightsProvenanceTests {
    @Test func metadataKeysGiveTheTraining() {
        #expect(WeightsProvenance(metadata: ["trained": "false", "training_data": "synthetic"]).training == .untrained)
        #expect(WeightsProvenance(metadata: ["trained": "true", "training_data": "synthetic"]).training == .synthetic)
        #expect(WeightsProvenance(metadata: ["trained": "true"]).training == .trained)
        let silent = WeightsProvenance(metadata: [:])
        #expect(silent.training == .trained && silent.origin == nil)
        #expect(WeightsProvenance(metadata: ["provenance": "a checkpoint"]).origin == "a checkpoint")
    }

    /// The bundled files say what Weights/README.md says they are.
    @Test func bundledWeights() throws {
        func provenance(_ file: String) throws -> WeightsProvenance {
            try Safety40Weights(path: repositoryPath("Weights/\(file).safetensors")).provenance
        }
        #expect(try provenance("safety40-random-init").training == .untrained)
        let demo = try provenance("safety40-synthetic")
        #expect(demo.training == .synthetic && demo.origin?.contains("tools/train.py") == true)
    }
}
