import Foundation
import PeripheryTestSupport
import Testing

@testable import PeripheryCore
@testable import PeripheryGeometry
@testable import PeripheryIO

/// Fixtures made by tools/make_image_fixtures.py.
private let imageFixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Fixtures/images")

private func fixture(_ name: String) -> String { imageFixtures.appendingPathComponent(name).path }

/// A fresh empty folder under the system temporary directory.
private func temporaryFolder() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("periphery-image-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Mean and largest absolute difference of two equally long byte arrays.
private func difference(_ a: [UInt8], _ b: [UInt8]) -> (mean: Double, max: Int) {
    let d = zip(a, b).map { abs(Int($0) - Int($1)) }
    return (Double(d.reduce(0, +)) / Double(max(1, d.count)), d.max() ?? 0)
}

@Suite struct ImageFileTests {
    @Test func pngRoundTripIsExact() throws {
        // Deterministic pseudo-random pixels (a linear congruential sequence), odd size.
        var state: UInt32 = 40
        let (w, h) = (53, 31)
        let pixels = (0..<w * h * 3).map { _ -> UInt8 in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
        let image = try #require(RGBImage(width: w, height: h, pixels: pixels))
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("out.png").path
        try ImageFile.writePNG(image, to: path)
        #expect(try ImageFile.read(path: path) == image)
        // Overwriting replaces the file, and no temporary file is left behind.
        let other = RGBImage(width: 2, height: 3, fill: [9, 8, 7])
        try ImageFile.writePNG(other, to: path)
        #expect(try ImageFile.read(path: path) == other)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["out.png"])
    }

    /// PNG colour types and bit depths, each against Pillow's RGB conversion of the same file.
    @Test(arguments: [
        ("rgb8.png", 0), ("grey8.png", 0), ("grey1.png", 0), ("grey_alpha8.png", 0), ("rgba8.png", 0),
        ("palette4.png", 0), ("palette_trns.png", 0), ("grey16.png", 1), ("rgb16.png", 1),
    ])
    func readsPNGColourTypes(name: String, tolerance: Int) throws {
        let image = try ImageFile.read(path: fixture(name))
        let expected = try [UInt8](Data(contentsOf: imageFixtures.appendingPathComponent(name.replacingOccurrences(of: ".png", with: ".rgb"))))
        #expect(image.width == 37 && image.height == 23)
        let d = difference(image.pixels, expected)
        #expect(d.max <= tolerance, "\(name): max difference \(d.max), mean \(d.mean)")
    }

    /// JPEGs decoded within a few grey levels of Pillow's own decode (both libjpeg-turbo).
    @Test(arguments: ["baseline.jpg", "progressive.jpg", "grey.jpg"])
    func readsJPEGLikePillow(name: String) throws {
        let image = try ImageFile.read(path: fixture(name))
        let expected = try [UInt8](Data(contentsOf: imageFixtures.appendingPathComponent(name.replacingOccurrences(of: ".jpg", with: ".rgb"))))
        #expect(image.width == 37 && image.height == 23)
        let d = difference(image.pixels, expected)
        #expect(d.max <= 3 && d.mean < 0.5, "\(name): max difference \(d.max), mean \(d.mean)")
        print("JPEG \(name) vs Pillow: mean difference \(d.mean), max \(d.max) grey levels")
    }

    @Test func formatComesFromMagicBytesNotExtension() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let pngNamedJPEG = folder.appendingPathComponent("picture.jpg").path
        let jpegNamedPNG = folder.appendingPathComponent("picture.png").path
        try FileManager.default.copyItem(atPath: fixture("rgb8.png"), toPath: pngNamedJPEG)
        try FileManager.default.copyItem(atPath: fixture("baseline.jpg"), toPath: jpegNamedPNG)
        #expect(try ImageFile.read(path: pngNamedJPEG) == ImageFile.read(path: fixture("rgb8.png")))
        #expect(try ImageFile.read(path: jpegNamedPNG) == ImageFile.read(path: fixture("baseline.jpg")))
        #expect(ImageFormat.sniff([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0]) == .png)
        #expect(ImageFormat.sniff([0xFF, 0xD8, 0xFF, 0xE0]) == .jpeg)
        #expect(ImageFormat.sniff([0xFF, 0xD8]) == nil)
    }

    static var badFiles: [(String, ImageError)] {
        [
            ("empty.png", .empty(path: fixture("empty.png"))),
            ("random.bin", .unknownFormat(path: fixture("random.bin"))),
            ("truncated.png", .truncated(path: fixture("truncated.png"), format: .png)),
            ("truncated.jpg", .truncated(path: fixture("truncated.jpg"), format: .jpeg)),
            ("huge_header.png", .badDimensions(path: fixture("huge_header.png"), width: 100_000, height: 100_000)),
        ]
    }

    @Test(arguments: badFiles)
    func badFilesGiveTheirNamedError(name: String, expected: ImageError) {
        #expect(throws: expected) { try ImageFile.read(path: fixture(name)) }
        #expect(expected.description.hasPrefix(fixture(name)))
    }

    @Test func damagedOrUnsupportedDataIsTyped() throws {
        let badIDAT = fixture("bad_idat.png")
        #expect { try ImageFile.read(path: badIDAT) } throws: { error in
            guard case .corrupt(let path, let format, let reason) = error as? ImageError else { return false }
            return path == badIDAT && format == .png && !reason.isEmpty
        }
        let cmyk = fixture("cmyk.jpg")
        #expect { try ImageFile.read(path: cmyk) } throws: { error in
            guard case .unsupported(let path, let format, _) = error as? ImageError else { return false }
            return path == cmyk && format == .jpeg
        }
        let missing = fixture("no-such-file.png")
        #expect { try ImageFile.read(path: missing) } throws: { error in
            guard case .unreadable(let path, _) = error as? ImageError else { return false }
            return path == missing
        }
        // A valid JPEG whose SOF0 declares 7-bit samples: libjpeg's own error comes back as a value
        // (its longjmp stays in the C shim).
        var bytes = try [UInt8](Data(contentsOf: imageFixtures.appendingPathComponent("baseline.jpg")))
        let sof = try #require((0..<bytes.count - 9).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
        bytes[sof + 4] = 7
        #expect { try ImageFile.decode(Data(bytes), name: "precision7.jpg") } throws: { error in
            guard case .corrupt(let path, let format, let reason) = error as? ImageError else { return false }
            return path == "precision7.jpg" && format == .jpeg && reason.contains("precision")
        }
    }

    /// A PNG within the size limits whose data cannot hold its pixels (deflate expands at most
    /// 1032-fold) is refused before its pixel buffer is allocated; the smallest real PNG of that
    /// size still decodes.
    @Test(arguments: [(16_384, 16_384), (8_000, 2_000), (2_000, 2_000)])
    func pngTooShortForItsDeclaredSizeIsRefusedBeforeAllocation(width: Int, height: Int) throws {
        var bytes = try [UInt8](Data(contentsOf: imageFixtures.appendingPathComponent("rgb8.png")))
        for (offset, value) in [(16, width), (20, height)] {
            for k in 0..<4 { bytes[offset + k] = UInt8(truncatingIfNeeded: value >> (24 - 8 * k)) }
        }
        #expect(throws: ImageError.truncated(path: "claim.png", format: .png)) { try ImageFile.decode(Data(bytes), name: "claim.png") }
    }

    /// A 1 KB baseline JPEG whose header claims 16,000 × 16,000 px (within the limits): libjpeg
    /// reaches the end marker long before the last row and would decode the rest as grey; it is
    /// refused as truncated instead (fuzzing found it costing 1.5 GB and 1.7 s).
    @Test func jpegWhoseDataEndsEarlyIsTruncatedNotPadded() throws {
        var bytes = try [UInt8](Data(contentsOf: imageFixtures.appendingPathComponent("baseline.jpg")))
        let sof = try #require((0..<bytes.count - 9).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
        for offset in [5, 7] {
            bytes[sof + offset] = UInt8(16_000 >> 8)
            bytes[sof + offset + 1] = UInt8(16_000 & 0xFF)
        }
        #expect(throws: ImageError.truncated(path: "claim.jpg", format: .jpeg)) { try ImageFile.decode(Data(bytes), name: "claim.jpg") }
    }

    @Test func aLargeButHighlyCompressedPNGStillDecodes() throws {
        let path = try scratchFolder("png-ratio") + "/black.png"
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try ImageFile.writePNG(RGBImage(width: 4_000, height: 3_000), to: path)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(size * 1032 >= 3_000 * (1 + 4_000 / 8), "an all-black frame compresses within the bound")
        #expect(try ImageFile.read(path: path) == RGBImage(width: 4_000, height: 3_000))
    }

    @Test func oversizedJPEGHeaderIsRejectedBeforeDecoding() throws {
        // Patch the SOF0 height and width of a valid JPEG to 20000 × 30000.
        var bytes = try [UInt8](Data(contentsOf: imageFixtures.appendingPathComponent("baseline.jpg")))
        let sof = try #require((0..<bytes.count - 9).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
        bytes[sof + 5] = UInt8(20_000 >> 8)
        bytes[sof + 6] = UInt8(20_000 & 0xFF)
        bytes[sof + 7] = UInt8(30_000 >> 8)
        bytes[sof + 8] = UInt8(30_000 & 0xFF)
        #expect(throws: ImageError.badDimensions(path: "big.jpg", width: 30_000, height: 20_000)) {
            try ImageFile.decode(Data(bytes), name: "big.jpg")
        }
    }

    @Test func writingRejectsBadPicturesAndUnwritablePaths() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("bad.png").path
        var broken = RGBImage(width: 4, height: 4)
        broken.pixels.removeLast()
        #expect { try ImageFile.writePNG(broken, to: path) } throws: { error in
            guard case .invalidImage(let p, _) = error as? ImageError else { return false }
            return p == path
        }
        #expect { try ImageFile.writePNG(RGBImage(width: 0, height: 3), to: path) } throws: { error in
            guard case .invalidImage = error as? ImageError else { return false }
            return true
        }
        let unwritable = folder.appendingPathComponent("no/such/folder/x.png").path
        #expect { try ImageFile.writePNG(RGBImage(width: 2, height: 2), to: unwritable) } throws: { error in
            guard case .writeFailed(let failure) = error as? ImageError else { return false }
            return failure.path == unwritable
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }
}
