import Foundation
import Testing

@testable import PeripheryInference

/// Checkpoint tensors of the architecture as `(name, shape)`, unfolded (conv + BN) layout.
func checkpointTensors(foldedBatchNorm: Bool = false) -> [(String, [Int])] {
    var tensors: [(String, [Int])] = []
    for spec in Safety40Architecture.convolutions {
        let k = spec.kernelSize
        tensors.append((spec.conv + ".weight", [spec.outChannels, spec.inChannels, k, k]))
        if spec.hasBias || (foldedBatchNorm && spec.batchNorm != nil) { tensors.append((spec.conv + ".bias", [spec.outChannels])) }
        if let bn = spec.batchNorm, !foldedBatchNorm {
            for field in ["weight", "bias", "running_mean", "running_var"] { tensors.append(("\(bn).\(field)", [spec.outChannels])) }
        }
    }
    return tensors
}

/// An F16 safetensors file of the given tensors, all 0 except BN variances (1), laid out in order.
func weightsFile(_ tensors: [(String, [Int])], dtype: String = "F16") -> Data {
    var header: [String: Any] = [:]
    var offset = 0
    let size = dtype == "F16" ? 2 : 4
    var ones: [Range<Int>] = []
    for (name, shape) in tensors {
        let bytes = size * shape.reduce(1, *)
        header[name] = ["dtype": dtype, "shape": shape, "data_offsets": [offset, offset + bytes]]
        if name.hasSuffix("running_var") { ones.append(offset..<(offset + bytes)) }
        offset += bytes
    }
    var data = [UInt8](repeating: 0, count: offset)
    for range in ones { for i in stride(from: range.lowerBound, to: range.upperBound, by: 2) { data[i + 1] = 0x3C } }
    return safetensorsBytes(header: header, data: data)
}

@Suite struct Safety40WeightsTests {
    @Test func architectureHasThePublishedParameterCounts() {
        #expect(Safety40Architecture.parameterCount == 15_206_520)
        let head = Safety40Architecture.convolutions.drop { $0.conv != "neck_3d.fuse" }.reduce(0) { $0 + $1.parameterCount }
        #expect(head == 3_672_568)
        #expect(
            Safety40Architecture.convolutions.filter {
                $0.conv.hasPrefix("backbone.") || $0.conv.hasPrefix("neck.") || $0.conv == "neck_fuse_0"
            }.count == 29)
    }

    @Test func loadsUnfoldedAndFoldedLayouts() throws {
        let unfolded = try Safety40Weights(file: SafetensorsFile(data: weightsFile(checkpointTensors())))
        #expect(unfolded.parameterCount == 15_206_520)
        let folded = try Safety40Weights(file: SafetensorsFile(data: weightsFile(checkpointTensors(foldedBatchNorm: true))))
        #expect(folded.convolutions.count == Safety40Architecture.convolutions.count)
        // BN with mean 0, var 1, γ 0, β 0 folds to zero weights and bias.
        #expect(unfolded.convolution("backbone.conv1").bias.allSatisfy { $0 == 0 })
    }

    @Test func ignoresNumBatchesTracked() throws {
        // Re-lay the file with an int64 scalar `num_batches_tracked` appended after the last tensor.
        let base = weightsFile(checkpointTensors())
        let file = try SafetensorsFile(data: base)
        var header: [String: Any] = file.tensors.mapValues {
            ["dtype": $0.dtype.rawValue, "shape": $0.shape, "data_offsets": [$0.byteRange.lowerBound, $0.byteRange.upperBound]]
        }
        let end = file.tensors.values.map(\.byteRange.upperBound).max() ?? 0
        header["backbone.bn1.num_batches_tracked"] = ["dtype": "I64", "shape": [Int](), "data_offsets": [end, end + 8]]
        let headerLength = Int(base.prefix(8).withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) })
        let data = Array(base.dropFirst(8 + headerLength)) + [UInt8](repeating: 0, count: 8)
        let weights = try Safety40Weights(file: SafetensorsFile(data: safetensorsBytes(header: header, data: data)))
        #expect(weights.parameterCount == 15_206_520)
    }

    @Test func missingTensorIsNamed() {
        let tensors = checkpointTensors().filter { $0.0 != "neck.fpn_convs.2.bn.running_var" }
        #expect(throws: SafetensorsError.missingTensor("neck.fpn_convs.2.bn.running_var")) {
            try Safety40Weights(file: SafetensorsFile(data: weightsFile(tensors)))
        }
    }

    @Test func unexpectedTensorIsNamed() {
        let tensors = checkpointTensors() + [("backbone.fc.weight", [10, 512])]
        #expect(throws: SafetensorsError.unexpectedTensor("backbone.fc.weight")) {
            try Safety40Weights(file: SafetensorsFile(data: weightsFile(tensors)))
        }
    }

    @Test func wrongShapeIsNamed() {
        let tensors = checkpointTensors().map { $0.0 == "bbox_head.conv_reg.weight" ? ($0.0, [63, 192, 1, 1]) : $0 }
        #expect(throws: SafetensorsError.wrongShape(tensor: "bbox_head.conv_reg.weight", expected: "[72, 192, 1, 1]", actual: [63, 192, 1, 1])) {
            try Safety40Weights(file: SafetensorsFile(data: weightsFile(tensors)))
        }
    }
}
