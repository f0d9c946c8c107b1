import Foundation
import PeripheryTestSupport
import Synchronization
import Testing

@testable import PeripheryCore
@testable import PeripheryGeometry
@testable import PeripheryIO
@testable import PeripheryInference
@testable import PeripherySynthetic

/// One `PerceptionEngine` per thread, all built from one shared `Safety40Weights`: four engines
/// running at once give bit-for-bit the results of one engine running alone (detections, tracks and
/// counters over a short drive), so the weights are read-only and nothing else is shared.
@Suite struct ConcurrencyTests {
    static let frames = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/synthetic").path

    /// What one engine reports for one frame.
    struct Outcome: Sendable, Hashable {
        var detections: [Detection]
        var tracks: [TrackedVehicle]
        var counters: TrackerCounters
    }

    /// Each committed frame held for four frames at 10 frames/s (a parked camera, so that tracks
    /// confirm), the frames 10 s apart (so that the tracker resets between them).
    static func drive(_ engine: PerceptionEngine, _ inputs: [(RGBImage, CameraSetup)]) throws -> [Outcome] {
        var outcomes: [Outcome] = []
        for (k, (image, setup)) in inputs.enumerated() {
            for i in 0..<4 {
                let result = try engine.process(
                    PerceptionFrame(
                        pixels: try FramePixels(image), timestamp: Double(k) * 10 + Double(i) * 0.1,
                        intrinsics: setup.intrinsics, pose: setup.pose, ego: i == 0 ? nil : EgoDelta(dt: 0.1)))
                outcomes.append(Outcome(detections: result.detections, tracks: result.tracks, counters: engine.counters))
            }
        }
        return outcomes
    }

    @Test func fourEnginesInParallelMatchOneAlone() throws {
        let weights = try Safety40Weights(path: repositoryPath("Weights/safety40-synthetic.safetensors"))
        let dataset = SyntheticDataset(path: Self.frames)
        let inputs = try dataset.indices().map { index in
            let (image, setup, _) = try dataset.read(index: index)
            return (image, setup)
        }
        let serial = try Self.drive(PerceptionEngine(weights: weights, threads: 2), inputs)
        #expect(serial.contains { !$0.detections.isEmpty } && serial.contains { !$0.tracks.isEmpty })

        let results = Mutex<[Int: Result<[Outcome], any Error>]>([:])
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            let outcome = Result { try Self.drive(PerceptionEngine(weights: weights, threads: 2), inputs) }
            results.withLock { $0[worker] = outcome }
        }
        let parallel = results.withLock { $0 }
        #expect(parallel.count == 4)
        for (worker, result) in parallel.sorted(by: { $0.key < $1.key }) {
            #expect(try result.get() == serial, "engine \(worker) differs from the serial run")
        }
    }
}
