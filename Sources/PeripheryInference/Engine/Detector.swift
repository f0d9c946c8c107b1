import Dispatch
import Foundation
import PeripheryCore
import PeripheryGeometry

/// Milliseconds spent in each stage of one `Detector.detect` call.
public struct DetectorTimings: Sendable, Hashable {
    /// Image → features (ResNet-18, FPN, fuse).
    public var backbone: Double
    /// Features → BEV volume through the ProjectionLUT.
    public var gather: Double
    /// Volume → head outputs (BEV neck and anchor head).
    public var head: Double
    /// Head outputs → detections (decode and NMS).
    public var decode: Double

    /// Sum of the stages.
    public var total: Double { backbone + gather + head + decode }
}

/// Why `Detector` cannot run.
public enum DetectorError: Error, Equatable, CustomStringConvertible {
    /// The input image does not hold 3 × 256 × 512 floats.
    case wrongImageSize(expected: Int, actual: Int)
    /// The ProjectionLUT does not cover the 6560 voxels.
    case wrongLUTSize(expected: Int, actual: Int)

    public var description: String {
        switch self {
        case .wrongImageSize(let expected, let actual): "image has \(actual) floats, expected \(expected) (3 × 256 × 512)"
        case .wrongLUTSize(let expected, let actual): "ProjectionLUT has \(actual) voxels, expected \(expected)"
        }
    }
}

/// Why a `Detector` cannot be built.
public enum DetectorSetupError: Error, Equatable, CustomStringConvertible {
    /// OpenBLAS cannot be loaded or fails its self-test.
    case blas(BLASError)
    /// The weights file or the CPU cannot run the precision asked for.
    case precision(PrecisionError)
    /// The INT8 kernel asked for needs CPU features (/proc/cpuinfo names) this CPU lacks.
    case int8KernelUnsupported(Int8ISA, missing: [String])
    /// The INT8 kernel asked for is not in this build (its C file is compiled only where the
    /// compiler can target its instructions).
    case int8KernelNotBuilt(Int8ISA)

    public var description: String {
        switch self {
        case .blas(let error): "\(error)"
        case .precision(let error): "\(error)"
        case .int8KernelUnsupported(let isa, let missing):
            "--int8-kernel \(isa.optionName): this CPU lacks \(missing.joined(separator: ", ")); use auto or a kernel it has"
        case .int8KernelNotBuilt(let isa): "--int8-kernel \(isa.optionName): this build has no such kernel; use auto"
        }
    }
}

/// The Safety40 detector on the CPU: normalised image → features → LUT gather → head → decode.
///
/// Create one per thread; the `Safety40Weights` it is built from can be shared between detectors.
/// The runtime parallelises each layer over `threads` workers itself and runs OpenBLAS with one
/// thread per call; OpenBLAS's thread setting is process-wide.
public final class Detector {
    /// Worker threads per layer.
    public let threads: Int
    /// The BLAS the runtime runs on.
    package let blas: BLASInfo
    /// The precision the network runs in (the file's, when built with `.auto`).
    public let precision: InferencePrecision
    /// The convolution kernels in use: OpenBLAS's core for FP32, the instruction set for INT8.
    public let kernel: ConvolutionKernel
    /// Outputs of the last `detect` call.
    public private(set) var headOutputs: HeadOutputs
    private let network: Network
    private var decodeWorkspace = DecodeWorkspace()

    /// Builds a detector.
    ///
    /// - Parameters:
    ///   - weights: validated weights.
    ///   - threads: worker threads per layer; defaults to all cores.
    ///   - precision: the arithmetic to run; `.auto` (the default) runs the file's own precision.
    ///   - int8Kernel: the instruction set of the INT8 convolutions; `nil` (the default, "auto")
    ///     takes the CPU's fastest. Forcing `.avx2` measures the AVX2 path on a CPU with VNNI,
    ///     `.neon` the NEON path on one with the dot product.
    ///     Ignored for FP32 weights.
    /// - Throws: `DetectorSetupError` if OpenBLAS cannot be loaded or fails its self-test, if the
    ///   file or the CPU cannot run `precision`, or if the CPU or this build lacks `int8Kernel`.
    public convenience init(
        weights: Safety40Weights, threads: Int? = nil, precision: InferencePrecision = .auto, int8Kernel: Int8ISA? = nil
    ) throws(DetectorSetupError) {
        try self.init(weights: weights, threads: threads, precision: precision, int8Kernel: int8Kernel, cpu: .current)
    }

    /// Builds a detector for a CPU with `cpu`'s features (tests pretend to be other CPUs).
    init(weights: Safety40Weights, threads: Int?, precision: InferencePrecision, int8Kernel requested: Int8ISA?, cpu: CPUFeatures) throws(DetectorSetupError) {
        var int8Kernel = Int8ISA.best(for: cpu)
        if let requested, weights.int8 != nil {
            let missing = requested.requiredFlags.filter { !cpu.flags.contains($0) }
            guard missing.isEmpty else { throw .int8KernelUnsupported(requested, missing: missing) }
            guard requested.isCompiled else { throw .int8KernelNotBuilt(requested) }
            int8Kernel = requested
        }
        let library: OpenBLAS
        do { library = try OpenBLAS.load() } catch { throw .blas(error) }
        library.setThreads(1)
        self.threads = max(1, threads ?? ProcessInfo.processInfo.activeProcessorCount)
        blas = library.info
        let resolved = precision == .auto ? weights.precision : precision
        guard resolved == weights.precision else {
            throw .precision(resolved == .bf16 ? .notImplemented(.bf16) : .fileIsNot(requested: resolved, file: weights.precision))
        }
        self.precision = resolved
        if let int8 = weights.int8 {
            guard let int8Kernel else { throw .precision(.unsupportedByCPU(.int8, needs: "AVX2")) }
            let int8Network = Safety40Int8Network(weights: int8, blas: library, threads: self.threads, isa: int8Kernel)
            network = .int8(int8Network)
            kernel = int8Network.convolutionKernel
        } else {
            network = .fp32(Safety40Network(weights: weights, blas: library, threads: self.threads))
            kernel = .openBLAS(core: library.info.coreName)
        }
        headOutputs = .zeros()
    }

    /// Runs the network and the decoder on one normalised image.
    ///
    /// - Parameters:
    ///   - image: planar RGB `[3, 256, 512]`, normalised with `ImageNormalization`.
    ///   - lut: the ProjectionLUT of the camera's calibration.
    ///   - settings: decode operating point.
    /// - Returns: detections in descending score and per-stage timings.
    public func detect(
        image: [Float], lut: ProjectionLUT, settings: DecodeSettings = DecodeSettings()
    ) throws(DetectorError) -> (detections: [Detection], timings: DetectorTimings) {
        var detections: [Detection] = []
        let timings = image.withUnsafeBufferPointer { buffer in
            Result { () throws(DetectorError) in try detect(image: buffer, lut: lut, settings: settings, into: &detections) }
        }
        return (detections, try timings.get())
    }

    /// Runs the network and the decoder on one normalised image (as `Preprocessor` writes it),
    /// writing the detections (in descending score) over the contents of `detections`.
    ///
    /// The allocation-free form for a frame loop: once warm, and with `detections` reused from the
    /// last call, nothing is allocated (`AllocationTests`).
    ///
    /// - Returns: per-stage timings.
    public func detect(
        image: UnsafeBufferPointer<Float>, lut: ProjectionLUT, settings: DecodeSettings = DecodeSettings(),
        into detections: inout [Detection]
    ) throws(DetectorError) -> DetectorTimings {
        let expected = Preprocessor.count
        guard image.count == expected, let source = image.baseAddress else {
            throw .wrongImageSize(expected: expected, actual: image.count)
        }
        guard lut.count == Safety40.voxelCount else { throw .wrongLUTSize(expected: Safety40.voxelCount, actual: lut.count) }
        var timings = DetectorTimings(backbone: 0, gather: 0, head: 0, decode: 0)
        var mark = DispatchTime.now().uptimeNanoseconds
        func lap() -> Double {
            let now = DispatchTime.now().uptimeNanoseconds
            defer { mark = now }
            return Double(now - mark) / 1e6
        }
        if profiled.profile != nil { profiled.profile = [] }
        switch network {
        case .fp32(let network):
            network.image.data.update(from: source, count: expected)
            network.runBackbone()
            timings.backbone = lap()
            lut.gather(
                features: UnsafeBufferPointer(start: network.features.data, count: network.features.count),
                into: UnsafeMutableBufferPointer(start: network.volume.data, count: network.volume.count))
            timings.gather = lap()
            network.runHead()
            copyHeadOutputs(network.headOutput)
        case .int8(let network):
            network.runBackbone(image: source)
            timings.backbone = lap()
            network.gather(lut)
            timings.gather = lap()
            network.runHead()
            copyHeadOutputs(network.headOutput)
        }
        timings.head = lap()
        DetectionDecoder.decode(headOutputs, settings: settings, workspace: &decodeWorkspace, into: &detections)
        timings.decode = lap()
        return timings
    }

    /// The network's workers (nil with one thread), for work between passes such as preprocessing.
    var workerPool: WorkerPool? {
        switch network {
        case .fp32(let network): network.context.workerPool
        case .int8(let network): network.context.workerPool
        }
    }

    /// Whether `detect` records per-layer timings in `layerTimings` (off by default).
    public var profilesLayers: Bool {
        get { profiled.profile != nil }
        set { profiled.profile = newValue ? [] : nil }
    }

    /// Per-layer timings of the last `detect` call, in execution order, when `profilesLayers` is on.
    public var layerTimings: [LayerTiming] { profiled.profile ?? [] }

    /// The network, whichever precision it runs in, as the profiler sees it.
    private var profiled: any LayerProfiling {
        switch network {
        case .fp32(let network): network
        case .int8(let network): network
        }
    }

    /// Features `[64, 64, 128]` of the last call (dequantized in INT8).
    public var features: [Float] {
        switch network {
        case .fp32(let network): Array(UnsafeBufferPointer(start: network.features.data, count: network.features.count))
        case .int8(let network): network.features
        }
    }

    /// BEV volume `[64, 41, 80, 2]` of the last call (dequantized in INT8).
    public var volume: [Float] {
        switch network {
        case .fp32(let network): Array(UnsafeBufferPointer(start: network.volume.data, count: network.volume.count))
        case .int8(let network): network.volume
        }
    }

    /// The network of one precision.
    private enum Network {
        case fp32(Safety40Network)
        case int8(Safety40Int8Network)
    }

    /// Splits the fused `[840, 32 + 72 + 16]` head output into the three candidate-major tensors.
    private func copyHeadOutputs(_ source: UnsafeMutablePointer<Float>) {
        let pixels = Safety40.headCellsX * Safety40.headCellsY, anchors = Safety40.anchorsPerCell
        let widths = (Safety40.classChannels * anchors, Safety40.boxCodeChannels * anchors, Safety40.directionChannels * anchors)
        let row = widths.0 + widths.1 + widths.2
        func copy(_ target: inout [Float], offset: Int, width: Int) {
            target.withUnsafeMutableBufferPointer { out in
                guard let out = out.baseAddress else { return }
                for s in 0..<pixels { (out + s * width).update(from: source + s * row + offset, count: width) }
            }
        }
        copy(&headOutputs.classes, offset: 0, width: widths.0)
        copy(&headOutputs.boxes, offset: widths.0, width: widths.1)
        copy(&headOutputs.directions, offset: widths.0 + widths.1, width: widths.2)
    }
}
