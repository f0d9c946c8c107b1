import Foundation
import PeripheryCore
import PeripheryGeometry

/// The network's view of one dataset frame, as the trainer reads it: what `PerceptionEngine` feeds
/// the detector for this frame, computed by the same crop, Lanczos resize, letterbox and LUT code.
///
/// `DIR/network/NNNNNN.bin`, little-endian, 432,176 bytes:
///
/// | bytes | content |
/// |---|---|
/// | 16 | letterbox rectangle `x, y, width, height` as 4 × int32 (pixels of the 512 × 256 input) |
/// | 393,216 | the resized 8-bit RGB pixels, planar `[3, 256, 512]`; outside the letterbox 0 (the trainer writes the padding, which normalises to 0) |
/// | 26,240 | `ProjectionLUT.indices`, 6560 × int32 |
/// | 6,560 | `ProjectionLUT.visibility`, 6560 × uint8 |
///
/// Normalising the pixels with `ImageNormalization` (and 0 outside the letterbox) gives exactly the
/// engine's `Preprocessor.output`.
package struct NetworkInputRecord: Sendable {
    /// Size of one record file in bytes.
    static let byteCount = 16 + Preprocessor.count + 5 * Safety40.voxelCount

    /// The letterbox rectangle inside the 512 × 256 input.
    package var letterbox: (x: Int, y: Int, width: Int, height: Int)
    /// Resized pixels, planar RGB, 0 outside the letterbox.
    package var pixels: [UInt8]
    /// The frame's projection LUT.
    package var lut: ProjectionLUT

    /// Runs the engine's calibration, crop and preprocessing on one frame.
    package init(image: RGBImage, setup: CameraSetup, preprocessor: Preprocessor) throws {
        let calibration = CameraCalibration(setup)
        let crop = calibration.crop
        let output = preprocessor.process(try FramePixels(image), crop: crop)
        letterbox = (crop.offsetX, crop.offsetY, crop.scaledWidth, crop.scaledHeight)
        let mean = ImageNormalization.mean, std = ImageNormalization.std
        let plane = Preprocessor.width * Preprocessor.height
        var pixels = [UInt8](repeating: 0, count: Preprocessor.count)
        for c in 0..<3 {
            for y in crop.offsetY..<crop.offsetY + crop.scaledHeight {
                for x in crop.offsetX..<crop.offsetX + crop.scaledWidth {
                    let i = c * plane + y * Preprocessor.width + x
                    // The preprocessor maps 8-bit values through (v − mean) / std; this inverts it exactly.
                    pixels[i] = UInt8(clamping: Int((output[i] * std[c] + mean[c]).rounded()))
                }
            }
        }
        self.pixels = pixels
        lut = ProjectionLUT(calibration: calibration)
    }

    /// Writes the record's bytes to `path` (atomically), creating its folder.
    package func write(to path: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try AtomicFile.write(serialized(), to: path)
    }

    /// The record's file bytes.
    package func serialized() -> Data {
        var data = Data(capacity: NetworkInputRecord.byteCount)
        for v in [letterbox.x, letterbox.y, letterbox.width, letterbox.height] {
            withUnsafeBytes(of: Int32(v).littleEndian) { data.append(contentsOf: $0) }
        }
        data.append(contentsOf: pixels)
        for v in lut.indices { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
        data.append(contentsOf: lut.visibility)
        return data
    }
}
