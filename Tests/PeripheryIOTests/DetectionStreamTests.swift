import Foundation
import Testing

@testable import PeripheryCore
@testable import PeripheryIO

/// The recorded detection stream (`periphery track`'s input): every field validated and named, the
/// limits checked before work is done, and the engine's reset rules applied by `TrackerReplay`.
@Suite struct DetectionStreamTests {
    static let car = #"{"score": 0.9, "label": 0, "x": 12, "y": 1, "z": 0.8, "length": 4.5, "width": 1.9, "height": 1.5, "yaw": 0.1}"#

    static func line(t: Double, ego: String? = #"{"dx": 1, "dy": 0, "dyaw": 0, "dt": 0.1}"#, detections: [String] = [car]) -> String {
        let egoField = ego.map { #", "ego": \#($0)"# } ?? ""
        return #"{"t": \#(t)\#(egoField), "detections": [\#(detections.joined(separator: ", "))]}"#
    }

    @Test func readsFramesWithAndWithoutEgoMotion() throws {
        let text = Self.line(t: 0, ego: nil) + "\n\n" + Self.line(t: 0.1) + "\r\n"
        let frames = try DetectionStream.parse(Data(text.utf8), path: "s.jsonl")
        #expect(frames.count == 2)
        #expect(frames[0].ego == nil && frames[0].detections.count == 1)
        #expect(frames[1].ego == EgoDelta(dx: 1, dy: 0, dyaw: 0, dt: 0.1))
        let car = try #require(frames[1].detections.first)
        #expect(car.label == 0 && car.score == 0.9 && car.box.x == 12 && car.box.length == 4.5 && car.box.yaw == 0.1)
    }

    @Test(
        arguments: [
            ("[1, 2]", "not a JSON object"),
            (#"{"t": "0", "detections": []}"#, "field 't' must be a finite number"),
            (#"{"t": true, "detections": []}"#, "field 't' must be a finite number"),
            (#"{"t": 0}"#, "field 'detections' must be an array"),
            (#"{"t": 0, "ego": [1], "detections": []}"#, "field 'ego' must be an object"),
            (#"{"t": 0, "ego": {"dx": 1, "dy": 0, "dyaw": 0}, "detections": []}"#, "field 'ego.dt' must be a finite number"),
            (#"{"t": 0, "ego": {"dx": 1e5, "dy": 0, "dyaw": 0, "dt": 0.1}, "detections": []}"#, "field 'ego.dx' is beyond"),
            (#"{"t": 0, "detections": [7]}"#, "detections[0] must be an object"),
            (line(t: 0, detections: [car.replacingOccurrences(of: #""label": 0"#, with: #""label": 4"#)]), "detections[0].label must be 0, 1, 2 or 3"),
            (line(t: 0, detections: [car.replacingOccurrences(of: #""label": 0"#, with: #""label": 0.5"#)]), "detections[0].label must be 0, 1, 2 or 3"),
            (line(t: 0, detections: [car.replacingOccurrences(of: #""score": 0.9"#, with: #""score": 1.5"#)]), "detections[0].score must be in [0, 1]"),
            (
                line(t: 0, detections: [car, car.replacingOccurrences(of: #""width": 1.9"#, with: #""width": 0"#)]),
                "detections[1]: length, width and height must be positive"
            ),
            (line(t: 0, detections: [car.replacingOccurrences(of: #""x": 12"#, with: #""x": 1e300"#)]), "field 'detections[0].x' is beyond"),
            (line(t: 0, detections: [car.replacingOccurrences(of: #", "yaw": 0.1"#, with: "")]), "field 'detections[0].yaw' must be a finite number"),
        ] as [(String, String)])
    func refusesABadLineNamingTheField(line: String, reason: String) {
        let text = Self.line(t: 0) + "\n" + line + "\n"
        do {
            _ = try DetectionStream.parse(Data(text.utf8), path: "s.jsonl")
            Issue.record("accepted \(line)")
        } catch {
            guard case .invalidLine(let location, let message) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(location == "s.jsonl:2")
            #expect(message.hasPrefix(reason), "\(message)")
        }
    }

    @Test func refusesTooManyDetectionsAndTooLongLinesBeforeParsing() {
        let many = Self.line(t: 0, detections: Array(repeating: Self.car, count: DetectionStream.maxDetectionsPerFrame + 1))
        #expect(throws: DetectionStreamError.invalidLine(location: "s:1", reason: "1001 detections exceed the limit of 1000 per line")) {
            _ = try DetectionStream.parseLine(Substring(many), at: "s:1")
        }
        let long = #"{"t": 0, "detections": [], "pad": ""# + String(repeating: " ", count: DetectionStream.maxLineLength) + #""}"#
        #expect(throws: DetectionStreamError.invalidLine(location: "s:1", reason: "line longer than \(DetectionStream.maxLineLength) bytes")) {
            _ = try DetectionStream.parseLine(Substring(long), at: "s:1")
        }
    }

    @Test func refusesAFileThatIsNotUTF8OrMissing() throws {
        #expect(throws: DetectionStreamError.notUTF8(path: "s.jsonl")) {
            _ = try DetectionStream.parse(Data([0x7B, 0xFF, 0xFE, 0x7D]), path: "s.jsonl")
        }
        #expect(throws: DetectionStreamError.unreadable(path: "/nonexistent/s.jsonl", cause: .system(code: ENOENT))) {
            _ = try DetectionStream.read(path: "/nonexistent/s.jsonl")
        }
    }
}

/// `TrackerReplay`: time going backwards, duplicated frames, gaps and NaN or missing ego motion
/// restart the tracker (ids from 1 again, counters cleared) — and it tracks normally afterwards.
@Suite struct TrackerReplayTests {
    /// One car 12 m ahead, driving at the ego's speed: a steady track.
    static func frame(_ t: Double, ego: EgoDelta? = EgoDelta(dx: 1, dy: 0, dyaw: 0, dt: 0.1)) -> TrackerInput {
        TrackerInput(
            t: t, ego: ego,
            detections: [
                Detection(score: 0.9, label: 0, box: VehicleBox(x: 12, y: 1, z: 0.8, length: 4.5, width: 1.9, height: 1.5, yaw: 0), candidate: 0)
            ])
    }

    @Test(
        arguments: [
            ("time goes backwards", frame(0.5)),
            ("duplicated frame", frame(0.9)),
            ("gap of 2 s", frame(2.9, ego: EgoDelta(dx: 20, dy: 0, dyaw: 0, dt: 2.0))),
            ("NaN ego motion", frame(1.0, ego: EgoDelta(dx: .nan, dy: 0, dyaw: 0, dt: 0.1))),
            ("no ego motion", frame(1.0, ego: nil)),
            ("ego dt disagrees with the interval", frame(1.0, ego: EgoDelta(dx: 1, dy: 0, dyaw: 0, dt: 0.5))),
            ("invalid ego motion", frame(1.0, ego: EgoDelta(dx: 1, dy: 0, dyaw: 0, dt: 0.1, valid: false))),
        ] as [(String, TrackerInput)])
    func anUnbridgeableFrameResetsTheTracker(_ name: String, anomaly: TrackerInput) {
        var replay = TrackerReplay()
        var confirmed: [TrackedVehicle] = []
        for i in 0..<10 { confirmed = replay.step(Self.frame(Double(i) * 0.1)).tracks }
        #expect(confirmed.map(\.id) == [1], "a steady car is one confirmed track before the anomaly")
        #expect(replay.tracker.counters.matches == 9)

        let after = replay.step(anomaly).tracks
        #expect(after.isEmpty, "\(name): a new track is not confirmed on its first frame")
        #expect(replay.tracker.counters == TrackerCounters(births: 1, idsIssued: 1), "\(name): counters restart")

        // It tracks again from the anomaly's time on.
        for i in 1...5 { confirmed = replay.step(Self.frame(anomaly.t + Double(i) * 0.1)).tracks }
        #expect(confirmed.map(\.id) == [1], "\(name): the car is tracked again under id 1")
        #expect(confirmed.allSatisfy { $0.box.x.isFinite && $0.box.y.isFinite && $0.box.yaw.isFinite })
    }

    /// A NaN time (possible through the library, not through `DetectionStream`) must not be
    /// remembered: a NaN interval compares false with every limit and would bridge anything.
    @Test func aNonFiniteTimeResetsAndIsNotBridged() {
        var replay = TrackerReplay()
        for i in 0..<10 { _ = replay.step(Self.frame(Double(i) * 0.1)) }
        #expect(replay.step(Self.frame(.nan)).tracks.isEmpty && replay.tracker.counters == TrackerCounters())
        _ = replay.step(Self.frame(1.0))
        #expect(replay.tracker.counters == TrackerCounters(births: 1, idsIssued: 1), "the frame after a NaN time resets too")
    }

    @Test func aSteadyStreamIsNeverReset() {
        var replay = TrackerReplay()
        for i in 0..<50 { _ = replay.step(Self.frame(Double(i) * 0.1)) }
        #expect(replay.tracker.counters.idsIssued == 1 && replay.tracker.counters.matches == 49)
    }
}
