import Foundation
import PeripheryTestSupport
import Testing

@testable import PeripheryCore
@testable import PeripheryGeometry
@testable import PeripheryIO
@testable import PeripheryInference

/// Fixtures made by tools/make_preprocess_fixture.py (Pillow LANCZOS reference).
private let preprocessFixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Fixtures/preprocess")

/// One entry of cases.json.
private struct PreprocessCase: Decodable, CustomTestStringConvertible {
    struct Crop: Decodable {
        let x, y, width, height, scaledWidth, scaledHeight, offsetX, offsetY: Int
    }

    let name: String
    let fx, fy, cx, cy: Double
    let width, height: Int
    let frameRows: [Int]
    let crop: Crop
    let expected: String

    var testDescription: String { name }

    static let all: [PreprocessCase] = {
        struct File: Decodable { let cases: [PreprocessCase] }
        do {
            let data = try Data(contentsOf: preprocessFixtures.appendingPathComponent("cases.json"))
            return try JSONDecoder().decode(File.self, from: data).cases
        } catch {
            Issue.record("cannot read cases.json: \(error)")
            return []
        }
    }()

    /// The case's frame: rows `frameRows` of frame.png.
    func frame() throws -> RGBImage {
        let full = try ImageFile.read(path: preprocessFixtures.appendingPathComponent("frame.png").path)
        let row = full.width * 3
        let pixels = Array(full.pixels[frameRows[0] * row..<frameRows[1] * row])
        return try #require(RGBImage(width: full.width, height: frameRows[1] - frameRows[0], pixels: pixels))
    }

    func focalMatchedCrop() throws -> FocalMatchedCrop {
        try FocalMatchedCrop(intrinsics: CameraIntrinsics(fx: fx, fy: fy, cx: cx, cy: cy, width: width, height: height))
    }
}

/// The same picture as BGRA8 rows padded to `rowStride` bytes (padding and alpha set to junk).
private func bgra(_ image: RGBImage, rowStride: Int) throws -> FramePixels {
    var bytes = [UInt8](repeating: 0xA5, count: rowStride * image.height)
    for y in 0..<image.height {
        for x in 0..<image.width {
            let p = image[x, y], o = y * rowStride + x * 4
            bytes[o] = p.z
            bytes[o + 1] = p.y
            bytes[o + 2] = p.x
            bytes[o + 3] = UInt8(truncatingIfNeeded: x &* 31 &+ y)
        }
    }
    return try FramePixels(width: image.width, height: image.height, rowStride: rowStride, format: .bgra8, bytes: bytes)
}

/// The tensor a fresh preprocessor makes of one frame, copied out of the preprocessor's buffer.
private func tensor(_ frame: FramePixels, crop: FocalMatchedCrop) -> [Float] {
    let preprocessor = Preprocessor()
    preprocessor.process(frame, crop: crop)
    return preprocessor.tensor
}

private func tensor(_ image: RGBImage, crop: FocalMatchedCrop) throws -> [Float] {
    tensor(try FramePixels(image), crop: crop)
}

/// Pillow's 8-bit resize as its plain scalar loops (`ImagingResampleHorizontal_8bpc`, then
/// `ImagingResampleVertical_8bpc`): planar R, G, B bytes of the `width × height` crop at (`x`, `y`)
/// resized to `outWidth × outHeight`; crop pixels outside the frame read the nearest frame pixel.
private func pillowResize(_ frame: FramePixels, x: Int, y: Int, width: Int, height: Int, outWidth: Int, outHeight: Int) -> [UInt8] {
    let h = ResampleTaps(inSize: width, outSize: outWidth), v = ResampleTaps(inSize: height, outSize: outHeight)
    let offsets = frame.format.channelOffsets, channels = [offsets.red, offsets.green, offsets.blue]
    func clip(_ sum: Int32) -> UInt8 { UInt8(clamping: sum >> ResampleTaps.precisionBits) }
    var rows = [UInt8](repeating: 0, count: 3 * height * outWidth)
    for row in v.span {
        let line = min(max(y + row, 0), frame.height - 1) * frame.rowStride
        for c in 0..<3 {
            for i in 0..<outWidth {
                var sum = ResampleTaps.bias
                for k in 0..<h.count[i] {
                    let column = min(max(x + h.first[i] + k, 0), frame.width - 1)
                    sum &+= Int32(frame.bytes[line + column * frame.format.bytesPerPixel + channels[c]]) &* h.weights[i * h.stride + k]
                }
                rows[(c * height + row) * outWidth + i] = clip(sum)
            }
        }
    }
    var out = [UInt8](repeating: 0, count: 3 * outHeight * outWidth)
    for c in 0..<3 {
        for j in 0..<outHeight {
            for i in 0..<outWidth {
                var sum = ResampleTaps.bias
                for k in 0..<v.count[j] {
                    sum &+= Int32(rows[(c * height + v.first[j] + k) * outWidth + i]) &* v.weights[j * v.stride + k]
                }
                out[(c * outHeight + j) * outWidth + i] = clip(sum)
            }
        }
    }
    return out
}

@Suite struct PreprocessorTests {
    /// Split over threads, the resize gives the same bytes as on one (bands of rows, same arithmetic).
    @Test(arguments: PreprocessCase.all, [2, 3])
    fileprivate func threadsGiveTheSameTensor(_ test: PreprocessCase, threads: Int) throws {
        let crop = try test.focalMatchedCrop(), frame = try FramePixels(test.frame())
        let split = Preprocessor(threads: threads)
        split.process(frame, crop: crop)
        #expect(split.tensor == tensor(frame, crop: crop))
    }

    @Test(arguments: PreprocessCase.all)
    fileprivate func matchesPillowLanczos(_ test: PreprocessCase) throws {
        let crop = try test.focalMatchedCrop()
        let c = test.crop
        let got: [Int] = [crop.x, crop.y, crop.width, crop.height, crop.scaledWidth, crop.scaledHeight, crop.offsetX, crop.offsetY]
        let want: [Int] = [c.x, c.y, c.width, c.height, c.scaledWidth, c.scaledHeight, c.offsetX, c.offsetY]
        #expect(got == want)

        let expected = try ImageFile.read(path: preprocessFixtures.appendingPathComponent(test.expected).path)
        #expect(expected.width == crop.scaledWidth && expected.height == crop.scaledHeight)
        let output = try tensor(test.frame(), crop: crop)
        #expect(output.count == 3 * 256 * 512)

        let mean = ImageNormalization.mean, std = ImageNormalization.std
        var absolute = 0.0, worst: Float = 0, inside = 0, paddingNonZero = 0, differing = 0
        for ch in 0..<3 {
            for y in 0..<256 {
                for x in 0..<512 {
                    let v = output[(ch * 256 + y) * 512 + x]
                    let ex = x - crop.offsetX, ey = y - crop.offsetY
                    if ex >= 0, ex < crop.scaledWidth, ey >= 0, ey < crop.scaledHeight {
                        let pillow = Float(expected.pixels[(ey * expected.width + ex) * 3 + ch])
                        let d = abs(v * std[ch] + mean[ch] - pillow)
                        absolute += Double(d)
                        worst = max(worst, d)
                        if (v * std[ch] + mean[ch]).rounded() != pillow { differing += 1 }
                        inside += 1
                    } else if v != 0 {
                        paddingNonZero += 1
                    }
                }
            }
        }
        let mad = absolute / Double(inside)
        print(
            "preprocess \(test.name): crop \(crop.width)×\(crop.height) at (\(crop.x), \(crop.y)) → "
                + "\(crop.scaledWidth)×\(crop.scaledHeight) at (\(crop.offsetX), \(crop.offsetY)); "
                + "MAD vs Pillow \(mad) grey levels, max \(worst), \(differing) of \(inside) 8-bit values differ")
        #expect(inside == 3 * crop.scaledWidth * crop.scaledHeight)
        #expect(mad < 0.5)
        #expect(paddingNonZero == 0, "letterbox padding must be exactly 0")
    }

    @Test func bgraInputGivesTheSameTensorAsRGB() throws {
        let test = try #require(PreprocessCase.all.first { $0.name == "whole_frame" })
        let image = try test.frame(), crop = try test.focalMatchedCrop()
        let rgb = try tensor(image, crop: crop)
        #expect(try tensor(bgra(image, rowStride: image.width * 4 + 24), crop: crop) == rgb)
        // RGB rows with padding too.
        var padded = [UInt8](repeating: 7, count: (image.width * 3 + 5) * image.height)
        for y in 0..<image.height {
            padded.replaceSubrange(
                y * (image.width * 3 + 5)..<y * (image.width * 3 + 5) + image.width * 3,
                with: image.pixels[y * image.width * 3..<(y + 1) * image.width * 3])
        }
        let paddedFrame = try FramePixels(
            width: image.width, height: image.height, rowStride: image.width * 3 + 5, format: .rgb8, bytes: padded)
        #expect(tensor(paddedFrame, crop: crop) == rgb)
    }

    @Test func buffersAreReusedAndPaddingFollowsTheGeometry() throws {
        let cases = PreprocessCase.all
        let a = try #require(cases.first { $0.name == "whole_frame" })
        let b = try #require(cases.first { $0.name == "wide_strip" })
        let frameA = try FramePixels(a.frame()), frameB = try FramePixels(b.frame())
        let cropA = try a.focalMatchedCrop(), cropB = try b.focalMatchedCrop()
        let preprocessor = Preprocessor()
        #expect(preprocessor.output.allSatisfy { $0 == 0 })
        let first = preprocessor.process(frameA, crop: cropA)
        let firstValues = Array(first)
        let again = preprocessor.process(frameA, crop: cropA)
        #expect(first.baseAddress == again.baseAddress)
        #expect(Array(again) == firstValues)
        // Another geometry, then back: the output equals a fresh preprocessor's (old pixels cleared).
        #expect(Array(preprocessor.process(frameB, crop: cropB)) == tensor(frameB, crop: cropB))
        #expect(Array(preprocessor.process(frameA, crop: cropA)) == firstValues)
        #expect(preprocessor.tensor == firstValues)
        withExtendedLifetime(preprocessor) {}
    }

    @Test func cropReachingOutsideTheFrameReadsEdgePixels() throws {
        // A crop computed for an 800 × 500 camera applied to a 640 × 400 frame: edge clamp, no crash.
        let test = try #require(PreprocessCase.all.first { $0.name == "centre" })
        let image = try test.frame()
        let crop = FocalMatchedCrop(intrinsics: try CameraIntrinsics(fx: 700, fy: 700, cx: 700, cy: 450, width: 800, height: 500))
        #expect(crop.x + crop.width > image.width && crop.y + crop.height > image.height)
        let output = try tensor(image, crop: crop)
        let low = (0 - ImageNormalization.mean) / ImageNormalization.std
        let high = (255 - ImageNormalization.mean) / ImageNormalization.std
        for ch in 0..<3 {
            let plane = output[ch * 256 * 512..<(ch + 1) * 256 * 512]
            #expect(plane.allSatisfy { $0.isFinite && $0 >= low[ch] && $0 <= high[ch] })
        }
        // A uniform frame stays uniform whatever the crop.
        let grey = RGBImage(width: 64, height: 40, fill: [200, 100, 50])
        let uniform = try tensor(grey, crop: crop)
        let value = ImageNormalization.normalize([200, 100, 50])
        let region = (crop.offsetY..<crop.offsetY + crop.scaledHeight, crop.offsetX..<crop.offsetX + crop.scaledWidth)
        for ch in 0..<3 {
            for y in region.0 {
                for x in region.1 where uniform[(ch * 256 + y) * 512 + x] != value[ch] {
                    Issue.record("channel \(ch) (\(x), \(y)) is \(uniform[(ch * 256 + y) * 512 + x]), expected \(value[ch])")
                    return
                }
            }
        }
    }

    /// The vectorised resize gives the bytes of Pillow's scalar loops: the engine's 1920 × 1080 crop,
    /// up- and downscaling, crops over the frame edges and random geometries, both pixel formats with
    /// padded rows, on one to three threads.
    @Test func resamplePlanMatchesPillowsScalarLoops() throws {
        // Frame width, height; crop x, y, width, height; output width, height.
        var geometries = [
            (1920, 1080, 139, 136, 1621, 811, 512, 256), (640, 400, 0, 0, 640, 400, 410, 256),
            (200, 120, -30, -20, 260, 170, 512, 256), (50, 40, 30, 25, 90, 70, 37, 211), (17, 9, 0, 0, 17, 9, 17, 9),
            (900, 600, 100, 50, 700, 500, 3, 2), (1, 1, 0, 0, 1, 1, 512, 256),
        ]
        var random = SeededRandom(seed: 2024)
        for _ in 0..<24 {
            let w = random.integer(1...700), h = random.integer(1...500)
            geometries.append(
                (
                    w, h, random.integer(-40...w), random.integer(-40...h), random.integer(1...900), random.integer(1...600),
                    random.integer(1...512), random.integer(1...256)
                ))
        }
        var identity = [Float](repeating: 0, count: 3 * 256)
        for i in identity.indices { identity[i] = Float(i % 256) }
        for (index, g) in geometries.enumerated() {
            let format = PixelFormat.allCases[index % PixelFormat.allCases.count]
            let rowStride = g.0 * format.bytesPerPixel + index % 5
            var bytes = [UInt8](repeating: 0, count: rowStride * g.1)
            // Noise, and hard black-and-white edges whose Lanczos ringing leaves 0 ... 255.
            for i in bytes.indices {
                bytes[i] = index % 3 == 0 ? (random.chance(0.5) ? 255 : 0) : UInt8(truncatingIfNeeded: random.next())
            }
            let frame = try FramePixels(width: g.0, height: g.1, rowStride: rowStride, format: format, bytes: bytes)
            let expected = pillowResize(frame, x: g.2, y: g.3, width: g.4, height: g.5, outWidth: g.6, outHeight: g.7).map(Float.init)
            for threads in 1...3 {
                let plan = ResamplePlan(cropWidth: g.4, cropHeight: g.5, outWidth: g.6, outHeight: g.7, threads: threads)
                let pool = threads > 1 ? WorkerPool(workers: threads) : nil
                var got = [Float](repeating: -1, count: 3 * g.6 * g.7)
                got.withUnsafeMutableBufferPointer { out in
                    frame.bytes.withUnsafeBytes { raw in
                        guard let base = raw.baseAddress, let destination = out.baseAddress else { return }
                        plan.run(
                            frame: base, width: g.0, height: g.1, rowStride: rowStride, format: format, cropX: g.2, cropY: g.3,
                            destination: destination, plane: g.6 * g.7, rowPitch: g.6, lookup: identity, pool: pool)
                    }
                }
                #expect(got == expected, "geometry \(g), \(format), \(threads) thread(s)")
            }
        }
    }

    @Test func lanczosTapsAreNormalisedAndIdentityAtScaleOne() {
        let identity = ResampleTaps(inSize: 17, outSize: 17)
        for i in 0..<17 {
            #expect(identity.first[i] == i && identity.count[i] == 1)
            #expect(identity.weights[i * identity.stride] == 1 << ResampleTaps.precisionBits)
        }
        for (input, output) in [(824, 512), (412, 256), (640, 410), (507, 512), (3, 200), (1000, 7)] {
            let taps = ResampleTaps(inSize: input, outSize: output)
            #expect(taps.span.lowerBound >= 0 && taps.span.upperBound <= input)
            for i in 0..<output {
                let sum = (0..<taps.count[i]).reduce(0) { $0 + Int(taps.weights[i * taps.stride + $1]) }
                #expect(abs(sum - (1 << ResampleTaps.precisionBits)) <= taps.stride, "\(input)→\(output) tap \(i) sums to \(sum)")
                #expect(taps.first[i] >= 0 && taps.first[i] + taps.count[i] <= input)
            }
        }
        #expect(ResampleTaps.lanczos(0) == 1)
        #expect(abs(ResampleTaps.lanczos(1)) < 1e-15 && ResampleTaps.lanczos(3) == 0 && ResampleTaps.lanczos(-3) != 0)
    }

    @Test func framePixelsChecksItsFields() {
        #expect(throws: PreprocessError.invalidSize(field: "width", value: 0)) {
            try FramePixels(width: 0, height: 4, rowStride: 0, format: .rgb8, bytes: [])
        }
        #expect(throws: PreprocessError.invalidSize(field: "height", value: 20_000)) {
            try FramePixels(width: 4, height: 20_000, rowStride: 12, format: .rgb8, bytes: [])
        }
        #expect(throws: PreprocessError.rowStrideTooSmall(rowStride: 15, needed: 16)) {
            try FramePixels(width: 4, height: 2, rowStride: 15, format: .bgra8, bytes: [UInt8](repeating: 0, count: 64))
        }
        #expect(throws: PreprocessError.bufferTooSmall(count: 30, needed: 32)) {
            try FramePixels(width: 4, height: 2, rowStride: 20, format: .rgb8, bytes: [UInt8](repeating: 0, count: 30))
        }
        // The last row needs no padding after it.
        #expect(throws: Never.self) {
            try FramePixels(width: 4, height: 2, rowStride: 20, format: .rgb8, bytes: [UInt8](repeating: 0, count: 32))
        }
    }
}
