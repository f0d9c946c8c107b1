import Foundation
import PeripheryTestSupport
import Testing

@testable import PeripheryCore
@testable import PeripheryEvents
@testable import PeripheryGeometry
@testable import PeripheryIO
@testable import PeripheryInference

/// The engine's rebuild and reset rules on the bundled sample frame (docs/sample).
@Suite(.serialized) struct PerceptionEngineTests {
    let engine: PerceptionEngine
    let pixels: FramePixels
    let setup: CameraSetup

    init() throws {
        engine = try PerceptionEngine(
            weights: try Safety40Weights(path: repositoryPath("Weights/safety40-random-init.safetensors")), threads: 2)
        pixels = try FramePixels(try ImageFile.read(path: repositoryPath("docs/sample/frame.png")))
        setup = try CalibrationFile.load(path: repositoryPath("docs/sample/calibration.json"))
    }

    func frame(t: Double, ego: EgoDelta?, pose: MountPose? = nil) -> PerceptionFrame {
        PerceptionFrame(pixels: pixels, timestamp: t, intrinsics: setup.intrinsics, pose: pose ?? setup.pose, ego: ego)
    }

    @Test func rebuildsCalibrationOnlyWhenThePolicySaysSo() throws {
        #expect(try engine.process(frame(t: 0, ego: nil)).rebuilt)
        #expect(try !engine.process(frame(t: 0.1, ego: EgoDelta(dt: 0.1))).rebuilt)
        var pose = setup.pose
        pose.forwardOfOrigin += 0.5
        #expect(try !engine.process(frame(t: 0.2, ego: EgoDelta(dt: 0.1), pose: pose)).rebuilt)
        pose.pitch += 0.0004
        #expect(try !engine.process(frame(t: 0.3, ego: EgoDelta(dt: 0.1), pose: pose)).rebuilt)
        pose.pitch += 0.0011
        let result = try engine.process(frame(t: 0.4, ego: EgoDelta(dt: 0.1), pose: pose))
        #expect(result.rebuilt)
        #expect(result.calibration.setup.pose == pose)
    }

    @Test func resetsTheTrackerUnderTheReferenceRules() throws {
        #expect(try engine.process(frame(t: 10, ego: EgoDelta(dt: 0.1))).trackerReset, "no previous frame")
        #expect(try !engine.process(frame(t: 10.1, ego: EgoDelta(dt: 0.1))).trackerReset)
        #expect(try !engine.process(frame(t: 10.2, ego: EgoDelta(dt: 0.115))).trackerReset, "15 ms off is tolerated")
        #expect(try engine.process(frame(t: 10.3, ego: EgoDelta(dt: 0.125))).trackerReset, "25 ms off")
        #expect(try engine.process(frame(t: 10.4, ego: nil)).trackerReset, "no ego motion")
        #expect(try engine.process(frame(t: 10.5, ego: EgoDelta(dt: 0.1, valid: false))).trackerReset, "invalid ego")
        #expect(try engine.process(frame(t: 10.6, ego: EgoDelta(dx: .nan, dt: 0.1))).trackerReset, "NaN ego")
        #expect(try engine.process(frame(t: 10.6, ego: EgoDelta(dt: 0))).trackerReset, "duplicated timestamp")
        #expect(try engine.process(frame(t: 10.5, ego: EgoDelta(dt: -0.1))).trackerReset, "time going backwards")
        #expect(try engine.process(frame(t: 12.0, ego: EgoDelta(dt: 1.5))).trackerReset, "gap over 1 s")
        let nan = try engine.process(frame(t: .nan, ego: EgoDelta(dt: 0.1)))
        #expect(nan.trackerReset && nan.tracks.isEmpty)
        #expect(try engine.process(frame(t: 12.1, ego: EgoDelta(dt: 0.1))).trackerReset, "after a NaN timestamp")
    }

    /// The engine's safety output is what an event detector makes of the engine's own timestamps,
    /// ego motion, confirmed tracks and resets; a reset engine's events start afresh.
    @Test func safetyEventsFollowTheTracker() throws {
        engine.reset()
        var reference = SafetyEventDetector()
        let egos: [EgoDelta?] = [nil, EgoDelta(dx: 2, dt: 0.1), EgoDelta(dx: 2, dt: 0.1), nil, EgoDelta(dx: 2, dt: 0.1)]
        for (k, ego) in egos.enumerated() {
            let t = 20 + Double(k) / 10
            let result = try engine.process(frame(t: t, ego: ego))
            #expect(result.safety == reference.update(timestamp: t, ego: ego, tracks: result.tracks, trackerReset: result.trackerReset))
            #expect(result.safety.timestamp == t)
            #expect(result.safety.ego?.speed == ego.map { _ in 20 })
        }
        #expect(abs(engine.eventSummary().durationSeconds - 0.4) <= 1e-9)
        #expect(engine.finishEvents() == reference.finish())
        engine.reset()
        #expect(engine.eventSummary().durationSeconds == 0)
    }

    @Test func eventConfigurationIsValidatedBeforeItIsUsed() throws {
        var configuration = SafetyEventConfiguration()
        configuration.forwardCollision.timeToCollisionSeconds = 2.6
        try engine.configureEvents(configuration)
        #expect(engine.eventConfiguration == configuration)
        var bad = configuration
        bad.corridorWidthMetres = 30
        let tooWide = SafetyEventConfigurationError.invalidField(
            "corridorWidthMetres", value: 30, expected: "more than 0 and at most the grid's width, 20.0 m")
        #expect(throws: tooWide) { try engine.configureEvents(bad) }
        #expect(engine.eventConfiguration == configuration)
        try engine.configureEvents(SafetyEventConfiguration())
    }

    @Test func rejectsAFrameThatDoesNotMatchItsIntrinsics() throws {
        let k = try CameraIntrinsics(fx: 480, fy: 480, cx: 320, cy: 200, width: 641, height: 400)
        #expect(throws: PerceptionError.frameSizeMismatch(pixels: PixelSize(width: 640, height: 400), intrinsics: PixelSize(width: 641, height: 400))) {
            try engine.process(PerceptionFrame(pixels: pixels, timestamp: 0, intrinsics: k, pose: setup.pose))
        }
    }

    /// The engine equals the detector run by hand on the same preprocessed image (no hidden state).
    @Test func detectionsMatchTheDetectorOnThePreprocessedFrame() throws {
        let result = try engine.process(frame(t: 0, ego: nil))
        let preprocessor = Preprocessor()
        let detector = try Detector(
            weights: try Safety40Weights(path: repositoryPath("Weights/safety40-random-init.safetensors")), threads: 2)
        let calibration = CameraCalibration(setup)
        var direct: [Detection] = []
        _ = try detector.detect(
            image: preprocessor.process(pixels, crop: calibration.crop), lut: ProjectionLUT(calibration: calibration),
            settings: engine.settings, into: &direct)
        #expect(result.detections.map(\.candidate) == direct.map(\.candidate))
        for (a, b) in zip(result.detections, direct) { #expect(abs(a.box.x - b.box.x) < 1e-4 && abs(a.box.y - b.box.y) < 1e-4) }
    }
}
