import Foundation
import PeripheryTestSupport
import Testing

@testable import PeripheryCore
@testable import PeripheryGeometry
@testable import PeripheryIO
@testable import PeripheryInference

/// The INT8 network, its file format and `--precision`: docs/guides/weights.md.
@Suite struct Int8NetworkTests {
    /// The random-initialisation weights (FP32), loaded once.
    static let fp32: Result<Safety40Weights, SafetensorsError> = Result { () throws(SafetensorsError) in
        try Safety40Weights(path: repositoryPath("Weights/safety40-random-init.safetensors"))
    }

    /// The demo frame, preprocessed, and its LUT.
    static func sample() throws -> (image: [Float], lut: ProjectionLUT) {
        let setup = try CalibrationFile.load(path: repositoryPath("docs/sample/synthetic/calibration.json"))
        let pixels = try FramePixels(try ImageFile.read(path: repositoryPath("docs/sample/synthetic/frame.png")))
        let calibration = CameraCalibration(setup)
        let preprocessor = Preprocessor()
        let image = withExtendedLifetime(preprocessor) { Array(preprocessor.process(pixels, crop: calibration.crop)) }
        return (image, ProjectionLUT(calibration: calibration))
    }

    /// An INT8 file of the random-initialisation weights with every activation at `scale` (the
    /// image and the signed points with zero point 128), for tests of the format; `edit` changes it.
    static func int8File(
        bits: WeightBits = .six, edit: (inout [String: (dtype: String, shape: [Int], bytes: [UInt8])]) -> Void = { _ in }
    ) throws -> Data {
        let weights = try fp32.get()
        var convolutions: [String: QuantizedConvolution] = [:]
        for (name, conv) in weights.convolutions { convolutions[name] = QuantizedConvolution(conv, bits: bits) }
        var activations: [String: ActivationQuantization] = [:]
        for point in Safety40QuantizationGraph.points { activations[point] = ActivationQuantization(scale: 0.05, zeroPoint: 128) }
        var writer = SafetensorsWriter()
        Safety40Int8Weights(convolutions: convolutions, activations: activations).write(into: &writer)
        let data = writer.serialized()
        let file = try SafetensorsFile(data: data)
        var tensors: [String: (dtype: String, shape: [Int], bytes: [UInt8])] = [:]
        let headerLength = Int(data.prefix(8).withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) })
        for (name, info) in file.tensors {
            let start = 8 + headerLength + info.byteRange.lowerBound
            tensors[name] = (info.dtype.rawValue, info.shape, [UInt8](data[start..<start + info.byteRange.count]))
        }
        edit(&tensors)
        var header: [String: Any] = ["__metadata__": ["precision": "int8"]]
        var body: [UInt8] = []
        for name in tensors.keys.sorted() {
            guard let t = tensors[name] else { continue }
            header[name] = ["dtype": t.dtype, "shape": t.shape, "data_offsets": [body.count, body.count + t.bytes.count]] as [String: Any]
            body += t.bytes
        }
        return safetensorsBytes(header: header, data: body)
    }

    static func float32Bytes(_ values: [Float]) -> [UInt8] {
        values.flatMap { v in (0..<4).map { UInt8(truncatingIfNeeded: v.bitPattern >> (8 * $0)) } }
    }

    @Test func theFormatRoundTrips() throws {
        let weights = try Safety40Weights(file: SafetensorsFile(data: Self.int8File()))
        #expect(weights.precision == .int8)
        let int8 = try #require(weights.int8)
        #expect(int8.convolutions.count == Safety40Architecture.convolutions.count)
        #expect(int8.activations.count == Safety40QuantizationGraph.points.count)
        let fp32 = try Self.fp32.get().convolution("backbone.layer1.0.conv1"), conv = int8.convolution("backbone.layer1.0.conv1")
        // Per-channel symmetric: every weight within half a step of its float value.
        for i in 0..<fp32.weights.count {
            let scale = conv.weightScales[i / fp32.reduction]
            #expect(abs(Float(conv.weights[i]) * scale - fp32.weights[i]) <= 0.5 * scale * 1.0001)
        }
    }

    /// A hostile file is refused with an error that names the tensor at fault.
    @Test(arguments: [
        ("missing scale", "activation.neck_fuse_0.scale"),
        ("wrong weight dtype", "backbone.conv1.weight"),
        ("zero scale", "activation.image.scale"),
        ("NaN weight scale", "neck_3d.fuse.weight_scale"),
        ("weight -128", "bbox_head.conv_reg.weight"),
        ("wrong zero-point dtype", "activation.backbone.conv1.zero_point"),
        ("extra tensor", "activation.extra.scale"),
    ])
    func hostileFilesAreRefusedNamingTheTensor(change: String, tensor: String) throws {
        let data = try Self.int8File { tensors in
            switch change {
            case "missing scale": tensors[tensor] = nil
            case "wrong weight dtype":
                if let t = tensors[tensor] { tensors[tensor] = ("F32", t.shape, Self.float32Bytes(t.bytes.map { Float(Int8(bitPattern: $0)) })) }
            case "zero scale": tensors[tensor]?.bytes = Self.float32Bytes([0])
            case "NaN weight scale": tensors[tensor]?.bytes[0..<4] = ArraySlice(Self.float32Bytes([.nan]))
            case "weight -128": tensors[tensor]?.bytes[5] = 0x80
            case "wrong zero-point dtype": tensors[tensor] = ("I8", [1], [0])
            default: tensors[tensor] = ("F32", [1], Self.float32Bytes([1]))
            }
        }
        do {
            _ = try Safety40Weights(file: SafetensorsFile(data: data))
            Issue.record("\(change): accepted")
        } catch {
            #expect("\(error)".contains("'\(tensor)'"), "\(change): \(error)")
        }
    }

    /// `auto` runs the file's precision; any other mismatch is an error that says what to do.
    @Test func precisionIsCheckedAgainstTheFileAndTheCPU() throws {
        let fp32 = try Self.fp32.get(), int8 = try Safety40Weights(file: SafetensorsFile(data: Self.int8File()))
        #expect(try Detector(weights: int8, threads: 1).precision == .int8)
        #expect(try Detector(weights: fp32, threads: 1).precision == .fp32)
        #expect(throws: DetectorSetupError.precision(.fileIsNot(requested: .int8, file: .fp32))) {
            try Detector(weights: fp32, threads: 1, precision: .int8)
        }
        #expect(throws: DetectorSetupError.precision(.fileIsNot(requested: .fp32, file: .int8))) {
            try Detector(weights: int8, threads: 1, precision: .fp32)
        }
        #expect(throws: DetectorSetupError.precision(.notImplemented(.bf16))) { try Detector(weights: fp32, threads: 1, precision: .bf16) }
        #expect(throws: DetectorSetupError.precision(.unsupportedByCPU(.int8, needs: "AVX2"))) {
            try Detector(weights: int8, threads: 1, precision: .int8, int8Kernel: nil, cpu: CPUFeatures(vendor: "AuthenticAMD", flags: ["avx", "fma"]))
        }
        #expect(Int8ISA.best(for: CPUFeatures(vendor: "AuthenticAMD", flags: ["avx", "fma"])) == nil)
        #expect(Int8ISA.best(for: CPUFeatures(vendor: "AuthenticAMD", flags: ["avx2", "fma"])) == .avx2)
        #expect(Int8ISA.best(for: CPUFeatures(vendor: "GenuineIntel", flags: ["avx2", "fma", "avx_vnni"])) == .avxVNNI)
        let zen5 = ["avx2", "fma", "avx_vnni", "avx512f", "avx512bw", "avx512vl", "avx512_vnni"]
        #expect(Int8ISA.best(for: CPUFeatures(vendor: "AuthenticAMD", flags: Set(zen5))) == .avx512VNNI)
    }

    /// Every instruction set this CPU has computes the same network to the bit: the integer
    /// parts are exact and the epilogue's float arithmetic is the same sequence on each. The
    /// AVX2 path is forced here even where the CPU has VNNI.
    /// 6-bit weights (the quantizer's) take AVX2's two-products-per-vpmaddwd kernel in every layer,
    /// 7-bit ones its vpmaddubsw kernel, 8-bit ones its vpmaddwd kernel; the kernel's name says which.
    @Test(arguments: WeightBits.allCases)
    func everyKernelPathGivesTheSameOutputs(_ bits: WeightBits) throws {
        let weights = try Safety40Weights(file: SafetensorsFile(data: Self.int8File(bits: bits)))
        let (image, lut) = try Self.sample()
        let paths = Int8ISA.allCases.filter { $0 != .naive && $0.runs(on: .current) }
        try #require(!paths.isEmpty, "this CPU has no AVX2")
        var outputs: [(Int8ISA, HeadOutputs)] = []
        for isa in paths {
            let detector = try Detector(weights: weights, threads: 2, precision: .auto, int8Kernel: isa)
            _ = try detector.detect(image: image, lut: lut)
            if isa == .avx2 {
                let names: [WeightBits: String] = [.six: "avx2-maddubs6", .seven: "avx2-maddubs", .eight: "avx2-maddwd"]
                #expect(detector.kernel.description == names[bits])
            } else {
                #expect(detector.kernel == .int8(isa))
            }
            outputs.append((isa, detector.headOutputs))
        }
        for (isa, output) in outputs.dropFirst() {
            #expect(output.classes == outputs[0].1.classes, "\(isa) vs \(outputs[0].0): classes")
            #expect(output.boxes == outputs[0].1.boxes, "\(isa) vs \(outputs[0].0): boxes")
            #expect(output.directions == outputs[0].1.directions, "\(isa) vs \(outputs[0].0): directions")
        }
    }

    /// A kernel the CPU lacks is a typed error naming the missing features; `nil` takes the best.
    @Test func anInt8KernelTheCPULacksIsRefused() throws {
        let int8 = try Safety40Weights(file: SafetensorsFile(data: Self.int8File()))
        let zen3 = CPUFeatures(vendor: "AuthenticAMD", flags: ["avx", "avx2", "fma"])
        #expect(throws: DetectorSetupError.int8KernelUnsupported(.avxVNNI, missing: ["avx_vnni"])) {
            try Detector(weights: int8, threads: 1, precision: .auto, int8Kernel: .avxVNNI, cpu: zen3)
        }
        #expect(throws: DetectorSetupError.int8KernelUnsupported(.avx512VNNI, missing: ["avx512f", "avx512bw", "avx512vl", "avx512_vnni"])) {
            try Detector(weights: int8, threads: 1, precision: .auto, int8Kernel: .avx512VNNI, cpu: zen3)
        }
        // The same error on ARM, and for an ARM path asked of an x86 CPU.
        let raspberryPi5 = CPUFeatures(cpuinfo: CPUFeaturesTests.raspberryPi5)
        #expect(throws: DetectorSetupError.int8KernelUnsupported(.neonI8MM, missing: ["i8mm"])) {
            try Detector(weights: int8, threads: 1, precision: .auto, int8Kernel: .neonI8MM, cpu: raspberryPi5)
        }
        #expect(throws: DetectorSetupError.int8KernelUnsupported(.neon, missing: ["asimd"])) {
            try Detector(weights: int8, threads: 1, precision: .auto, int8Kernel: .neon, cpu: zen3)
        }
        // A path the CPU has but this build lacks (the other architecture's, here).
        if let absent = Int8ISA.allCases.first(where: { !$0.isCompiled }) {
            #expect(throws: DetectorSetupError.int8KernelNotBuilt(absent)) {
                try Detector(weights: int8, threads: 1, precision: .auto, int8Kernel: absent, cpu: CPUFeatures(vendor: "", flags: Set(absent.requiredFlags)))
            }
        }
        #expect(try Detector(weights: int8, threads: 1, precision: .auto, int8Kernel: nil, cpu: zen3).kernel.description == "avx2-maddubs6")
        #expect(try Detector(weights: int8, threads: 1, precision: .auto, int8Kernel: .avx2, cpu: zen3).kernel.description == "avx2-maddubs6")
        #expect("\(ConvolutionKernel.int8AVX2(maddubs6: 3, maddubs: 2, maddwd: 1))" == "avx2-mixed-maddubs6-3-maddubs-2-maddwd-1")
        #expect("\(DetectorSetupError.int8KernelUnsupported(.avxVNNI, missing: ["avx_vnni"]))".contains("--int8-kernel avxvnni"))
        #expect(Int8ISA(optionName: "avxvnni") == .avxVNNI && Int8ISA(optionName: "avx512-vnni") == .avx512VNNI)
    }

    /// One thread and two give the same bytes (the split is by output rows and channel blocks).
    @Test func threadsDoNotChangeTheOutputs() throws {
        let weights = try Safety40Weights(file: SafetensorsFile(data: Self.int8File()))
        let (image, lut) = try Self.sample()
        let one = try Detector(weights: weights, threads: 1), three = try Detector(weights: weights, threads: 3)
        _ = try one.detect(image: image, lut: lut)
        _ = try three.detect(image: image, lut: lut)
        #expect(one.headOutputs.boxes == three.headOutputs.boxes && one.headOutputs.classes == three.headOutputs.classes)
        #expect(one.features == three.features)
    }

    /// The quantizer's file loads, and the INT8 network it describes follows the FP32 one: on the
    /// random-initialisation weights (outputs of order 1) the head outputs stay within a bound
    /// that a wrong scale, zero point or layout would break by orders of magnitude. 7-bit weights
    /// (the default) have half the resolution of 8-bit ones: on these untrained weights the head's
    /// relative RMS error measured 0.110 / 0.038 (boxes / classes) against 8-bit's 0.080 / 0.027,
    /// and the features' 0.046 (7-bit) and 0.087 (6-bit) against 0.033; the bounds of the narrower
    /// weights are looser (docs/results/accuracy.md has the trained weights' cost).
    @Test(arguments: WeightBits.allCases)
    func quantizedNetworkFollowsFP32(_ bits: WeightBits) throws {
        let fp32 = try Self.fp32.get()
        let (image, lut) = try Self.sample()
        let quantizer = try Safety40Quantizer(weights: fp32, threads: 2, bits: bits)
        try image.withUnsafeBufferPointer { try quantizer.add(image: $0, lut: lut) }
        let int8 = try Safety40Weights(file: SafetensorsFile(data: quantizer.quantize(calibration: "the demo frame").serialized()))
        #expect(int8.metadata["calibration"] == "the demo frame" && int8.metadata["precision"] == "int8")
        let reference = try Detector(weights: fp32, threads: 2), quantized = try Detector(weights: int8, threads: 2)
        _ = try reference.detect(image: image, lut: lut)
        _ = try quantized.detect(image: image, lut: lut)
        func relativeError(_ a: [Float], _ b: [Float]) -> Float {
            var difference: Float = 0, norm: Float = 0
            for (x, y) in zip(a, b) { (difference, norm) = (difference + (x - y) * (x - y), norm + y * y) }
            return (difference / max(norm, 1e-30)).squareRoot()
        }
        let features = relativeError(quantized.features, reference.features)
        let boxes = relativeError(quantized.headOutputs.boxes, reference.headOutputs.boxes)
        let classes = relativeError(quantized.headOutputs.classes, reference.headOutputs.classes)
        #expect(features < (bits == .eight ? 0.05 : 0.15), "features: relative RMS error \(features)")
        let bound: Float = bits == .eight ? 0.1 : 0.25
        #expect(boxes < bound && classes < bound, "\(bits.rawValue)-bit head: relative RMS error boxes \(boxes), classes \(classes)")
    }
}
