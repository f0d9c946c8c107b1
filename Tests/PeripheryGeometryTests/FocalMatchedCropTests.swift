import PeripheryTestSupport
import Testing

@testable import PeripheryCore
@testable import PeripheryGeometry

/// The focal-matched crop and letterbox of reference, `docs/reference/contract.md#43-focal-matched-crop-and-letterbox`.
struct FocalMatchedCropTests {
    @Test func commaGoldenExample() throws {
        // Spec: crop 824×412 at (170, 231), resize 0.6213592233, scaled 512×256, offsets 0,
        // achieved focal 565.437, matched.
        let crop = FocalMatchedCrop(intrinsics: try commaIntrinsics())
        #expect(crop.width == 824 && crop.height == 412)
        #expect(crop.x == 170 && crop.y == 231)
        #expect(abs(crop.resize - 0.6213592233) < 1e-10)
        #expect(abs(crop.resize - 256.0 / 412.0) < 1e-15)
        #expect(crop.scaledWidth == 512 && crop.scaledHeight == 256)
        #expect(crop.offsetX == 0 && crop.offsetY == 0)
        #expect(abs(crop.achievedFocal - 565.437) < 1e-3)
        #expect(crop.targetFocal == 565.6)
        #expect(crop.isFocalMatched)
        #expect(abs(crop.rangeScale - 565.4368932038835 / 565.6) < 1e-12)
    }

    @Test func frameTooNarrowReportsRangeScale() throws {
        // fx 910 wants an 824 × 412 crop; a 640 × 320 frame has only itself to give, so
        // resize = min(512/640, 256/320) = 0.8, achieved = 728 px, ranges scale by 728 / 565.6.
        let k = try CameraIntrinsics(fx: 910, fy: 910, cx: 320, cy: 160, width: 640, height: 320)
        let crop = FocalMatchedCrop(intrinsics: k)
        #expect(crop.width == 640 && crop.height == 320 && crop.x == 0 && crop.y == 0)
        #expect(crop.resize == 0.8)
        #expect(crop.scaledWidth == 512 && crop.scaledHeight == 256 && crop.offsetX == 0 && crop.offsetY == 0)
        #expect(abs(crop.achievedFocal - 728) < 1e-9)
        #expect(!crop.isFocalMatched)
        #expect(abs(crop.rangeScale - 728 / 565.6) < 1e-12)
        #expect(crop.rangeScale > 1.28 && crop.rangeScale < 1.29)
    }

    @Test func heightLimitedFrameLetterboxesAndStaysMatched() throws {
        // 640 × 480 at fx 910: width clamps to 640, height stays 412 (round(256·910/565.6) = 412),
        // so the height sets resize = 256/412, scaled width round(640·256/412) = 398, offset 57.
        let k = try CameraIntrinsics(fx: 910, fy: 910, cx: 320, cy: 240, width: 640, height: 480)
        let crop = FocalMatchedCrop(intrinsics: k)
        #expect(crop.width == 640 && crop.height == 412)
        #expect(crop.x == 0 && crop.y == 34) // round(240 − 206)
        #expect(crop.scaledWidth == 398 && crop.scaledHeight == 256)
        #expect(crop.offsetX == 57 && crop.offsetY == 0)
        #expect(crop.isFocalMatched)
        #expect(abs(crop.achievedFocal - 910 * 256 / 412) < 1e-9)
    }

    /// Crops written out from the spec formulas by hand.
    @Test(arguments: [
        // (fx, cx, cy, W, H) → (cropW, cropH, x, y, scaledW)
        // round(905.23), round(452.62); 960 − 452.5 → 508 (half away); resize 256/453 → 905·0.5651 = 511.4 → 511
        (1000.0, 960.0, 540.0, 1920, 1080, 905, 453, 508, 314, 511),
        (910.0, 100.0, 437.0, 1164, 874, 824, 412, 0, 231, 512), // x0 = round(100 − 412) clamps to 0
        (910.0, 1100.0, 860.0, 1164, 874, 824, 412, 340, 462, 512), // clamps to W − cropW, H − cropH
        (1600.0, 960.0, 540.0, 1920, 1080, 1448, 724, 236, 178, 512), // round(1448.37), round(724.19)
    ])
    func cropFromFormula(
        fx: Double, cx: Double, cy: Double, w: Int, h: Int, cropW: Int, cropH: Int, x: Int, y: Int,
        scaledW: Int
    ) throws {
        let k = try CameraIntrinsics(fx: fx, fy: fx, cx: cx, cy: cy, width: w, height: h)
        let crop = FocalMatchedCrop(intrinsics: k)
        #expect(crop.width == cropW && crop.height == cropH)
        #expect(crop.x == x && crop.y == y)
        // Aspect 2:1 crops fill the input; the achieved focal is within a pixel of 565.6.
        let resize = min(512 / Double(cropW), 256 / Double(cropH))
        #expect(abs(crop.resize - resize) < 1e-15)
        #expect(abs(crop.achievedFocal - fx * resize) < 1e-9)
        #expect(crop.isFocalMatched)
        // Letterbox: scaled = round(crop · resize), offset = (512 − scaled) div 2, (256 − scaled) div 2.
        #expect(crop.scaledWidth == scaledW && crop.scaledHeight == 256)
        #expect(crop.offsetX == (512 - scaledW) / 2 && crop.offsetY == 0)
    }

    @Test func matchToleranceIsStrictOnePixel() throws {
        // achieved = fx · resize; with a crop that fills the frame exactly, choose fx to land
        // 1 px off: 640 × 320, resize 0.8 → fx = (565.6 ± 1)/0.8 sits exactly at the tolerance.
        for (fx, matched) in [((565.6 + 0.999) / 0.8, true), ((565.6 + 1.001) / 0.8, false)] {
            // Frame smaller than the wanted crop so resize stays 0.8.
            let k = try CameraIntrinsics(fx: fx, fy: fx, cx: 320, cy: 160, width: 640, height: 320)
            let crop = FocalMatchedCrop(intrinsics: k)
            #expect(crop.resize == 0.8)
            #expect(crop.isFocalMatched == matched, "fx \(fx)")
        }
    }

    /// Fuzzing found `fx = 2.4e62` in a calibration file trapping the crop's conversion to Int
    /// (`make fuzz-calibration`, Fuzz/Corpus/calibration/fx-2.4e62.json): any finite positive focal
    /// length now gives a crop inside the frame, and the LUT builds.
    @Test(arguments: [2.39777e62, 1e300, .greatestFiniteMagnitude, 1e-300, .leastNonzeroMagnitude])
    func absurdFocalLengthsStillGiveACropInsideTheFrame(fx: Double) throws {
        let k = try CameraIntrinsics(fx: fx, fy: 240, cx: 160, cy: 1, width: 320, height: 100)
        let crop = FocalMatchedCrop(intrinsics: k)
        #expect((1...320).contains(crop.width) && (1...100).contains(crop.height))
        #expect(crop.x >= 0 && crop.x + crop.width <= 320 && crop.y >= 0 && crop.y + crop.height <= 100)
        let pose = MountPose(pitchDegrees: -2, rollDegrees: 5, yawDegrees: 0, height: 1.3, forwardOfOrigin: 1.6)
        let lut = ProjectionLUT(calibration: CameraCalibration(intrinsics: k, pose: pose))
        #expect(lut.count == Safety40.voxelCount)
    }
}
