import PeripheryCore

/// The safety events of a stream of frames: fed each frame's confirmed tracks and ego motion, it
/// finds the in-path lead, its time to collision and headway, and starts, updates and ends
/// forward-collision, close-following and cut-in events (`docs/guides/events.md`).
///
/// A value type, stepped once per frame in time order like the tracker it follows. Without ego
/// motion (`ego` nil, invalid or spanning no time) the ego's speed is unknown: the path is straight,
/// there is no headway, and no event starts, since none can check its minimum ego speed; ranges,
/// closing speeds and times to collision are still measured, as they need no ego motion.
public struct SafetyEventDetector: Sendable {
    /// The rules it runs by.
    public let configuration: SafetyEventConfiguration
    /// Every event that has ended, in the order they ended.
    public internal(set) var finishedEvents: [SafetyEvent] = []

    /// Per track: recent ranges.
    var histories: [Int: RangeHistory] = [:]
    /// The histories of tracks no longer reported, by their old id, until a new track of the same
    /// vehicle takes one on or `continuitySeconds` pass.
    var lostHistories: [Int: RangeHistory] = [:]
    /// Per track: where it has been relative to the corridor.
    var lateral: [Int: LateralHistory] = [:]
    /// The corridor histories of the tracks in `lostHistories`, by their old id.
    var lostLateral: [Int: LateralHistory] = [:]
    var forwardCollision: OpenEvent?
    var forwardCollisionCandidate: EventCandidate?
    /// When the last forward-collision warning ended, for the refractory period.
    var lastForwardCollisionEnd: Double?
    var closeFollowing: OpenEvent?
    var closeFollowingCandidate: EventCandidate?
    /// Open cut-ins by track id.
    var cutIns: [Int: OpenEvent] = [:]
    var worstTimeToCollision: SustainedMinimum
    var worstHeadway: SustainedMinimum
    /// The last finite frame time.
    var lastTimestamp: Double?
    /// The sum of the forward steps between frames.
    var elapsedSeconds = 0.0

    /// Slack in comparisons of elapsed time, for timestamps such as 0.1·k that do not add up exactly.
    static let timeTolerance = 1e-9

    /// A detector with the default configuration.
    public init() {
        self.init(validated: SafetyEventConfiguration())
    }

    /// A detector with `configuration`.
    ///
    /// - Throws: `SafetyEventConfigurationError` naming a field that is not finite or out of its range.
    public init(configuration: SafetyEventConfiguration) throws(SafetyEventConfigurationError) {
        try configuration.validate()
        self.init(validated: configuration)
    }

    private init(validated configuration: SafetyEventConfiguration) {
        self.configuration = configuration
        worstTimeToCollision = SustainedMinimum(frames: configuration.forwardCollision.confirmationFrames)
        worstHeadway = SustainedMinimum(frames: configuration.forwardCollision.confirmationFrames)
    }

    /// Takes in one frame: its time (seconds), the ego's motion since the previous frame, the
    /// confirmed tracks after it and whether the tracker was reset before it.
    ///
    /// A tracker reset, or a time that does not move forward, ends every event that is on (its
    /// track ids may now name other vehicles) and forgets every track's history; a non-finite time
    /// does the same and gives no lead.
    public mutating func update(timestamp: Double, ego delta: EgoDelta?, tracks: [TrackedVehicle], trackerReset: Bool = false) -> SafetyAssessment {
        var reports: [SafetyEventReport] = []
        guard timestamp.isFinite else {
            if let last = lastTimestamp { reports = endAll(at: last, withLatestFigures: false) }
            forgetTracks()
            return SafetyAssessment(timestamp: timestamp, ego: nil, path: .straight, lead: nil, inPathTracks: [], reports: reports)
        }
        if let last = lastTimestamp, timestamp <= last {
            // Another clock, or a restarted one: its times cannot be compared with the old ones.
            reports = endAll(at: last, withLatestFigures: false)
            forgetTracks()
            lastForwardCollisionEnd = nil
        } else if trackerReset {
            reports = endAll(at: timestamp, withLatestFigures: false)
            forgetTracks()
        }
        if let last = lastTimestamp, timestamp > last { elapsedSeconds += timestamp - last }
        lastTimestamp = timestamp

        let ego = delta.flatMap(EgoMotion.init)
        let path = PredictedPath(ego: ego, minimumMovingSpeed: configuration.minimumMovingSpeed)
        let figures = measure(tracks, at: timestamp, ego: ego, path: path)
        let inPath = figures.values.filter(\.inPath).sorted { ($0.range, $0.track) < ($1.range, $1.track) }
        let lead = inPath.first

        reports += updateForwardCollision(at: timestamp, lead: lead, ego: ego, figures: figures)
        reports += updateCloseFollowing(at: timestamp, lead: lead, ego: ego, figures: figures)
        reports += updateCutIns(at: timestamp, ego: ego, figures: figures)
        updateWorstFigures(lead: lead, ego: ego)
        return SafetyAssessment(
            timestamp: timestamp, ego: ego, path: path, lead: lead?.leadMeasurement, inPathTracks: inPath.map(\.track), reports: reports)
    }

    /// Ends every event that is still on, at the last frame's time, with its vehicle's figures at
    /// the last frame that saw it; the end of a run. Returns their `end` reports.
    public mutating func finish() -> [SafetyEventReport] {
        guard let last = lastTimestamp else { return [] }
        forwardCollisionCandidate = nil
        closeFollowingCandidate = nil
        for track in lateral.keys { lateral[track]?.entry = nil }
        return endAll(at: last, withLatestFigures: true)
    }

    /// Forgets everything, finished events included: a fresh detector with the same configuration.
    public mutating func reset() {
        self = SafetyEventDetector(validated: configuration)
    }

    /// The run so far: the finished events (call `finish()` first to count those still on), the
    /// worst figures, and rates per `durationSeconds` (by default the time the frames spanned).
    public func summary(durationSeconds: Double? = nil) -> SafetyEventSummary {
        SafetyEventSummary(
            events: finishedEvents, durationSeconds: durationSeconds ?? elapsedSeconds,
            minimumTimeToCollision: worstTimeToCollision.minimum, minimumHeadway: worstHeadway.minimum)
    }

    /// Every track's figures at this frame.
    ///
    /// Only a range the detector measured at this frame enters a history: a track the tracker
    /// coasts (`observed` false) is at its predicted place, which would feed the tracker's own
    /// velocity back as a closing speed, and a box at the grid's far edge (`farEdgeMarginMetres`)
    /// is held there while the vehicle closes in. A new track takes on the history of the same
    /// vehicle under an older id (`adoptHistory`), with where it has been relative to the corridor.
    private mutating func measure(_ tracks: [TrackedVehicle], at t: Double, ego: EgoMotion?, path: PredictedPath) -> [Int: TrackFigures] {
        let c = configuration
        let reported = Set(tracks.map(\.id))
        for (id, history) in histories where !reported.contains(id) {
            lostHistories[id] = history
            lostLateral[id] = lateral.removeValue(forKey: id)
        }
        lostHistories = lostHistories.filter { _, history in
            history.samples.last.map { t - $0.x <= c.continuitySeconds + Self.timeTolerance } ?? false
        }
        lostLateral = lostLateral.filter { lostHistories[$0.key] != nil }

        var offsets: [Int: (range: Double, lateral: Double)] = [:]
        for track in tracks {
            let range = track.box.bumperRange(egoFront: c.egoFrontMetres)
            let offset = path.lateralOffset(x: track.box.x, y: track.box.y)
            if range.isFinite, offset.isFinite { offsets[track.id] = (range, offset) }
        }
        // New tracks first, so that a coasted track that gives its history away starts afresh.
        let coasted = Set(tracks.filter { !$0.observed }.map(\.id))
        for track in tracks where histories[track.id] == nil && lostHistories[track.id] == nil && track.observed {
            guard let place = offsets[track.id] else { continue }
            adoptHistory(for: track.id, range: place.range, lateralOffset: place.lateral, at: t, coasted: coasted)
        }

        let farEdge = c.farEdgeMarginMetres > 0 ? EvaluationRegion.safety40.maxX - c.farEdgeMarginMetres : Double.infinity
        var figures: [Int: TrackFigures] = [:]
        var kept: [Int: RangeHistory] = [:]
        for track in tracks {
            guard let (range, offset) = offsets[track.id] else { continue }
            // A track back under its own id after frames unreported keeps its own history.
            var history = histories[track.id] ?? lostHistories.removeValue(forKey: track.id) ?? RangeHistory()
            if lateral[track.id] == nil, let corridor = lostLateral.removeValue(forKey: track.id) { lateral[track.id] = corridor }
            if track.observed && track.box.x <= farEdge {
                history.append(t: t, range: range, window: c.kinematicsWindowSeconds)
                history.lateralOffset = offset
            }
            kept[track.id] = history
            let closing = history.closing(configuration: c)
            let inCorridor = abs(offset) <= c.corridorWidthMetres / 2
            figures[track.id] = TrackFigures(
                track: track.id, range: range, lateralOffset: offset, inCorridor: inCorridor,
                inPath: inCorridor && range > 0 && range <= c.maximumRangeMetres, measured: track.observed, closing: closing,
                timeToCollision: closing.flatMap {
                    CollisionTiming.timeToCollision(range: range, closingSpeed: $0.speed, closingAcceleration: $0.acceleration)
                },
                headway: ego.flatMap { CollisionTiming.headway(range: range, egoSpeed: $0.speed, minimumSpeed: c.minimumMovingSpeed) })
        }
        histories = kept
        return figures
    }

    /// Hands `track`, new at this frame at `range` and `lateralOffset`, the history of the same
    /// vehicle under an older id: a lost track's, or that of a track the tracker coasts at this
    /// frame (the detector sees the vehicle away from where the tracker predicts it, and a new
    /// track starts there). Of those within the continuity gates of the range their history
    /// predicts and of their last measured lateral offset, the nearest in range; its corridor
    /// history (for the cut-in rule) moves to `track`, and its range history too where the range
    /// lies within `continuityRangeSigmas` of the range noise of the prediction. A coasted donor
    /// starts afresh.
    private mutating func adoptHistory(for track: Int, range: Double, lateralOffset: Double, at t: Double, coasted: Set<Int>) {
        let c = configuration
        let gate = max(c.continuityRangeMetres, c.continuityRangeFraction * range)
        var best: (id: Int, miss: Double)?
        let donors = lostHistories.merging(histories.filter { coasted.contains($0.key) }) { lost, _ in lost }
        for (id, history) in donors {
            guard let last = history.samples.last, t - last.x <= c.continuitySeconds + Self.timeTolerance,
                let predicted = history.predictedRange(at: t, configuration: c), let offset = history.lateralOffset,
                abs(offset - lateralOffset) <= c.continuityLateralMetres
            else { continue }
            let miss = abs(range - predicted)
            if miss <= gate, best.map({ (miss, id) < ($0.miss, $0.id) }) ?? true { best = (id, miss) }
        }
        guard let best else { return }
        let history = lostHistories.removeValue(forKey: best.id) ?? histories.removeValue(forKey: best.id)
        let sigma = c.rangeNoiseMetres + c.rangeNoiseGrowth * range * range
        if c.continuityRangeSigmas == 0 || best.miss <= c.continuityRangeSigmas * sigma { histories[track] = history }
        var corridor = lostLateral.removeValue(forKey: best.id) ?? lateral.removeValue(forKey: best.id)
        corridor?.entry?.track = track
        lateral[track] = corridor
    }

    /// Ends every open event at `t`: with the figures of the last frame that saw each vehicle, or
    /// with none (after a reset the ids no longer name the same vehicles).
    private mutating func endAll(at t: Double, withLatestFigures: Bool) -> [SafetyEventReport] {
        var open: [OpenEvent] = []
        if let event = forwardCollision {
            open.append(event)
            lastForwardCollisionEnd = t
        }
        if let event = closeFollowing { open.append(event) }
        open += cutIns.keys.sorted().compactMap { cutIns[$0] }
        forwardCollision = nil
        closeFollowing = nil
        cutIns.removeAll()
        return open.map { end($0, at: t, figures: withLatestFigures ? $0.latest : nil) }
    }

    /// Records `event` as finished at `t` and returns its `end` report.
    mutating func end(_ event: OpenEvent, at t: Double, figures: TrackFigures?) -> SafetyEventReport {
        var event = event
        event.add(figures)
        finishedEvents.append(event.finished(at: t))
        return event.report(.end, figures: figures)
    }

    private mutating func forgetTracks() {
        histories.removeAll()
        lostHistories.removeAll()
        lateral.removeAll()
        lostLateral.removeAll()
        forwardCollisionCandidate = nil
        closeFollowingCandidate = nil
        worstTimeToCollision.interrupt()
        worstHeadway.interrupt()
    }

    private mutating func updateWorstFigures(lead: TrackFigures?, ego: EgoMotion?) {
        let speed = ego?.speed ?? -.infinity
        if let lead, speed >= configuration.forwardCollision.minimumEgoSpeed, let ttc = lead.timeToCollision {
            worstTimeToCollision.add(track: lead.track, value: ttc)
        } else {
            worstTimeToCollision.interrupt()
        }
        if let lead, speed >= configuration.closeFollowing.minimumEgoSpeed, let headway = lead.headway {
            worstHeadway.add(track: lead.track, value: headway)
        } else {
            worstHeadway.interrupt()
        }
    }
}
