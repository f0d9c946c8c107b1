import CAllocationCounter
import Foundation
import PeripheryTestSupport
import Testing

@testable import PeripheryCore
@testable import PeripheryGeometry
@testable import PeripheryIO
@testable import PeripheryInference

/// Heap allocations made by every thread of the process while `body` runs.
private func allocations(during body: () throws -> Void) rethrows -> UInt64 {
    let before = periphery_allocation_count()
    periphery_allocation_counting(true)
    defer { periphery_allocation_counting(false) }
    try body()
    return periphery_allocation_count() - before
}

/// The hot path allocates nothing once warm (issue 8).
///
/// The counter sees every thread, so the test runs only in a process of its own:
/// `PERIPHERY_ALLOCATION_TEST=1 swift test --filter AllocationTests` (what `make test` does after
/// the main run). Under a sanitizer, whose runtime owns malloc, there is no counter.
@Suite(
    .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["PERIPHERY_ALLOCATION_TEST"] == "1", "needs a process of its own"),
    .enabled(if: periphery_allocation_counter_available(), "a sanitizer owns malloc"))
struct AllocationTests {
    /// The demo frame and its calibration.
    static func sampleFrame() throws -> (pixels: FramePixels, calibration: CameraCalibration) {
        let setup = try CalibrationFile.load(path: repositoryPath("docs/sample/synthetic/calibration.json"))
        let pixels = try FramePixels(try ImageFile.read(path: repositoryPath("docs/sample/synthetic/frame.png")))
        return (pixels, CameraCalibration(setup))
    }

    /// The counter works: an array of fresh storage is one allocation.
    @Test func theCounterSeesAnAllocation() {
        var sink: [Int] = []
        let counted = allocations { sink = Array(repeating: 7, count: 1000 + sink.count) }
        #expect(counted >= 1)
        #expect(sink.count == 1000)
    }

    /// FP32 and the INT8 file quantized from it, on 1 and 2 threads.
    @Test(arguments: ["safety40-synthetic", "safety40-synthetic-int8"], [1, 2])
    func detectAllocatesNothingAfterWarmUp(file: String, threads: Int) throws {
        let weights = try Safety40Weights(path: repositoryPath("Weights/\(file).safetensors"))
        let detector = try Detector(weights: weights, threads: threads)
        let (pixels, calibration) = try Self.sampleFrame()
        let preprocessor = Preprocessor()
        let image = preprocessor.process(pixels, crop: calibration.crop)
        let lut = ProjectionLUT(calibration: calibration)
        var detections: [Detection] = []
        _ = try detector.detect(image: image, lut: lut, into: &detections)
        let found = detections.count
        let counted = try allocations {
            for _ in 0..<3 { _ = try detector.detect(image: image, lut: lut, into: &detections) }
        }
        #expect(counted == 0, "\(counted) allocations in three warm \(weights.precision) detect calls on \(threads) thread(s)")
        #expect(detections.count == found && found > 0, "the sample frame's vehicles are found every time")
    }

    /// The preprocessor's resize, split or not, allocates nothing once its plan exists.
    @Test(arguments: [1, 2])
    func preprocessingAllocatesNothingAfterWarmUp(threads: Int) throws {
        let (pixels, calibration) = try Self.sampleFrame()
        let crop = calibration.crop
        let preprocessor = Preprocessor(threads: threads)
        preprocessor.process(pixels, crop: crop)
        let counted = allocations {
            for _ in 0..<3 { preprocessor.process(pixels, crop: crop) }
        }
        #expect(counted == 0, "\(counted) allocations in three warm preprocess calls on \(threads) thread(s)")
    }
}
