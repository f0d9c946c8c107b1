import PeripheryCore

/// The safety events of drives against their truth (`docs/guides/events.md#evaluation`): for each
/// scripted drive whether a forward-collision warning came on its scripted lead and the true time
/// to collision when it started, NHTSA's pass rule per test, false warnings per hour over the
/// free-flow drives, and the error of the lead's time to collision and headway.
///
/// Pure: the caller runs the engine and reads the truth (`ScenarioTruth(driveDirectory:)`), and
/// adds each drive's observations.
public struct SafetyEventEvaluation: Sendable {
    /// How tracks are matched to labelled vehicles, and where errors are measured.
    public struct Rules: Sendable, Hashable {
        /// A track is a labelled vehicle when its box centre is within this much of the label's
        /// along x, or within `longitudinalToleranceFraction` of the label's x if that is more.
        public var longitudinalToleranceMetres = 2.0
        /// The part of the label's x that the longitudinal tolerance grows to with range: a
        /// camera's range error grows with range.
        public var longitudinalToleranceFraction = 0.1
        /// ... and within this much of it across: half a lane, so that a vehicle in the next lane
        /// is never taken for the lead.
        public var lateralToleranceMetres = 1.8
        /// Errors of time to collision (and the second headway figure) are measured where the true
        /// time to collision is under this.
        public var errorWindowSeconds = 4.0
        /// Largest difference between a frame's time and its truth entry's, s.
        public var timeTolerance = 1e-3
        /// A cut-in is detected in time when our event starts within this of the true entry, s
        /// (issue 43's bar: within 1 s).
        public var cutInToleranceSeconds = 1.0

        /// The defaults.
        public init() {}
    }

    /// The rules.
    public let rules: Rules
    /// The events' bumper (`SafetyEventConfiguration.egoFrontMetres`), which the truth must share.
    public let egoFrontMetres: Double
    private var drives: [SafetyEventEvaluationReport.Drive] = []
    private var timeToCollisionErrors: [Double] = [], headwayErrors: [Double] = [], headwayErrorsInWindow: [Double] = []
    private var timeToCollisionMissed = 0, headwayMissed = 0, headwayMissedInWindow = 0

    /// An evaluation of events whose ranges start at `egoFrontMetres`.
    public init(egoFrontMetres: Double, rules: Rules = Rules()) {
        self.egoFrontMetres = egoFrontMetres
        self.rules = rules
    }

    /// Whether a track's box is the labelled vehicle `truth`.
    public func matches(_ box: VehicleBox, _ truth: VehicleBox) -> Bool {
        let along = max(rules.longitudinalToleranceMetres, rules.longitudinalToleranceFraction * abs(truth.x))
        return abs(box.x - truth.x) <= along && abs(box.y - truth.y) <= rules.lateralToleranceMetres
    }

    /// Adds one drive: its truth and what the events made of each of its processed frames, in order.
    ///
    /// - Returns: each frame's comparison of our lead with the true one.
    /// - Throws: `SafetyEventEvaluationError` when the truth's bumper is not the events' or a frame
    ///   has no truth entry at its time; nothing of the drive is then added.
    @discardableResult
    public mutating func add(
        drive name: String, truth: ScenarioTruth, observations: [SafetyEventObservation]
    ) throws(SafetyEventEvaluationError) -> [SafetyEventFrameComparison] {
        guard abs(truth.egoFrontMetres - egoFrontMetres) <= 1e-6 else {
            throw .egoFrontMismatch(drive: name, truth: truth.egoFrontMetres, events: egoFrontMetres)
        }
        let kind = truth.scenario.kind
        var drive = SafetyEventEvaluationReport.Drive(
            drive: name, scenario: truth.scenario, leadID: truth.leadID, frames: observations.count,
            seconds: Double(observations.count) / truth.framesPerSecond, firstSight: nil, firstSightRange: nil, warning: nil, warnings: 0,
            otherWarnings: 0, requiredTimeToCollision: kind.requiredWarningTime, inTime: nil)
        var errors = FrameErrors()
        var cutIn = SafetyEventEvaluationReport.CutIn(trueEntry: nil, start: nil, inTime: false)
        var comparisons: [SafetyEventFrameComparison] = []
        for observation in observations {
            let t = observation.assessment.timestamp
            guard let frame = truthFrame(at: t, in: truth) else { throw .frameWithoutTruth(drive: name, timestamp: t) }
            let boxes = Dictionary(observation.tracks.map { ($0.id, $0.box) }, uniquingKeysWith: { first, _ in first })
            // Whether our track is the labelled vehicle `id` at this frame.
            func isVehicle(_ track: Int, _ id: Int?) -> Bool {
                guard let id, let label = frame.vehicles[id], let box = boxes[track] else { return false }
                return matches(box, label)
            }
            let ours = observation.assessment.lead
            if drive.firstSight == nil, let ours, isVehicle(ours.track, truth.leadID) {
                drive.firstSight = t
                drive.firstSightRange = frame.lead.flatMap { $0.id == truth.leadID ? $0.range : nil }
            }
            if kind == .cutIn {
                if cutIn.trueEntry == nil, let lead = frame.lead, lead.id == truth.leadID { cutIn.trueEntry = t }
                let starts = observation.assessment.reports.filter { $0.type == .cutIn && $0.phase == .start }
                if cutIn.start == nil, starts.contains(where: { isVehicle($0.track, truth.leadID) }) { cutIn.start = t }
            }
            let warnings = observation.assessment.reports.filter { $0.type == .forwardCollision }
            for report in warnings where report.phase == .start {
                drive.warnings += 1
                guard isVehicle(report.track, truth.leadID) else {
                    drive.otherWarnings += 1
                    continue
                }
                guard drive.warning == nil else { continue }
                let trueLead = frame.lead.flatMap { $0.id == truth.leadID ? $0 : nil }
                drive.warning = SafetyEventEvaluationReport.Warning(
                    time: t, track: report.track, trueTimeToCollision: trueLead?.timeToCollision, timeToCollision: report.timeToCollision,
                    trueRange: trueLead?.range, range: report.range)
            }
            let isTrueLead = ours.map { isVehicle($0.track, frame.lead?.id) } ?? false
            errors.add(ours: isTrueLead ? ours : nil, truth: frame.lead, window: rules.errorWindowSeconds)
            comparisons.append(
                SafetyEventFrameComparison(
                    drive: name, time: t, lead: ours.map(SafetyEventFrameComparison.Lead.init),
                    trueLead: frame.lead.map(SafetyEventFrameComparison.TrueLead.init),
                    isTrueLead: isTrueLead, forwardCollision: warnings))
        }
        if let required = kind.requiredWarningTime {
            drive.inTime = (drive.warning?.trueTimeToCollision).map { $0 >= required - 1e-9 } ?? false
        }
        if kind == .cutIn {
            if let entry = cutIn.trueEntry, let start = cutIn.start { cutIn.inTime = abs(start - entry) <= rules.cutInToleranceSeconds + 1e-9 }
            drive.cutIn = cutIn
        }
        drives.append(drive)
        timeToCollisionErrors += errors.timeToCollision
        headwayErrors += errors.headway
        headwayErrorsInWindow += errors.headwayInWindow
        timeToCollisionMissed += errors.timeToCollisionMissed
        headwayMissed += errors.headwayMissed
        headwayMissedInWindow += errors.headwayMissedInWindow
        return comparisons
    }

    /// The report of the drives added so far.
    public var report: SafetyEventEvaluationReport {
        var tests: [SafetyEventEvaluationReport.Test] = []
        for drive in drives {
            guard let required = drive.requiredTimeToCollision, !tests.contains(where: { $0.scenario == drive.scenario }) else { continue }
            let trials = drives.filter { $0.scenario == drive.scenario }
            let inTime = trials.filter { $0.inTime == true }.count
            tests.append(
                SafetyEventEvaluationReport.Test(
                    scenario: drive.scenario, trials: trials.count, inTime: inTime, requiredTimeToCollision: required,
                    passed: inTime * 7 >= 5 * trials.count, warningTimesToCollision: trials.map { $0.warning?.trueTimeToCollision }))
        }
        let free = drives.filter { $0.scenario.kind == .free }
        let hours = free.reduce(0) { $0 + $1.seconds } / 3600
        let warnings = free.reduce(0) { $0 + $1.warnings }
        let cutIns = drives.compactMap(\.cutIn)
        return SafetyEventEvaluationReport(
            drives: drives, tests: tests,
            freeFlow: SafetyEventEvaluationReport.FreeFlow(
                drives: free.count, hours: hours, warnings: warnings, warningsPerHour: hours > 0 ? Double(warnings) / hours : nil),
            cutIns: SafetyEventEvaluationReport.CutIns(
                drives: cutIns.count, inTime: cutIns.filter(\.inTime).count, tolerance: rules.cutInToleranceSeconds,
                delays: cutIns.map { cut in cut.start.flatMap { start in cut.trueEntry.map { start - $0 } } }),
            errorWindow: rules.errorWindowSeconds,
            timeToCollisionError: SafetyEventEvaluationReport.Spread(errors: timeToCollisionErrors, missed: timeToCollisionMissed),
            headwayError: SafetyEventEvaluationReport.Spread(errors: headwayErrors, missed: headwayMissed),
            headwayErrorInWindow: SafetyEventEvaluationReport.Spread(errors: headwayErrorsInWindow, missed: headwayMissedInWindow))
    }

    /// The truth entry at time `t` (within `timeTolerance`).
    private func truthFrame(at t: Double, in truth: ScenarioTruth) -> ScenarioTruth.Frame? {
        var low = 0, high = truth.frames.count
        while low < high {
            let mid = (low + high) / 2
            if truth.frames[mid].time < t { low = mid + 1 } else { high = mid }
        }
        let nearest = [low - 1, low].filter { truth.frames.indices.contains($0) }.min { abs(truth.frames[$0].time - t) < abs(truth.frames[$1].time - t) }
        return nearest.flatMap { abs(truth.frames[$0].time - t) <= rules.timeTolerance ? truth.frames[$0] : nil }
    }
}

/// One drive's errors of time to collision and headway, frame by frame.
private struct FrameErrors {
    var timeToCollision: [Double] = [], headway: [Double] = [], headwayInWindow: [Double] = []
    var timeToCollisionMissed = 0, headwayMissed = 0, headwayMissedInWindow = 0

    /// Our lead's figures against the true lead's at one frame; `ours` is nil unless our lead is
    /// the true lead (matched by position to its label). A true figure without a counterpart is missed.
    mutating func add(ours: LeadMeasurement?, truth: ScenarioTruth.Lead?, window: Double) {
        guard let truth else { return }
        let inWindow = truth.timeToCollision.map { $0 < window } ?? false
        if inWindow, let trueTime = truth.timeToCollision {
            if let time = ours?.timeToCollision { timeToCollision.append(time - trueTime) } else { timeToCollisionMissed += 1 }
        }
        if let trueHeadway = truth.headway {
            if let value = ours?.headway {
                headway.append(value - trueHeadway)
                if inWindow { headwayInWindow.append(value - trueHeadway) }
            } else {
                headwayMissed += 1
                if inWindow { headwayMissedInWindow += 1 }
            }
        }
    }
}
