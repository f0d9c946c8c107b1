import PeripheryCore
import Testing

@testable import PeripheryEvents

/// The evaluation against drives built by hand: a lead 30 m ahead closing at 11 m/s (range
/// 30 − 1.1·k m at frame k, true TTC range ÷ 11 s, headway range ÷ 20 s), our track 3 on it.
struct SafetyEventEvaluationTests {
    static let leadLength = 4.5

    /// The true range at frame k.
    static func trueRange(_ k: Int) -> Double { 30 - 1.1 * Double(k) }

    /// A drive of `frames` frames at 10 frames/s whose lead (id 7) closes as above.
    static func truth(_ kind: ScenarioTruth.Kind = .leadVehicleMoving, frames: Int = 10, egoSpeed: Double = 20) -> ScenarioTruth {
        ScenarioTruth(
            scenario: ScenarioTruth.Scenario(kind: kind, egoSpeed: egoSpeed, leadSpeed: 9, gap: 30),
            leadID: kind == .free ? nil : 7, egoFrontMetres: 3.7, framesPerSecond: 10,
            frames: (0..<frames).map { k in
                let range = trueRange(k)
                let label = VehicleBox(x: range + 3.7 + leadLength / 2, y: 0, z: 0.8, length: leadLength, width: 1.8, height: 1.5, yaw: 0)
                return ScenarioTruth.Frame(
                    time: EventScene.time(k),
                    lead: ScenarioTruth.Lead(id: 7, range: range, closingSpeed: 11, closingAcceleration: 0, timeToCollision: range / 11, headway: range / 20),
                    vehicles: [7: label])
            })
    }

    /// Frame k: our track 3 on the lead (its range 0.5 m more than the truth's; with its 4 m box,
    /// its centre 0.25 m farther than the 4.5 m label's) and a track 4 in the next lane; `warn` starts a forward-collision warning on
    /// that track; our lead's TTC and headway are the truth's plus the given errors.
    static func observation(_ k: Int, ttcError: Double? = 0, headwayError: Double? = 0, warn: Int? = nil) -> SafetyEventObservation {
        let range = trueRange(k) + 0.5
        let lead = LeadMeasurement(
            track: 3, range: range, lateralOffset: 0, closing: ClosingKinematics(speed: 11, acceleration: nil),
            timeToCollision: ttcError.map { trueRange(k) / 11 + $0 }, headway: headwayError.map { trueRange(k) / 20 + $0 })
        let reports = warn.map { [SafetyEventReport(type: .forwardCollision, phase: .start, track: $0, timeToCollision: 2.5, headway: 1, range: range)] } ?? []
        return SafetyEventObservation(
            assessment: SafetyAssessment(timestamp: EventScene.time(k), ego: nil, path: .straight, lead: lead, inPathTracks: [3], reports: reports),
            tracks: [EventScene.vehicle(3, range: range), EventScene.vehicle(4, range: range, y: 3.6)])
    }

    /// A drive whose warning on the lead starts at frame `warnAt` (none when nil).
    static func observations(frames: Int = 10, warnAt: Int?) -> [SafetyEventObservation] {
        (0..<frames).map { observation($0, warn: $0 == warnAt ? 3 : nil) }
    }

    @Test func nhtsaRequirementsAreTheTestsFigures() {
        #expect(ScenarioTruth.Kind.leadVehicleStopped.requiredWarningTime == 2.1)
        #expect(ScenarioTruth.Kind.leadVehicleDecelerating.requiredWarningTime == 2.4)
        #expect(ScenarioTruth.Kind.leadVehicleMoving.requiredWarningTime == 2.0)
        #expect(ScenarioTruth.Kind.free.requiredWarningTime == nil && ScenarioTruth.Kind.cutIn.requiredWarningTime == nil)
    }

    @Test func tracksMatchLabelsWithinTheLongitudinalAndLateralTolerance() {
        let evaluation = SafetyEventEvaluation(egoFrontMetres: 3.7)
        func box(_ x: Double, _ y: Double) -> VehicleBox { VehicleBox(x: x, y: y, z: 0.8, length: 4, width: 1.8, height: 1.5, yaw: 0) }
        // At x = 30 the tolerance along x is 10 % of 30 = 3.0 m; at x = 10, the 2.0 m floor.
        #expect(evaluation.matches(box(32.9, 0), box(30, 0)) && !evaluation.matches(box(33.1, 0), box(30, 0)))
        #expect(evaluation.matches(box(27.1, 0), box(30, 0)) && !evaluation.matches(box(26.9, 0), box(30, 0)))
        #expect(evaluation.matches(box(11.9, 0), box(10, 0)) && !evaluation.matches(box(12.1, 0), box(10, 0)))
        #expect(evaluation.matches(box(30, 1.7), box(30, 0)) && !evaluation.matches(box(30, -1.9), box(30, 0)))
    }

    @Test func warningOnTheLeadTakesTheTrueTimeToCollisionOfItsFirstFrame() throws {
        var evaluation = SafetyEventEvaluation(egoFrontMetres: 3.7)
        try evaluation.add(drive: "lvm-1", truth: Self.truth(), observations: Self.observations(warnAt: 5))
        let drive = try #require(evaluation.report.drives.first)
        let warning = try #require(drive.warning)
        // Frame 5: range 30 − 5.5 = 24.5 m, TTC 24.5 / 11 = 2.227 s ≥ 2.0 s.
        #expect(warning.time == 0.5 && warning.track == 3)
        #expect(abs((warning.trueTimeToCollision ?? .nan) - 24.5 / 11) <= 1e-12)
        #expect(abs((warning.trueRange ?? .nan) - 24.5) <= 1e-12)
        #expect(warning.timeToCollision == 2.5 && abs((warning.range ?? .nan) - 25) <= 1e-12)
        #expect(drive.inTime == true && drive.requiredTimeToCollision == 2.0)
        #expect(drive.warnings == 1 && drive.otherWarnings == 0)
        #expect(drive.frames == 10 && drive.seconds == 1)
        // Our lead is the scripted one from the first frame, at the true range of 30 m.
        #expect(drive.firstSight == 0 && drive.firstSightRange == 30)
    }

    @Test func warningOnAnotherVehicleIsNotTheLeadsWarning() throws {
        var evaluation = SafetyEventEvaluation(egoFrontMetres: 3.7)
        var observations = Self.observations(warnAt: nil)
        observations[4] = Self.observation(4, warn: 4)
        try evaluation.add(drive: "lvm-1", truth: Self.truth(), observations: observations)
        let drive = try #require(evaluation.report.drives.first)
        #expect(drive.warning == nil && drive.inTime == false)
        #expect(drive.warnings == 1 && drive.otherWarnings == 1)
    }

    @Test func aTestPassesWithFiveOfSevenTrialsInTime() throws {
        var evaluation = SafetyEventEvaluation(egoFrontMetres: 3.7)
        // True TTC at frame k is (30 − 1.1k) / 11: 2.227 s at 5, 2.127 s at 6 (in time), 1.927 s at 8 (late).
        let passing: [Int?] = [5, 5, 6, 5, 8, nil, 5]
        let failing: [Int?] = [5, 6, 5, 8, 8, nil, 5]
        for (speed, warnings) in [(20.0, passing), (15.0, failing)] {
            for (i, k) in warnings.enumerated() {
                try evaluation.add(drive: "\(speed)-\(i)", truth: Self.truth(egoSpeed: speed), observations: Self.observations(warnAt: k))
            }
        }
        let report = evaluation.report
        #expect(report.tests.count == 2)
        let pass = try #require(report.tests.first), fail = try #require(report.tests.last)
        #expect(pass.scenario.egoSpeed == 20 && pass.trials == 7 && pass.inTime == 5 && pass.passed && pass.requiredTimeToCollision == 2.0)
        #expect(fail.scenario.egoSpeed == 15 && fail.trials == 7 && fail.inTime == 4 && !fail.passed)
        let expected = passing.map { k in k.map { Self.trueRange($0) / 11 } }
        #expect(zip(pass.warningTimesToCollision, expected).allSatisfy { a, b in a == nil && b == nil || abs((a ?? .nan) - (b ?? .nan)) <= 1e-12 })
    }

    @Test func freeFlowCountsEveryWarningPerHour() throws {
        var evaluation = SafetyEventEvaluation(egoFrontMetres: 3.7)
        // Two free drives of 30 frames (3 s each): one warning in 6 s is 600 per hour.
        try evaluation.add(drive: "free-1", truth: Self.truth(.free, frames: 30), observations: Self.observations(frames: 30, warnAt: 12))
        try evaluation.add(drive: "free-2", truth: Self.truth(.free, frames: 30), observations: Self.observations(frames: 30, warnAt: nil))
        let free = evaluation.report.freeFlow
        #expect(free.drives == 2 && free.warnings == 1)
        #expect(abs(free.hours - 6.0 / 3600) <= 1e-15)
        #expect(abs((free.warningsPerHour ?? .nan) - 600) <= 1e-9)
        #expect(evaluation.report.tests.isEmpty)
        #expect(evaluation.report.drives.first?.otherWarnings == 1 && evaluation.report.drives.first?.inTime == nil)
    }

    @Test func errorsAreMedianAndP90OfTheFramesWhereOurLeadIsTheTrueLead() throws {
        var evaluation = SafetyEventEvaluation(egoFrontMetres: 3.7)
        let ttcErrors: [Double?] = [nil, nil, 0.1, -0.3, 0.2, 0.5]
        let headwayErrors: [Double?] = [0.05, -0.02, 0.04, 0.01, -0.03, 0.02]
        var observations = (0..<6).map { Self.observation($0, ttcError: ttcErrors[$0], headwayError: headwayErrors[$0]) }
        // Frame 6: our lead is the vehicle in the next lane, so its figures are not the lead's: missed.
        var other = Self.observation(6)
        other.assessment.lead?.track = 4
        observations.append(other)
        try evaluation.add(drive: "lvm-1", truth: Self.truth(frames: 7), observations: observations)
        let report = evaluation.report
        // True TTCs are 2.73 s down to 2.13 s, all under 4 s. |errors| sorted: 0.1, 0.2, 0.3, 0.5:
        // median 0.25, p90 the 4th (nearest rank ⌈3.6⌉); signed median (0.1 + 0.2) / 2.
        let ttc = report.timeToCollisionError
        #expect(ttc.frames == 4 && ttc.missed == 3)
        #expect(abs((ttc.median ?? .nan) - 0.25) <= 1e-9 && abs((ttc.p90 ?? .nan) - 0.5) <= 1e-9 && abs((ttc.bias ?? .nan) - 0.15) <= 1e-9)
        // |errors| 0.01, 0.02, 0.02, 0.03, 0.04, 0.05: median 0.025, p90 the 6th; signed median (0.01 + 0.02) / 2.
        for headway in [report.headwayError, report.headwayErrorInWindow] {
            #expect(headway.frames == 6 && headway.missed == 1)
            #expect(abs((headway.median ?? .nan) - 0.025) <= 1e-9 && abs((headway.p90 ?? .nan) - 0.05) <= 1e-9)
            #expect(abs((headway.bias ?? .nan) - 0.015) <= 1e-9)
        }
        #expect(report.errorWindow == 4)
    }

    @Test func framesBeyondTheWindowGiveNoTimeToCollisionError() throws {
        var rules = SafetyEventEvaluation.Rules()
        rules.errorWindowSeconds = 2.5
        var evaluation = SafetyEventEvaluation(egoFrontMetres: 3.7, rules: rules)
        // True TTCs 2.727, 2.627, 2.527, 2.427, 2.327 s: the last two are under 2.5 s.
        try evaluation.add(drive: "lvm-1", truth: Self.truth(frames: 5), observations: (0..<5).map { Self.observation($0, ttcError: 0.1) })
        let report = evaluation.report
        #expect(report.timeToCollisionError.frames == 2 && report.headwayError.frames == 5 && report.headwayErrorInWindow.frames == 2)
    }

    @Test func aDriveWithAnotherBumperOrUnknownFramesIsRefused() throws {
        var evaluation = SafetyEventEvaluation(egoFrontMetres: 4.0)
        #expect(throws: SafetyEventEvaluationError.egoFrontMismatch(drive: "a", truth: 3.7, events: 4.0)) {
            try evaluation.add(drive: "a", truth: Self.truth(), observations: Self.observations(warnAt: nil))
        }
        evaluation = SafetyEventEvaluation(egoFrontMetres: 3.7)
        var observations = Self.observations(frames: 3, warnAt: nil)
        observations[2].assessment.timestamp = 0.25
        #expect(throws: SafetyEventEvaluationError.frameWithoutTruth(drive: "b", timestamp: 0.25)) {
            try evaluation.add(drive: "b", truth: Self.truth(), observations: observations)
        }
        #expect(evaluation.report.drives.isEmpty)
    }

    @Test func aCutInCountsWhenItStartsWithinASecondOfTheTrueEntry() throws {
        var evaluation = SafetyEventEvaluation(egoFrontMetres: 3.7)
        // The scripted lead is the true in-path lead from frame 4 (0.4 s); our cut-in on track 3
        // starts at frame 6 (0.2 s late), at frame 15 (1.1 s late), or never.
        for start in [6, 15, nil] as [Int?] {
            var truth = Self.truth(.cutIn, frames: 20)
            for k in 0..<4 { truth.frames[k].lead = nil }
            var observations = Self.observations(frames: 20, warnAt: nil)
            if let start {
                observations[start].assessment.reports = [
                    SafetyEventReport(type: .cutIn, phase: .start, track: 3, timeToCollision: nil, headway: 1, range: 20)
                ]
            }
            try evaluation.add(drive: "cut-in", truth: truth, observations: observations)
        }
        let report = evaluation.report
        #expect(report.drives.map { $0.cutIn?.trueEntry } == [0.4, 0.4, 0.4])
        #expect(report.drives.map { $0.cutIn?.start } == [0.6, 1.5, nil])
        #expect(report.drives.map { $0.cutIn?.inTime } == [true, false, false])
        #expect(report.cutIns.drives == 3 && report.cutIns.inTime == 1 && report.cutIns.tolerance == 1)
        let delays = report.cutIns.delays
        #expect(delays.count == 3 && abs((delays[0] ?? .nan) - 0.2) <= 1e-12 && abs((delays[1] ?? .nan) - 1.1) <= 1e-12 && delays[2] == nil)
        #expect(report.drives.allSatisfy { $0.requiredTimeToCollision == nil && $0.inTime == nil })
    }
}
