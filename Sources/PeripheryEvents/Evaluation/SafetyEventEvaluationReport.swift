/// What `SafetyEventEvaluation` found (`periphery eval-events`): per drive its forward-collision
/// warning and the true time to collision when it started, per NHTSA test the trials in time, the
/// false warnings of the free-flow drives, and the errors of time to collision and headway.
///
/// Its `Codable` form is the JSON report; every key is written, unknown figures as `null`.
public struct SafetyEventEvaluationReport: Sendable, Hashable, Codable {
    /// The first forward-collision warning on a drive's scripted lead.
    public struct Warning: Sendable, Hashable, Codable {
        /// The frame at which it started, s.
        public var time: Double
        /// Our track id.
        public var track: Int
        /// The true time to collision at that frame, s (the truth's in-path lead, when it is the
        /// scripted lead); nil when the gap was not closing.
        public var trueTimeToCollision: Double?
        /// Our time to collision at that frame, s.
        public var timeToCollision: Double?
        /// The true range at that frame, m.
        public var trueRange: Double?
        /// Our range at that frame, m.
        public var range: Double?

        /// Creates a warning.
        public init(time: Double, track: Int, trueTimeToCollision: Double?, timeToCollision: Double?, trueRange: Double?, range: Double?) {
            self.time = time
            self.track = track
            self.trueTimeToCollision = trueTimeToCollision
            self.timeToCollision = timeToCollision
            self.trueRange = trueRange
            self.range = range
        }

        private enum CodingKeys: String, CodingKey {
            case time = "time_s", track, trueTimeToCollision = "true_ttc_s", timeToCollision = "ttc_s", trueRange = "true_range_m"
            case range = "range_m"
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(time, forKey: .time)
            try c.encode(track, forKey: .track)
            try c.encode(trueTimeToCollision, forKey: .trueTimeToCollision)
            try c.encode(timeToCollision, forKey: .timeToCollision)
            try c.encode(trueRange, forKey: .trueRange)
            try c.encode(range, forKey: .range)
        }
    }

    /// The cut-in of a `cut-in` drive: when the scripted lead truly entered the path, and when our
    /// first cut-in event on it started.
    public struct CutIn: Sendable, Hashable, Codable {
        /// The first frame at which the scripted lead is the true in-path lead, s.
        public var trueEntry: Double?
        /// The start of our first cut-in event on the scripted lead, s.
        public var start: Double?
        /// Whether it started within `SafetyEventEvaluation.Rules.cutInToleranceSeconds` of the true entry.
        public var inTime: Bool

        /// Creates a cut-in's result.
        public init(trueEntry: Double?, start: Double?, inTime: Bool) {
            self.trueEntry = trueEntry
            self.start = start
            self.inTime = inTime
        }

        private enum CodingKeys: String, CodingKey { case trueEntry = "true_entry_s", start = "start_s", inTime = "in_time" }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(trueEntry, forKey: .trueEntry)
            try c.encode(start, forKey: .start)
            try c.encode(inTime, forKey: .inTime)
        }
    }

    /// One drive.
    public struct Drive: Sendable, Hashable, Codable {
        /// The drive as the caller named it (its directory).
        public var drive: String
        /// Its scenario and parameters.
        public var scenario: ScenarioTruth.Scenario
        /// The scripted lead's id in the labels.
        public var leadID: Int?
        /// Frames evaluated.
        public var frames: Int
        /// Their duration, s: frames ÷ the drive's frame rate.
        public var seconds: Double
        /// When our in-path lead was first the scripted lead, s, and the true range then, m: how far
        /// ahead the detector first placed it in our path.
        public var firstSight: Double?
        /// The true range at `firstSight`, m.
        public var firstSightRange: Double?
        /// The first forward-collision warning on the scripted lead.
        public var warning: Warning?
        /// Every forward-collision warning that started in the drive.
        public var warnings: Int
        /// Those not on the scripted lead (in a `free` drive: all of them).
        public var otherWarnings: Int
        /// NHTSA's smallest time to collision for the warning, s (`ScenarioTruth.Kind.requiredWarningTime`).
        public var requiredTimeToCollision: Double?
        /// Whether the warning came at a true time to collision of at least the required one; nil
        /// for a scenario without a requirement.
        public var inTime: Bool?
        /// The cut-in of a `cut-in` drive; nil for the others.
        public var cutIn: CutIn?

        /// Creates a drive's result.
        public init(
            drive: String, scenario: ScenarioTruth.Scenario, leadID: Int?, frames: Int, seconds: Double, firstSight: Double?,
            firstSightRange: Double?, warning: Warning?, warnings: Int, otherWarnings: Int, requiredTimeToCollision: Double?, inTime: Bool?,
            cutIn: CutIn? = nil
        ) {
            self.drive = drive
            self.scenario = scenario
            self.leadID = leadID
            self.frames = frames
            self.seconds = seconds
            self.firstSight = firstSight
            self.firstSightRange = firstSightRange
            self.warning = warning
            self.warnings = warnings
            self.otherWarnings = otherWarnings
            self.requiredTimeToCollision = requiredTimeToCollision
            self.inTime = inTime
            self.cutIn = cutIn
        }

        private enum CodingKeys: String, CodingKey {
            case cutIn = "cut_in"
            case drive, scenario, leadID = "lead_id", frames, seconds, firstSight = "first_sight_s", firstSightRange = "first_sight_range_m"
            case warning, warnings, otherWarnings = "other_warnings", requiredTimeToCollision = "required_ttc_s", inTime = "in_time"
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(drive, forKey: .drive)
            try c.encode(scenario, forKey: .scenario)
            try c.encode(leadID, forKey: .leadID)
            try c.encode(frames, forKey: .frames)
            try c.encode(seconds, forKey: .seconds)
            try c.encode(firstSight, forKey: .firstSight)
            try c.encode(firstSightRange, forKey: .firstSightRange)
            try c.encode(warning, forKey: .warning)
            try c.encode(warnings, forKey: .warnings)
            try c.encode(otherWarnings, forKey: .otherWarnings)
            try c.encode(requiredTimeToCollision, forKey: .requiredTimeToCollision)
            try c.encode(inTime, forKey: .inTime)
            try c.encode(cutIn, forKey: .cutIn)
        }
    }

    /// The `cut-in` drives together.
    public struct CutIns: Sendable, Hashable, Codable {
        /// Drives.
        public var drives: Int
        /// Those whose cut-in was detected within the tolerance of the true entry.
        public var inTime: Int
        /// The tolerance, s.
        public var tolerance: Double
        /// Per drive, in drive order, our start less the true entry, s (nil: no cut-in on the lead).
        public var delays: [Double?]

        /// Creates the cut-ins' figures.
        public init(drives: Int, inTime: Int, tolerance: Double, delays: [Double?]) {
            self.drives = drives
            self.inTime = inTime
            self.tolerance = tolerance
            self.delays = delays
        }

        private enum CodingKeys: String, CodingKey { case drives, inTime = "in_time", tolerance = "tolerance_s", delays = "delays_s" }
    }

    /// One NHTSA test: the drives of one scenario with the same parameters.
    public struct Test: Sendable, Hashable, Codable {
        /// The scenario and its parameters.
        public var scenario: ScenarioTruth.Scenario
        /// Drives.
        public var trials: Int
        /// Those that warned on the lead at or above the required time to collision.
        public var inTime: Int
        /// The required time to collision, s.
        public var requiredTimeToCollision: Double
        /// Whether at least 5 of 7 trials warned in time (the same share of another count).
        public var passed: Bool
        /// Per trial, in drive order, the true time to collision at its warning (nil: no warning,
        /// or a gap that was not closing).
        public var warningTimesToCollision: [Double?]

        /// Creates a test's result.
        public init(
            scenario: ScenarioTruth.Scenario, trials: Int, inTime: Int, requiredTimeToCollision: Double, passed: Bool, warningTimesToCollision: [Double?]
        ) {
            self.scenario = scenario
            self.trials = trials
            self.inTime = inTime
            self.requiredTimeToCollision = requiredTimeToCollision
            self.passed = passed
            self.warningTimesToCollision = warningTimesToCollision
        }

        private enum CodingKeys: String, CodingKey {
            case scenario, trials, inTime = "in_time", requiredTimeToCollision = "required_ttc_s", passed
            case warningTimesToCollision = "warning_true_ttc_s"
        }
    }

    /// The drives without a scripted conflict (`free`): every forward-collision warning in them is false.
    public struct FreeFlow: Sendable, Hashable, Codable {
        /// Drives.
        public var drives: Int
        /// Their duration, h.
        public var hours: Double
        /// Forward-collision warnings.
        public var warnings: Int
        /// Warnings per hour; nil without free-flow time.
        public var warningsPerHour: Double?

        /// Creates free-flow figures.
        public init(drives: Int, hours: Double, warnings: Int, warningsPerHour: Double?) {
            self.drives = drives
            self.hours = hours
            self.warnings = warnings
            self.warningsPerHour = warningsPerHour
        }

        private enum CodingKeys: String, CodingKey { case drives, hours, warnings, warningsPerHour = "warnings_per_hour" }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(drives, forKey: .drives)
            try c.encode(hours, forKey: .hours)
            try c.encode(warnings, forKey: .warnings)
            try c.encode(warningsPerHour, forKey: .warningsPerHour)
        }
    }

    /// The error of one figure (ours − truth, seconds) over the frames where both have it and our
    /// lead is the true lead.
    public struct Spread: Sendable, Hashable, Codable {
        /// Frames with both figures.
        public var frames: Int
        /// Frames where the truth has the figure but we have none, or our lead is another vehicle.
        public var missed: Int
        /// Median of the absolute errors (the mean of the middle two of an even count).
        public var median: Double?
        /// 90th percentile of the absolute errors (nearest rank).
        public var p90: Double?
        /// Median of the signed errors: positive when ours is the larger.
        public var bias: Double?

        /// The spread of `errors`, with `missed` frames that had none.
        public init(errors: [Double], missed: Int) {
            frames = errors.count
            self.missed = missed
            let absolute = errors.map(abs).sorted()
            median = Self.median(absolute)
            p90 = absolute.isEmpty ? nil : absolute[min(absolute.count - 1, max(0, Int((0.9 * Double(absolute.count)).rounded(.up)) - 1))]
            bias = Self.median(errors.sorted())
        }

        private static func median(_ sorted: [Double]) -> Double? {
            guard !sorted.isEmpty else { return nil }
            let mid = sorted.count / 2
            return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
        }

        private enum CodingKeys: String, CodingKey { case frames, missed, median = "median_s", p90 = "p90_s", bias = "bias_s" }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(frames, forKey: .frames)
            try c.encode(missed, forKey: .missed)
            try c.encode(median, forKey: .median)
            try c.encode(p90, forKey: .p90)
            try c.encode(bias, forKey: .bias)
        }
    }

    /// Every drive, in the order added.
    public var drives: [Drive]
    /// The NHTSA tests (`lvs`, `lvd`, `lvm`), one per scenario and parameters, in order of first drive.
    public var tests: [Test]
    /// The free-flow drives.
    public var freeFlow: FreeFlow
    /// The cut-in drives.
    public var cutIns: CutIns
    /// The true times to collision under which the errors are measured, s (`errorWindowSeconds`).
    public var errorWindow: Double
    /// Time to collision error where the true one is under `errorWindow`.
    public var timeToCollisionError: Spread
    /// Headway error wherever the truth has a headway.
    public var headwayError: Spread
    /// Headway error where the true time to collision is under `errorWindow`.
    public var headwayErrorInWindow: Spread

    /// Creates a report.
    public init(
        drives: [Drive], tests: [Test], freeFlow: FreeFlow, cutIns: CutIns, errorWindow: Double, timeToCollisionError: Spread, headwayError: Spread,
        headwayErrorInWindow: Spread
    ) {
        self.drives = drives
        self.tests = tests
        self.freeFlow = freeFlow
        self.cutIns = cutIns
        self.errorWindow = errorWindow
        self.timeToCollisionError = timeToCollisionError
        self.headwayError = headwayError
        self.headwayErrorInWindow = headwayErrorInWindow
    }

    private enum CodingKeys: String, CodingKey {
        case drives, tests, freeFlow = "free_flow", cutIns = "cut_ins", errorWindow = "error_window_ttc_s", timeToCollisionError = "ttc_error"
        case headwayError = "headway_error", headwayErrorInWindow = "headway_error_in_window"
    }
}
