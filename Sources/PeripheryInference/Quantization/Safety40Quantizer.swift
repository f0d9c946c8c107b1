import Foundation
import PeripheryCore
import PeripheryGeometry

/// Post-training static quantization of FP32 Safety40 weights to the INT8 network
/// (docs/guides/weights.md): int8 weights symmetric per output channel (largest |weight| → 31 with
/// the default 6 bits, 63 with 7, 127 with 8), uint8
/// activations per tensor with the range of least squared error over calibration frames run
/// through the FP32 network.
///
/// Feed it the calibration frames with `add`, then `quantize` writes the INT8 file.
package final class Safety40Quantizer {
    private let weights: Safety40Weights
    private let network: Safety40Network
    private var images: [[Float]] = []
    private var luts: [ProjectionLUT] = []
    private var histograms: [String: ActivationHistogram] = [:]
    private let bits: WeightBits

    /// Frames added so far.
    package var frameCount: Int { images.count }

    /// A quantizer for FP32 weights.
    ///
    /// - Throws: `DetectorSetupError` if the weights are not FP32 or OpenBLAS cannot be loaded.
    package init(weights: Safety40Weights, threads: Int = 1, bits: WeightBits = .six) throws(DetectorSetupError) {
        guard weights.precision == .fp32 else { throw .precision(.fileIsNot(requested: .fp32, file: weights.precision)) }
        let library: OpenBLAS
        do { library = try OpenBLAS.load() } catch { throw .blas(error) }
        library.setThreads(1)
        self.weights = weights
        self.bits = bits
        network = Safety40Network(weights: weights, blas: library, threads: threads)
        for point in Safety40QuantizationGraph.points { histograms[point] = ActivationHistogram() }
    }

    /// Adds one calibration frame: a normalised `[3, 256, 512]` image (`Preprocessor`) and the
    /// LUT of its camera.
    package func add(image: UnsafeBufferPointer<Float>, lut: ProjectionLUT) throws(DetectorError) {
        guard image.count == Preprocessor.count else { throw .wrongImageSize(expected: Preprocessor.count, actual: image.count) }
        guard lut.count == Safety40.voxelCount else { throw .wrongLUTSize(expected: Safety40.voxelCount, actual: lut.count) }
        images.append(Array(image))
        luts.append(lut)
        pass(images.count - 1) { histogram, values in histogram.observeRange(values) }
    }

    /// Quantizes the weights with the activation ranges of the frames added.
    ///
    /// - Parameter calibration: what the frames were, for the file's metadata.
    /// - Returns: the INT8 file's writer (`metadata["precision"] == "int8"`).
    /// - Precondition: at least one frame was added.
    package func quantize(calibration: String) -> SafetensorsWriter {
        precondition(!images.isEmpty, "quantize needs calibration frames")
        for index in images.indices { pass(index) { histogram, values in histogram.observeHistogram(values) } }
        var activations: [String: ActivationQuantization] = [:]
        for (point, histogram) in histograms { activations[point] = histogram.bestQuantization() }
        var convolutions: [String: QuantizedConvolution] = [:]
        for (name, conv) in weights.convolutions { convolutions[name] = QuantizedConvolution(conv, bits: bits) }
        var writer = SafetensorsWriter()
        writer.metadata = weights.metadata
        writer.metadata["precision"] = Safety40Int8Weights.precision
        writer.metadata["calibration"] = calibration
        writer.metadata["calibration_frames"] = String(images.count)
        writer.metadata["quantization"] = Self.method(bits)
        Safety40Int8Weights(convolutions: convolutions, activations: activations).write(into: &writer)
        return writer
    }

    /// How the file was quantized, in its metadata.
    static func method(_ bits: WeightBits) -> String {
        "int8 weights symmetric per output channel, \(bits.rawValue)-bit (max |w| -> \(bits.largest)); uint8 activations per tensor, "
            + "range of least squared error over the calibration frames (histogram of 2048 bins, ranges alpha*[min, max], alpha 1..0.2)"
    }

    /// Runs the FP32 network on frame `index`, handing every point's values to `observe`.
    private func pass(_ index: Int, _ observe: @escaping (inout ActivationHistogram, UnsafeBufferPointer<Float>) -> Void) {
        network.observer = { [unowned self] point, tensor in
            guard var histogram = histograms[point] else { return }
            histograms[point] = nil
            observe(&histogram, UnsafeBufferPointer(start: tensor.data, count: tensor.count))
            histograms[point] = histogram
        }
        defer { network.observer = nil }
        images[index].withUnsafeBufferPointer { image in
            guard let base = image.baseAddress else { return }
            network.image.data.update(from: base, count: image.count)
        }
        network.runBackbone()
        luts[index].gather(
            features: UnsafeBufferPointer(start: network.features.data, count: network.features.count),
            into: UnsafeMutableBufferPointer(start: network.volume.data, count: network.volume.count))
        network.runHead()
    }
}
