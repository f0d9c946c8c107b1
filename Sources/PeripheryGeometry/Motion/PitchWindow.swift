/// The rolling window of per-pair mount estimates and its robust statistics
/// (`docs/reference/calibration-from-motion.md#91-pitch-and-yaw-from-the-focus-of-expansion`): median pitch and yaw, σ from the 16th–84th percentiles,
/// an accept rate over the latest attempts, and when the estimate may be shown or applied.
public struct PitchWindow: Sendable, Hashable {
    /// Gates and sizes of one use of the estimator.
    public struct Profile: Sendable, Hashable {
        /// Slowest speed that feeds the window, m/s (negative: no gate).
        public var minimumSpeed: Double
        /// Fastest yaw rate that feeds it, rad/s.
        public var maximumYawRate: Double
        /// Pairs kept.
        public var window: Int
        /// Pairs before the estimate is reported.
        public var samplesToReport: Int
        /// Pairs before it may be applied to the pose.
        public var samplesToApply: Int
        /// Whether a converged estimate may overwrite the mount pitch.
        public var writesToPose: Bool

        /// A profile from its gates and sizes (yaw rate in rad/s).
        public init(
            minimumSpeed: Double, maximumYawRate: Double, window: Int, samplesToReport: Int, samplesToApply: Int,
            writesToPose: Bool
        ) {
            precondition(window > 0 && samplesToReport >= 0 && samplesToApply >= 0, "window sizes must be positive")
            self.minimumSpeed = minimumSpeed
            self.maximumYawRate = maximumYawRate
            self.window = window
            self.samplesToReport = samplesToReport
            self.samplesToApply = samplesToApply
            self.writesToPose = writesToPose
        }

        /// The validated driving profile: ≥ 8 m/s, ≤ 1.5°/s, 400 pairs, report at 60, apply at 200.
        public static let driving = Profile(
            minimumSpeed: 8, maximumYawRate: 1.5 * .pi / 180, window: 400, samplesToReport: 60, samplesToApply: 200,
            writesToPose: true)
        /// Handheld: no speed gate, ≤ 8°/s, 60 pairs, report at 8, never applied.
        static let handheld = Profile(
            minimumSpeed: -1, maximumYawRate: 8 * .pi / 180, window: 60, samplesToReport: 8, samplesToApply: .max,
            writesToPose: false)
    }

    /// The profile in use.
    public let profile: Profile
    private(set) var pitches: [Double] = []
    private(set) var yaws: [Double] = []
    private(set) var rawPitches: [Double] = []
    private(set) var inliers: [Int] = []
    private var attempts: [Bool] = []

    /// An empty window.
    public init(profile: Profile = .driving) { self.profile = profile }

    /// Records an accepted pair: its pitch and yaw (radians), the pitch without de-rotation and
    /// the inlier count. The oldest pair leaves a full window.
    public mutating func add(pitch: Double, yaw: Double, rawPitch: Double, inliers count: Int) {
        PitchWindow.push(&pitches, pitch, limit: profile.window)
        PitchWindow.push(&yaws, yaw, limit: profile.window)
        PitchWindow.push(&rawPitches, rawPitch, limit: profile.window)
        PitchWindow.push(&inliers, count, limit: profile.window)
        PitchWindow.push(&attempts, true, limit: 60)
    }

    /// Records a pair that reached the estimator and gave nothing (no consensus, contracting flow).
    public mutating func reject() { PitchWindow.push(&attempts, false, limit: 60) }

    /// Accepted pairs in the window.
    public var samples: Int { pitches.count }
    /// Median pitch, radians (nil when empty).
    public var pitch: Double? { PitchWindow.median(pitches) }
    /// Median yaw, radians.
    public var yaw: Double? { PitchWindow.median(yaws) }
    /// Median pitch of the same pairs without de-rotation, radians (the diagnostic).
    public var pitchWithoutDerotation: Double? { PitchWindow.median(rawPitches) }
    /// Robust σ of the pitch, radians: half the 16th–84th percentile spread; 0 below 8 pairs.
    public var pitchSigma: Double { PitchWindow.robustSigma(pitches) }
    /// Median inlier count.
    public var medianInliers: Int? { PitchWindow.median(inliers.map(Double.init)).map { Int($0.rounded()) } }
    /// Share of the latest 60 attempts that were accepted.
    public var acceptRate: Double { attempts.isEmpty ? 0 : Double(attempts.filter { $0 }.count) / Double(attempts.count) }
    /// Whether enough pairs are in to show the estimate.
    public var isReportable: Bool { samples >= profile.samplesToReport }
    /// Whether the estimate may be applied to the mount.
    public var isConverged: Bool { profile.writesToPose && samples >= profile.samplesToApply }

    static func push<T>(_ array: inout [T], _ value: T, limit: Int) {
        array.append(value)
        if array.count > limit { array.removeFirst(array.count - limit) }
    }

    /// Median; an even count takes the mean of the middle two.
    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted(), n = sorted.count
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2
    }

    static func robustSigma(_ values: [Double]) -> Double {
        let n = values.count
        guard n >= 8 else { return 0 }
        let sorted = values.sorted()
        return (sorted[min(Int(Double(n) * 0.84), n - 1)] - sorted[Int(Double(n) * 0.16)]) / 2
    }
}
