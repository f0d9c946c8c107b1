import Foundation
import Testing

@testable import PeripheryCore
@testable import PeripheryGeometry
@testable import PeripheryIO
@testable import PeripheryInference
@testable import PeripherySynthetic

@Suite struct NetworkInputRecordTests {
    /// Normalising the record's 8-bit pixels gives exactly the engine's preprocessed tensor, and its
    /// LUT is the frame's ProjectionLUT.
    @Test(arguments: [(640, 400, UInt64(3)), (720, 405, 8), (1280, 720, 21)])
    func recordReproducesTheEngineInput(width: Int, height: Int, seed: UInt64) throws {
        var rng = SyntheticRandom(seed: seed)
        let setup = try SyntheticCamera(width: width, height: height).draw(&rng)
        let frame = SceneRenderer().render(SceneSampler().scene(seed: seed), intrinsics: setup.intrinsics, pose: setup.pose)
        let record = try NetworkInputRecord(image: frame.image, setup: setup, preprocessor: Preprocessor())
        let reference = Preprocessor()
        let expected = reference.process(try FramePixels(frame.image), crop: CameraCalibration(setup).crop)
        let mean = ImageNormalization.mean, std = ImageNormalization.std
        let (x0, y0, w, h) = record.letterbox
        var worst: Float = 0
        for c in 0..<3 {
            for y in 0..<256 {
                for x in 0..<512 {
                    let i = (c * 256 + y) * 512 + x
                    let inside = x >= x0 && x < x0 + w && y >= y0 && y < y0 + h
                    let value = inside ? (Float(record.pixels[i]) - mean[c]) / std[c] : 0
                    worst = max(worst, abs(value - expected[i]))
                }
            }
        }
        withExtendedLifetime(reference) {}
        #expect(worst == 0)
        #expect(record.lut == ProjectionLUT(calibration: CameraCalibration(setup)))
        #expect(record.serialized().count == NetworkInputRecord.byteCount)
    }
}
