import CInt8Kernels
import PeripheryTestSupport
import Testing

@testable import PeripheryGeometry
@testable import PeripheryInference

/// The INT8 kernels of CInt8Kernels against Swift references written from the formulas of
/// int8_kernels.h. Accumulators are exact on every path; the float epilogue and the elementwise
/// kernels are bit-exact too, because the C code rounds after every operation except where the
/// header says fmaf, which `addingProduct` reproduces here (Swift never fuses on its own).
@Suite struct Int8KernelTests {
    // MARK: - Paths

    /// A convolution path, with the /proc/cpuinfo flags its functions are compiled for.
    enum Path: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case naive, avx2, avx2Maddubs = "avx2-maddubs", avx2Maddubs6 = "avx2-maddubs6", avxVNNI = "avx-vnni", avx512VNNI = "avx512-vnni"
        case neon, neonDotprod = "neon-dotprod", neonI8MM = "neon-i8mm"

        var isa: pq_isa {
            switch self {
            case .naive: PQ_ISA_NAIVE
            case .avx2: PQ_ISA_AVX2
            case .avx2Maddubs: PQ_ISA_AVX2_MADDUBS
            case .avx2Maddubs6: PQ_ISA_AVX2_MADDUBS6
            case .avxVNNI: PQ_ISA_AVXVNNI
            case .avx512VNNI: PQ_ISA_AVX512VNNI
            case .neon: PQ_ISA_NEON
            case .neonDotprod: PQ_ISA_NEON_DOTPROD
            case .neonI8MM: PQ_ISA_NEON_I8MM
            }
        }

        var flags: [String] {
            switch self {
            case .naive: []
            case .avx2, .avx2Maddubs, .avx2Maddubs6: ["avx2", "fma"]
            case .avxVNNI: ["avx2", "fma", "avx_vnni"]
            case .avx512VNNI: ["avx512f", "avx512bw", "avx512vl", "avx512_vnni"]
            case .neon: ["asimd"]
            case .neonDotprod: ["asimd", "asimddp"]
            case .neonI8MM: ["asimd", "i8mm"]
            }
        }

        /// The widest weights the path is exact on: 6 bits (−32…31), 7 (−64…63) or 8.
        var weightBits: Int {
            switch self {
            case .avx2Maddubs6: 6
            case .avx2Maddubs: 7
            default: 8
            }
        }

        var block: Int { Int(pq_output_block(isa)) }
        var testDescription: String { rawValue }
    }

    /// The paths this build has and this CPU runs (a path whose instructions it lacks would die with SIGILL).
    static let paths = Path.allCases.filter { pq_isa_compiled($0.isa) != 0 && $0.flags.allSatisfy(CPUFeatures.current.flags.contains) }
    static let vectorPaths = paths.filter { $0 != .naive }
    /// The paths that take full-range 8-bit weights.
    static let wideWeightPaths = paths.filter { $0.weightBits == 8 }

    // MARK: - Buffers

    /// 64-byte aligned storage (the packed weights need it), freed with the object.
    final class Buffer<Element> {
        let count: Int
        let pointer: UnsafeMutablePointer<Element>

        init(count: Int, repeating value: Element) {
            self.count = count
            let raw = UnsafeMutableRawPointer.allocate(
                byteCount: max(count, 1) * MemoryLayout<Element>.stride, alignment: 64)
            pointer = raw.bindMemory(to: Element.self, capacity: max(count, 1))
            pointer.initialize(repeating: value, count: max(count, 1))
        }

        deinit { pointer.deallocate() }

        subscript(index: Int) -> Element {
            get {
                precondition(index >= 0 && index < count)
                return pointer[index]
            }
            set {
                precondition(index >= 0 && index < count)
                pointer[index] = newValue
            }
        }

        var array: [Element] { Array(UnsafeBufferPointer(start: pointer, count: count)) }
    }

    /// An NHWC uint8 tensor inside its border, as int8_kernels.h describes: `channels` values at
    /// `offset` of each pixel of `pixelStride` bytes, so that it can be a slice of a wider one.
    final class ByteTensor {
        let height: Int, width: Int, channels: Int, border: Int, pixelStride: Int, offset: Int
        let storage: Buffer<UInt8>

        init(height: Int, width: Int, channels: Int, border: Int, pixelStride: Int? = nil, offset: Int = 0, fill: UInt8) {
            self.height = height
            self.width = width
            self.channels = channels
            self.border = border
            self.pixelStride = pixelStride ?? channels
            self.offset = offset
            precondition(offset + channels <= self.pixelStride)
            storage = Buffer(count: (height + 2 * border) * (width + 2 * border) * self.pixelStride, repeating: fill)
        }

        /// Storage index of channel c of pixel (y, x); y and x may lie in the border.
        func index(_ y: Int, _ x: Int, _ c: Int) -> Int {
            ((y + border) * (width + 2 * border) + x + border) * pixelStride + offset + c
        }

        subscript(y: Int, x: Int, c: Int) -> UInt8 {
            get { storage[index(y, x, c)] }
            set { storage[index(y, x, c)] = newValue }
        }

        var view: pq_tensor {
            pq_tensor(
                data: storage.pointer + index(0, 0, 0), height: Int32(height), width: Int32(width),
                channels: Int32(channels), border: Int32(border), pixel_stride: Int32(pixelStride))
        }

        func randomize(_ random: inout SeededRandom, in range: ClosedRange<Int> = 0...255) {
            for i in 0..<storage.count { storage[i] = UInt8(random.integer(range)) }
        }

        /// The interior's values, `[height][width][channels]`.
        var interior: [UInt8] {
            var values: [UInt8] = []
            for y in 0..<height { for x in 0..<width { for c in 0..<channels { values.append(self[y, x, c]) } } }
            return values
        }

        /// Whether each storage byte belongs to channels 0..<channels of an interior pixel of `rows`.
        func interiorMask(rows: Range<Int>? = nil) -> [Bool] {
            var mask = [Bool](repeating: false, count: storage.count)
            for y in rows ?? 0..<height { for x in 0..<width { for c in 0..<channels { mask[index(y, x, c)] = true } } }
            return mask
        }

        /// Whether every byte outside `mask` still holds `canary`.
        func untouched(outside mask: [Bool], canary: UInt8) -> Bool {
            (0..<storage.count).allSatisfy { mask[$0] || storage[$0] == canary }
        }
    }

    /// q(t) of the header: clamp(nearbyintf(t) + zero, 0, 255).
    static func quantize(_ t: Float, _ zero: Int) -> UInt8 {
        // Rounding is monotonic, so clamping t first only keeps Int() in range.
        let rounded = Int(min(max(t, -4096), 4096).rounded(.toNearestOrEven))
        return UInt8(min(max(rounded + zero, 0), 255))
    }

    // MARK: - Convolution cases

    /// One convolution: shape, epilogue options and outputs, drawn from `seed` unless named.
    struct ConvCase: Sendable, CustomTestStringConvertible {
        var cin: Int, cout: Int, k: Int, stride: Int, height: Int, width: Int
        var relu = false, residual = false, u8 = true, f32 = false, s32 = true
        /// Output (and residual) as a channel slice of a wider tensor, f32 with a wider stride.
        var slice = false
        var inputZero = 0
        /// Weights drawn from −2^(bits−1)…2^(bits−1) − 1 (the vpmaddubsw kernels are exact on 7 and 6).
        var weightBits = 8
        var seed: UInt64 = 1

        var pad: Int { k / 2 }
        var cin4: Int { (cin + 3) / 4 * 4 }
        var outHeight: Int { (height + 2 * pad - k) / stride + 1 }
        var outWidth: Int { (width + 2 * pad - k) / stride + 1 }

        var testDescription: String {
            let options = [
                relu ? "relu" : nil, residual ? "residual" : nil, u8 ? "u8" : nil, f32 ? "f32" : nil,
                s32 ? "s32" : nil, slice ? "slice" : nil, inputZero != 0 ? "zero \(inputZero)" : nil, weightBits < 8 ? "\(weightBits)-bit" : nil,
            ]
            return "\(cin)→\(cout) k\(k) s\(stride) \(height)×\(width) " + options.compactMap { $0 }.joined(separator: " ")
        }

        static func random(_ index: UInt64) -> ConvCase {
            var random = SeededRandom(seed: SeededRandom.mix(index ^ 0x1A7E_8C0D))
            let k = [1, 3, 7][random.integer(0...2)]
            // 3 is the stem's (padded to 4); multiples of 4; and any other count.
            let cin = [3, 4 * random.integer(1...12), random.integer(1...24)][random.integer(0...2)]
            var spec = ConvCase(
                cin: k == 7 ? min(cin, 16) : cin, cout: random.integer(1...150), k: k, stride: random.integer(1...2),
                height: random.integer(1...9), width: random.integer(1...13))
            spec.relu = random.chance(0.5)
            spec.residual = random.chance(0.4)
            spec.u8 = random.chance(0.7)
            spec.f32 = random.chance(0.4)
            spec.s32 = random.chance(0.8) || !(spec.u8 || spec.f32)
            spec.slice = random.chance(0.4)
            spec.inputZero = random.chance(0.5) ? 0 : random.integer(1...255)
            spec.seed = random.next()
            return spec
        }
    }

    /// The network's kinds of layer on small maps, the edges of the blocks, then random draws.
    static let convolutionCases: [ConvCase] = {
        var stem = ConvCase(cin: 3, cout: 64, k: 7, stride: 2, height: 9, width: 13)
        stem.relu = true
        var residual = ConvCase(cin: 64, cout: 64, k: 3, stride: 1, height: 7, width: 9)
        (residual.relu, residual.residual, residual.slice, residual.f32) = (true, true, true, true)
        var down = ConvCase(cin: 32, cout: 130, k: 3, stride: 2, height: 9, width: 13)
        (down.relu, down.inputZero) = (true, 128)
        let downsample = ConvCase(cin: 64, cout: 128, k: 1, stride: 2, height: 8, width: 13)
        var head = ConvCase(cin: 192, cout: 120, k: 1, stride: 1, height: 5, width: 7)
        (head.u8, head.f32, head.s32, head.slice) = (false, true, false, true)
        var headAccumulators = head
        headAccumulators.s32 = true
        let narrow16 = ConvCase(cin: 8, cout: 16, k: 3, stride: 1, height: 4, width: 5)
        let narrow24 = ConvCase(cin: 12, cout: 24, k: 3, stride: 2, height: 5, width: 7)
        let single3 = ConvCase(cin: 20, cout: 70, k: 3, stride: 1, height: 1, width: 1)
        var single7 = ConvCase(cin: 4, cout: 33, k: 7, stride: 2, height: 1, width: 1)
        single7.inputZero = 200
        let named = [stem, residual, down, downsample, head, headAccumulators, narrow16, narrow24, single3, single7]
        return named + (0..<40).map { ConvCase.random($0) }
    }()

    /// Weights, input and epilogue parameters of a case, with the Swift references.
    final class ConvFixture {
        let spec: ConvCase
        /// PyTorch layout `[cout][cin][k][k]`.
        let weights: [Int8]
        let input: ByteTensor
        let residual: ByteTensor?
        let scale: [Float], bias: [Float]
        let residualScale: Float, residualZero: Int, outputInverseScale: Float, outputZero: Int

        /// Random data, or every weight of output channel o from `weight(o)` and every input byte
        /// (border included, through the zero point) `inputValue`.
        init(_ spec: ConvCase, weight: ((Int) -> Int8)? = nil, inputValue: UInt8? = nil) {
            self.spec = spec
            var random = SeededRandom(seed: spec.seed)
            let count = spec.cout * spec.cin * spec.k * spec.k
            let perChannel = spec.cin * spec.k * spec.k
            let half = 1 << (spec.weightBits - 1), range = -half...half - 1
            weights = (0..<count).map { weight?($0 / perChannel) ?? Int8(truncatingIfNeeded: random.integer(range)) }
            // A slice input: extra bytes around the channels, which the kernels must not read.
            let input = ByteTensor(
                height: spec.height, width: spec.width, channels: spec.cin4, border: spec.pad + random.integer(0...1),
                pixelStride: spec.cin4 + (spec.slice ? 3 : 0), offset: spec.slice ? 2 : 0, fill: inputValue ?? 0)
            // Padding channels (cin…cin4) keep random values: their weights are zero.
            if inputValue == nil { input.randomize(&random) }
            pq_fill_border(input.view, UInt8(spec.inputZero))
            self.input = input
            if spec.residual {
                let tensor = ByteTensor(
                    height: spec.outHeight, width: spec.outWidth, channels: spec.cout, border: random.integer(0...1),
                    pixelStride: spec.cout + (spec.slice ? 5 : 0), offset: spec.slice ? 1 : 0, fill: 0)
                tensor.randomize(&random)
                residual = tensor
            } else {
                residual = nil
            }
            // Scales that spread the outputs over the byte range, with some saturating.
            let typical = Float(Double(perChannel).squareRoot() * 128 * 128)
            scale = (0..<spec.cout).map { _ in Float(random.uniform(0.5, 2)) * 96 / typical }
            bias = (0..<spec.cout).map { _ in Float(random.uniform(-20, 20)) }
            residualScale = Float(random.uniform(0.1, 0.5))
            residualZero = random.integer(0...255)
            outputInverseScale = Float(random.uniform(0.5, 1.5))
            outputZero = random.integer(0...160)
        }

        var weightSums: [Int32] {
            let perChannel = spec.cin * spec.k * spec.k
            return (0..<spec.cout).map { o in Int32(weights[o * perChannel..<(o + 1) * perChannel].reduce(0) { $0 + Int($1) }) }
        }

        /// The header's acc, `[outHeight·outWidth][cout]`, reading the zero point outside the input.
        func referenceAccumulators() -> [Int32] {
            let s = spec
            var out = [Int32](repeating: 0, count: s.outHeight * s.outWidth * s.cout)
            for y in 0..<s.outHeight {
                for x in 0..<s.outWidth {
                    for o in 0..<s.cout {
                        var acc = 0
                        for c in 0..<s.cin {
                            for ky in 0..<s.k {
                                let iy = y * s.stride - s.pad + ky
                                for kx in 0..<s.k {
                                    let ix = x * s.stride - s.pad + kx
                                    let inside = iy >= 0 && iy < s.height && ix >= 0 && ix < s.width
                                    let value = inside ? Int(input[iy, ix, c]) : s.inputZero
                                    acc += Int(weights[((o * s.cin + c) * s.k + ky) * s.k + kx]) * value
                                }
                            }
                        }
                        out[(y * s.outWidth + x) * s.cout + o] = Int32(acc)
                    }
                }
            }
            return out
        }

        /// The header's epilogue of `accumulators`: u8 outputs and f32 bit patterns, pixel-major.
        func referenceOutputs(_ accumulators: [Int32]) -> (u8: [UInt8], f32: [UInt32]) {
            let s = spec, sums = weightSums
            var u8: [UInt8] = [], f32: [UInt32] = []
            for y in 0..<s.outHeight {
                for x in 0..<s.outWidth {
                    for o in 0..<s.cout {
                        let acc = accumulators[(y * s.outWidth + x) * s.cout + o]
                        var v = bias[o].addingProduct(Float(acc - Int32(s.inputZero) * sums[o]), scale[o])
                        if let residual {
                            v = v.addingProduct(Float(Int(residual[y, x, o]) - residualZero), residualScale)
                        }
                        if s.relu { v = v > 0 ? v : 0 }
                        u8.append(quantize(v * outputInverseScale, outputZero))
                        f32.append(v.bitPattern)
                    }
                }
            }
            return (u8, f32)
        }

        /// What one path wrote, and whether everything it must not write is intact.
        struct Outputs {
            var u8: [UInt8], f32: [UInt32], s32: [Int32]
            var intact: Bool
        }

        static let byteCanary: UInt8 = 0xA5
        static let floatCanary = Float(bitPattern: 0x7FC0_1234)
        static let intCanary = Int32.min + 12345

        /// Runs `path` on output rows `rows` and blocks `blocks` (all by default) as 4 calls split at
        /// `rowSplit` and `blockSplit`, like disjoint ranges of different workers.
        func run(
            _ path: Path, rowSplit: Int? = nil, blockSplit: Int? = nil, rows: Range<Int>? = nil,
            blocks: Range<Int>? = nil
        ) -> Outputs {
            let s = spec, isa = path.isa
            let packed = Buffer<UInt8>(
                count: Int(pq_packed_size(isa, Int32(s.cout), Int32(s.cin), Int32(s.k))), repeating: 0xEE)
            let sums = Buffer<Int32>(count: s.cout, repeating: 0)
            weights.withUnsafeBufferPointer {
                pq_pack_weights(isa, $0.baseAddress, Int32(s.cout), Int32(s.cin), Int32(s.k), packed.pointer, sums.pointer)
            }
            let compensation = Buffer<Int32>(count: s.cout, repeating: 0)
            for o in 0..<s.cout { compensation[o] = Int32(s.inputZero) * sums[o] }
            let scales = Buffer<Float>(count: s.cout, repeating: 0), biases = Buffer<Float>(count: s.cout, repeating: 0)
            for o in 0..<s.cout { (scales[o], biases[o]) = (scale[o], bias[o]) }

            let pixels = s.outHeight * s.outWidth
            let output = ByteTensor(
                height: s.outHeight, width: s.outWidth, channels: s.cout, border: 1,
                pixelStride: s.cout + (s.slice ? 7 : 0), offset: s.slice ? 3 : 0, fill: Self.byteCanary)
            let f32Stride = s.cout + (s.slice ? 3 : 0)
            let f32 = Buffer<Float>(count: pixels * f32Stride + 8, repeating: Self.floatCanary)
            let s32 = Buffer<Int32>(count: pixels * s.cout + 8, repeating: Self.intCanary)

            var conv = pq_conv()
            conv.cin = Int32(s.cin)
            conv.cout = Int32(s.cout)
            conv.k = Int32(s.k)
            conv.stride = Int32(s.stride)
            conv.pad = Int32(s.pad)
            conv.packed = UnsafeRawPointer(packed.pointer)
            conv.compensation = UnsafePointer(compensation.pointer)
            conv.scale = UnsafePointer(scales.pointer)
            conv.bias = UnsafePointer(biases.pointer)
            if let residual { conv.residual = residual.view }
            conv.residual_scale = residualScale
            conv.residual_zero = Int32(residualZero)
            conv.relu = s.relu ? 1 : 0
            if s.u8 { conv.output = output.view }
            conv.output_inverse_scale = outputInverseScale
            conv.output_zero = Int32(outputZero)
            if s.f32 { conv.out_f32 = f32.pointer }
            conv.out_f32_stride = Int32(f32Stride)
            if s.s32 { conv.out_s32 = s32.pointer }
            conv.out_height = Int32(s.outHeight)
            conv.out_width = Int32(s.outWidth)

            let rows = rows ?? 0..<s.outHeight
            let blocks = blocks ?? 0..<(s.cout + path.block - 1) / path.block
            let rowSplit = min(max(rowSplit ?? rows.lowerBound, rows.lowerBound), rows.upperBound)
            let blockSplit = min(max(blockSplit ?? blocks.lowerBound, blocks.lowerBound), blocks.upperBound)
            for (r0, r1) in [(rows.lowerBound, rowSplit), (rowSplit, rows.upperBound)] {
                for (b0, b1) in [(blocks.lowerBound, blockSplit), (blockSplit, blocks.upperBound)] where r0 < r1 && b0 < b1 {
                    pq_conv_run(isa, &conv, input.view, Int32(r0), Int32(r1), Int32(b0), Int32(b1))
                }
            }

            // The region these calls own: real channels of the blocks' range, pixels of the rows'.
            let channels = blocks.lowerBound * path.block..<min(blocks.upperBound * path.block, s.cout)
            var byteMask = [Bool](repeating: false, count: output.storage.count)
            var floatMask = [Bool](repeating: false, count: f32.count), intMask = [Bool](repeating: false, count: s32.count)
            var result = Outputs(u8: [], f32: [], s32: [], intact: true)
            for y in rows {
                for x in 0..<s.outWidth {
                    let pixel = y * s.outWidth + x
                    for o in channels {
                        byteMask[output.index(y, x, o)] = s.u8
                        floatMask[pixel * f32Stride + o] = s.f32
                        intMask[pixel * s.cout + o] = s.s32
                        result.u8.append(output[y, x, o])
                        result.f32.append(f32[pixel * f32Stride + o].bitPattern)
                        result.s32.append(s32[pixel * s.cout + o])
                    }
                }
            }
            result.intact =
                output.untouched(outside: byteMask, canary: Self.byteCanary)
                && (0..<f32.count).allSatisfy { floatMask[$0] || f32[$0].bitPattern == Self.floatCanary.bitPattern }
                && (0..<s32.count).allSatisfy { intMask[$0] || s32[$0] == Self.intCanary }
            withExtendedLifetime((packed, compensation, scales, biases, residual)) {}
            return result
        }
    }

    // MARK: - Convolution tests

    @Test func packedSizesAndWeightSums() {
        for path in Path.allCases {
            let block = path == .avx512VNNI ? 64 : 16
            #expect(path.block == block)
            let values = ((120 + block - 1) / block * block) * 9 * 196
            // The signed NEON paths' 128·Σw per channel of the padded blocks follows the weights.
            let correction = [.neon, .neonDotprod].contains(path) ? 128 * 4 : 0
            #expect(pq_packed_size(path.isa, 120, 193, 3) == values * (path == .avx2 ? 2 : 1) + correction)
        }
        let fixture = ConvFixture(ConvCase(cin: 5, cout: 20, k: 3, stride: 1, height: 2, width: 2))
        for path in Self.paths {
            let size = Int(pq_packed_size(path.isa, 20, 5, 3))
            let packed = Buffer<UInt8>(count: size, repeating: 0xEE), sums = Buffer<Int32>(count: 20, repeating: 0)
            fixture.weights.withUnsafeBufferPointer { pq_pack_weights(path.isa, $0.baseAddress, 20, 5, 3, packed.pointer, sums.pointer) }
            #expect(sums.array == fixture.weightSums, "\(path)")
        }
    }

    /// The naive C path is the definition written out: its accumulators and epilogue equal the
    /// Swift reference's bit for bit.
    @Test(arguments: convolutionCases)
    func naivePathMatchesTheSwiftReference(_ spec: ConvCase) {
        let fixture = ConvFixture(spec)
        let accumulators = fixture.referenceAccumulators()
        let (u8, f32) = fixture.referenceOutputs(accumulators)
        let out = fixture.run(.naive, rowSplit: spec.outHeight / 2, blockSplit: 1)
        #expect(out.intact)
        if spec.s32 { #expect(out.s32 == accumulators) }
        if spec.u8 { #expect(out.u8 == u8) }
        if spec.f32 { #expect(out.f32 == f32) }
    }

    /// Every vector path: accumulators equal the Swift reference's, outputs the naive path's, bit for bit.
    @Test(arguments: vectorPaths, convolutionCases)
    func vectorPathMatchesReferences(_ path: Path, _ spec: ConvCase) {
        var spec = spec
        spec.weightBits = path.weightBits
        let fixture = ConvFixture(spec)
        let blocks = (spec.cout + path.block - 1) / path.block
        let out = fixture.run(
            path, rowSplit: Int(spec.seed % UInt64(spec.outHeight + 1)),
            blockSplit: Int((spec.seed >> 32) % UInt64(blocks + 1)))
        let naive = fixture.run(.naive)
        #expect(out.intact)
        if spec.s32 { #expect(out.s32 == fixture.referenceAccumulators()) }
        if spec.u8 { #expect(out.u8 == naive.u8) }
        if spec.f32 { #expect(out.f32 == naive.f32) }
    }

    /// The largest reduction of the network (cin·k·k = 512·9 = 4608) with every input 255 and every
    /// weight −128 or 127: ±1.5·10⁸, exact, also through the AVX2 path's s16 pairs.
    @Test(arguments: wideWeightPaths)
    func extremeAccumulatorsAreExact(_ path: Path) {
        var spec = ConvCase(cin: 512, cout: 70, k: 3, stride: 1, height: 3, width: 5)
        (spec.inputZero, spec.relu, spec.f32) = (255, false, true)
        let fixture = ConvFixture(spec, weight: { $0 % 2 == 0 ? -128 : 127 }, inputValue: 255)
        let out = fixture.run(path)
        let expected = (0..<spec.outHeight * spec.outWidth).flatMap { _ in
            (0..<spec.cout).map { Int32($0 % 2 == 0 ? -128 * 255 * 4608 : 127 * 255 * 4608) }
        }
        #expect(out.s32 == expected)
        #expect(out.intact)
        let reference = fixture.referenceOutputs(expected)
        #expect(out.u8 == reference.u8)
        #expect(out.f32 == reference.f32)
    }

    /// The extremes of 7- and 6-bit weights: every input 255 and every weight −64 or 63 (−32 or
    /// 31), so that vpmaddubsw's s16 pair sums reach 2·255·(−64) = −32640 (and two 6-bit pairs added
    /// in s16 4·255·(−32) = −32640), the most they hold without saturating or wrapping; exact on
    /// every path exact on those weights. Odd group counts (cin 4, 20) run the 6-bit kernel's lone
    /// last group.
    @Test(arguments: paths)
    func narrowWeightExtremesAreExact(_ path: Path) {
        for bits in [6, 7] where bits <= path.weightBits {
            let (low, high) = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
            for (cin, k) in [(512, 3), (256, 1), (4, 7), (20, 3)] {
                var spec = ConvCase(cin: cin, cout: 37, k: k, stride: 1, height: 3, width: 7)
                (spec.inputZero, spec.relu, spec.f32, spec.weightBits) = (255, false, true, bits)
                let fixture = ConvFixture(spec, weight: { Int8($0 % 3 == 1 ? high : low) }, inputValue: 255)
                let out = fixture.run(path)
                let reduction = cin * k * k
                let expected = (0..<spec.outHeight * spec.outWidth).flatMap { _ in
                    (0..<spec.cout).map { Int32(($0 % 3 == 1 ? high : low) * 255 * reduction) }
                }
                #expect(out.s32 == expected, "\(bits)-bit \(cin) k\(k)")
                #expect(out.intact)
                let reference = fixture.referenceOutputs(expected)
                #expect(out.u8 == reference.u8)
                #expect(out.f32 == reference.f32)
            }
        }
    }

    /// Random 6- and 7-bit weights: every vector path's accumulators and outputs equal the naive
    /// path's on the network's kinds of layer.
    @Test(arguments: vectorPaths, [6, 7])
    func narrowWeightsMatchTheNaivePath(_ path: Path, _ bits: Int) {
        for var spec in Self.convolutionCases.prefix(10) where bits <= path.weightBits {
            spec.weightBits = bits
            let fixture = ConvFixture(spec)
            let out = fixture.run(path, rowSplit: spec.outHeight / 2, blockSplit: 1)
            let naive = fixture.run(.naive)
            #expect(out.intact, "\(spec)")
            if spec.s32 { #expect(out.s32 == fixture.referenceAccumulators(), "\(spec)") }
            if spec.u8 { #expect(out.u8 == naive.u8, "\(spec)") }
            if spec.f32 { #expect(out.f32 == naive.f32, "\(spec)") }
        }
    }

    /// The loader's choice on AVX2: a layer whose weights all lie in −32…31 runs the 6-bit kernel,
    /// within −64…63 the 7-bit one, and one with a single weight outside (older 8-bit files) keeps
    /// the exact vpmaddwd kernel; other instruction sets keep their own.
    @Test(arguments: [
        (Int8(-32), Int8(31), 6), (-31, 31, 6), (-33, 0, 7), (0, 32, 7), (-64, 63, 7), (-65, 0, 8), (0, 64, 8), (-127, 127, 8),
    ])
    func wideWeightsFallBackToTheExactAVX2Kernel(_ low: Int8, _ high: Int8, _ bits: Int) {
        var weights = [Int8](repeating: 3, count: 16 * 8 * 9)
        (weights[5], weights[700]) = (low, high)
        let conv = QuantizedConvolution(
            name: "test", inChannels: 8, outChannels: 16, kernelSize: 3, stride: 1, padding: 1, weights: weights,
            weightScales: [Float](repeating: 0.01, count: 16), bias: [Float](repeating: 0, count: 16))
        let quantization = ActivationQuantization(scale: 0.1, zeroPoint: 3)
        let avx2 = Int8Convolution(conv, isa: .avx2, input: quantization)
        #expect(avx2.kernel == [6: PQ_ISA_AVX2_MADDUBS6, 7: PQ_ISA_AVX2_MADDUBS, 8: PQ_ISA_AVX2][bits])
        for isa in [Int8ISA.naive, .avxVNNI, .avx512VNNI] {
            #expect(Int8Convolution(conv, isa: isa, input: quantization).kernel == isa.kernel)
        }
    }

    /// A worker's range writes its rows and blocks only: padding channels of the last block, other
    /// rows and blocks, the border and the slice's other channels keep their canaries.
    @Test(arguments: paths)
    func rangesWriteOnlyTheirRegion(_ path: Path) {
        var spec = ConvCase(cin: 8, cout: 2 * path.block + 5, k: 3, stride: 1, height: 5, width: 7)
        (spec.residual, spec.relu, spec.f32, spec.slice, spec.weightBits) = (true, true, true, true, path.weightBits)
        let fixture = ConvFixture(spec)
        let full = fixture.run(.naive)
        // run() checks the canaries outside its region; the values inside are the full run's.
        for (rows, blocks) in [(1..<3, 1..<3), (0..<5, 2..<3), (4..<5, 0..<1)] {
            let out = fixture.run(path, rows: rows, blocks: blocks)
            #expect(out.intact, "rows \(rows) blocks \(blocks)")
            var expected: [Int32] = []
            for y in rows {
                for x in 0..<spec.outWidth {
                    for o in blocks.lowerBound * path.block..<min(blocks.upperBound * path.block, spec.cout) {
                        expected.append(full.s32[(y * spec.outWidth + x) * spec.cout + o])
                    }
                }
            }
            #expect(out.s32 == expected, "rows \(rows) blocks \(blocks)")
        }
    }

    // MARK: - Elementwise kernels

    /// Strided pixels (the general loop) and dense 4-byte pixels (the image's one-word-per-pixel loop).
    @Test(arguments: [(pixelStride: 6, offset: 1), (pixelStride: 4, offset: 0)])
    func quantizePlanarRoundsHalfToEvenAndSaturates(layout: (pixelStride: Int, offset: Int)) {
        var random = SeededRandom(seed: 41)
        let (channels, height, width) = (3, 5, 19)
        // Halves (ties to even), the ±1024 clamp's neighbourhood and saturating values.
        let specials: [Float] = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 1023.5, 1024, 1024.5, -1024.5, 3e9, -3e9, 126.5, 127.5]
        let values = (0..<channels * height * width).map { i in
            i < specials.count ? specials[i] * 2 : Float(random.uniform(-300, 300))
        }
        let inverse: Float = 0.5, zero = 77
        let output = ByteTensor(
            height: height, width: width, channels: 4, border: 1, pixelStride: layout.pixelStride, offset: layout.offset, fill: 0xA5)
        values.withUnsafeBufferPointer { input in
            pq_quantize_planar(input.baseAddress, Int32(channels), Int32(height), Int32(width), inverse, Int32(zero), output.view, 0, 2)
            pq_quantize_planar(input.baseAddress, Int32(channels), Int32(height), Int32(width), inverse, Int32(zero), output.view, 2, Int32(height))
        }
        var expected: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<4 {
                    expected.append(c < channels ? Self.quantize(values[(c * height + y) * width + x] * inverse, zero) : UInt8(zero))
                }
            }
        }
        #expect(output.interior == expected)
        #expect(output.untouched(outside: output.interiorMask(), canary: 0xA5))
    }

    @Test func dequantizePlanarIsScaleTimesDifference() {
        var random = SeededRandom(seed: 42)
        let input = ByteTensor(height: 4, width: 6, channels: 5, border: 1, pixelStride: 8, offset: 2, fill: 0)
        input.randomize(&random)
        let scale: Float = 0.0371, zero = 101
        var output = [Float](repeating: .nan, count: 5 * 4 * 6)
        output.withUnsafeMutableBufferPointer { pq_dequantize_planar(input.view, scale, Int32(zero), $0.baseAddress) }
        for c in 0..<5 {
            for y in 0..<4 {
                for x in 0..<6 {
                    #expect(output[(c * 4 + y) * 6 + x].bitPattern == (scale * Float(Int(input[y, x, c]) - zero)).bitPattern)
                }
            }
        }
    }

    @Test(arguments: [(4, 4, 0), (4, 9, 3), (12, 12, 0)])
    func fillBorderWritesOnlyTheBorderOfItsChannels(_ channels: Int, _ pixelStride: Int, _ offset: Int) {
        for border in 1...3 {
            let t = ByteTensor(height: 3, width: 5, channels: channels, border: border, pixelStride: pixelStride, offset: offset, fill: 0xA5)
            pq_fill_border(t.view, 9)
            for y in -border..<3 + border {
                for x in -border..<5 + border {
                    let inside = y >= 0 && y < 3 && x >= 0 && x < 5
                    for c in 0..<channels {
                        #expect(t[y, x, c] == (inside ? 0xA5 : 9), "border \(border) (\(y), \(x), \(c))")
                    }
                }
            }
            // Bytes of other slices never change.
            #expect(t.untouched(outside: borderMask(t), canary: 0xA5))
        }
    }

    /// Whether each storage byte is channel 0..<channels of a border pixel.
    private func borderMask(_ t: ByteTensor) -> [Bool] {
        var mask = [Bool](repeating: false, count: t.storage.count)
        for y in -t.border..<t.height + t.border {
            for x in -t.border..<t.width + t.border where !(y >= 0 && y < t.height && x >= 0 && x < t.width) {
                for c in 0..<t.channels { mask[t.index(y, x, c)] = true }
            }
        }
        return mask
    }

    @Test(arguments: [(5, 7), (8, 16), (1, 1), (41, 80)])
    func maxPoolTakesTheWindowMaximum(_ height: Int, _ width: Int) {
        var random = SeededRandom(seed: UInt64(height * 100 + width))
        let input = ByteTensor(height: height, width: width, channels: 24, border: 1, fill: 0)
        input.randomize(&random)
        pq_fill_border(input.view, 0)
        let (oh, ow) = ((height + 1) / 2, (width + 1) / 2)
        let output = ByteTensor(height: oh, width: ow, channels: 24, border: 1, pixelStride: 26, fill: 0xA5)
        pq_max_pool_3x3s2(input.view, output.view, 0, Int32(oh / 2))
        pq_max_pool_3x3s2(input.view, output.view, Int32(oh / 2), Int32(oh))
        var expected: [UInt8] = []
        for y in 0..<oh {
            for x in 0..<ow {
                for c in 0..<24 {
                    var m: UInt8 = 0
                    for iy in 2 * y - 1...2 * y + 1 where iy >= 0 && iy < height {
                        for ix in 2 * x - 1...2 * x + 1 where ix >= 0 && ix < width { m = max(m, input[iy, ix, c]) }
                    }
                    expected.append(m)
                }
            }
        }
        #expect(output.interior == expected)
        #expect(output.untouched(outside: output.interiorMask(), canary: 0xA5))
    }

    @Test(arguments: [false, true])
    func addUpsampledMatchesTheFormula(_ inPlace: Bool) {
        var random = SeededRandom(seed: inPlace ? 7 : 8)
        let (height, width, channels) = (5, 7, 20)
        let a = ByteTensor(height: height, width: width, channels: channels, border: 1, fill: 0)
        let b = ByteTensor(height: 3, width: 4, channels: channels, border: 1, pixelStride: 24, fill: 0)
        a.randomize(&random)
        b.randomize(&random)
        let (aScale, aZero, bScale, bZero, inverse, zero): (Float, Int, Float, Int, Float, Int) = (0.031, 12, 0.057, 140, 9.3, 60)
        var expected: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<channels {
                    let v = Float(Int(a[y, x, c]) - aZero) * aScale + Float(Int(b[y / 2, x / 2, c]) - bZero) * bScale
                    expected.append(Self.quantize(v * inverse, zero))
                }
            }
        }
        let out = inPlace ? a : ByteTensor(height: height, width: width, channels: channels, border: 2, fill: 0xA5)
        for rows in [0..<2, 2..<height] {
            pq_add_upsampled2x(
                a.view, aScale, Int32(aZero), b.view, bScale, Int32(bZero), out.view, inverse, Int32(zero),
                Int32(rows.lowerBound), Int32(rows.upperBound))
        }
        #expect(out.interior == expected)
        if !inPlace { #expect(out.untouched(outside: out.interiorMask(), canary: 0xA5)) }
    }

    @Test func resizeBilinearMatchesTheFormula() {
        var random = SeededRandom(seed: 9)
        let input = ByteTensor(height: 6, width: 9, channels: 17, border: 0, fill: 0)
        input.randomize(&random)
        let (oh, ow) = (4, 13)
        let rows = (0..<2 * oh).map { _ in Int32(random.integer(0...5)) }, columns = (0..<2 * ow).map { _ in Int32(random.integer(0...8)) }
        let rowWeights = (0..<2 * oh).map { _ in Float(random.uniform(0, 1)) }
        let columnWeights = (0..<2 * ow).map { _ in Float(random.uniform(0, 1)) }
        let (inScale, inZero, inverse, zero): (Float, Int, Float, Int) = (0.043, 30, 11.7, 20)
        let output = ByteTensor(height: oh, width: ow, channels: 17, border: 1, pixelStride: 19, offset: 1, fill: 0xA5)
        for range in [0..<1, 1..<oh] {
            pq_resize_bilinear(
                input.view, inScale, Int32(inZero), output.view, inverse, Int32(zero), rows, rowWeights, columns,
                columnWeights, Int32(range.lowerBound), Int32(range.upperBound))
        }
        var expected: [UInt8] = []
        for y in 0..<oh {
            let (y0, y1, r0, r1) = (Int(rows[2 * y]), Int(rows[2 * y + 1]), rowWeights[2 * y], rowWeights[2 * y + 1])
            for x in 0..<ow {
                let (x0, x1) = (Int(columns[2 * x]), Int(columns[2 * x + 1]))
                let (c0, c1) = (columnWeights[2 * x], columnWeights[2 * x + 1])
                for c in 0..<17 {
                    func p(_ i: Int, _ j: Int) -> Float { Float(Int(input[i, j, c]) - inZero) * inScale }
                    let v = r0 * (c0 * p(y0, x0) + c1 * p(y0, x1)) + r1 * (c0 * p(y1, x0) + c1 * p(y1, x1))
                    expected.append(Self.quantize(v * inverse, zero))
                }
            }
        }
        #expect(output.interior == expected)
        #expect(output.untouched(outside: output.interiorMask(), canary: 0xA5))
    }

    @Test func gatherBEVCopiesVisibleFeaturesAndFillsTheRest() {
        var random = SeededRandom(seed: 10)
        let features = ByteTensor(height: 5, width: 7, channels: 6, border: 1, pixelStride: 8, offset: 1, fill: 0)
        features.randomize(&random)
        let depth = 3, (bevHeight, bevWidth) = (4, 5), pixels = 20
        let lut = (0..<pixels * depth).map { _ in Int32(random.integer(0...34)) }
        let visible = (0..<pixels * depth).map { _ in UInt8(random.chance(0.7) ? 1 : 0) }
        let output = ByteTensor(height: bevHeight, width: bevWidth, channels: depth * 6, border: 1, fill: 0xA5)
        pq_gather_bev(features.view, lut, visible, Int32(depth), 3, output.view, 0, 7)
        pq_gather_bev(features.view, lut, visible, Int32(depth), 3, output.view, 7, Int32(pixels))
        var expected: [UInt8] = []
        for p in 0..<pixels {
            for z in 0..<depth {
                let entry = p * depth + z, source = Int(lut[entry])
                for c in 0..<6 { expected.append(visible[entry] != 0 ? features[source / 7, source % 7, c] : 3) }
            }
        }
        #expect(output.interior == expected)
        #expect(output.untouched(outside: output.interiorMask(), canary: 0xA5))
    }
}
