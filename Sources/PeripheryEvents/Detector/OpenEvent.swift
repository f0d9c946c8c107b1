/// The smallest figures seen so far of one event's vehicle.
struct PeakFigures: Sendable, Hashable {
    var timeToCollision: Double?
    var headway: Double?
    var range: Double?

    mutating func add(_ figures: TrackFigures?) {
        guard let figures else { return }
        timeToCollision = Self.smaller(timeToCollision, figures.timeToCollision)
        headway = Self.smaller(headway, figures.headway)
        range = Self.smaller(range, figures.range)
    }

    private static func smaller(_ a: Double?, _ b: Double?) -> Double? {
        guard let a else { return b }
        guard let b else { return a }
        return min(a, b)
    }
}

/// A condition that has begun to hold but is not yet an event: the frames of its confirmation or
/// the time of its minimum duration.
struct EventCandidate: Sendable, Hashable {
    var track: Int
    var onset: Double
    var frames = 0
    var peaks = PeakFigures()

    init(track: Int, onset: Double) {
        self.track = track
        self.onset = onset
    }

    mutating func add(_ figures: TrackFigures?) {
        frames += 1
        peaks.add(figures)
    }
}

/// An event that is on.
struct OpenEvent: Sendable, Hashable {
    var type: SafetyEventType
    var track: Int
    var onset: Double
    var start: Double
    var peaks: PeakFigures
    /// The vehicle's figures at the last frame that saw it, for an end at `finish()`.
    var latest: TrackFigures?

    /// The event that a confirmed candidate starts at `start`.
    init(type: SafetyEventType, candidate: EventCandidate, start: Double, figures: TrackFigures?) {
        self.type = type
        track = candidate.track
        onset = candidate.onset
        self.start = start
        peaks = candidate.peaks
        latest = figures
    }

    /// Takes in a frame's figures of the vehicle (`nil`: not seen).
    mutating func add(_ figures: TrackFigures?) {
        peaks.add(figures)
        if let figures { latest = figures }
    }

    /// The report of this frame, with the vehicle's figures at it.
    func report(_ phase: SafetyEventPhase, figures: TrackFigures?) -> SafetyEventReport {
        SafetyEventReport(
            type: type, phase: phase, track: track, timeToCollision: figures?.timeToCollision, headway: figures?.headway,
            range: figures?.range)
    }

    /// The finished event, ended at `end`.
    func finished(at end: Double) -> SafetyEvent {
        SafetyEvent(
            type: type, track: track, onset: onset, start: start, end: end, minimumTimeToCollision: peaks.timeToCollision,
            minimumHeadway: peaks.headway, minimumRange: peaks.range)
    }
}
