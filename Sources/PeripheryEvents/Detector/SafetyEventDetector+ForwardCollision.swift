extension SafetyEventDetector {
    /// The forward-collision rule: on after `confirmationFrames` consecutive frames in which the
    /// same lead's time to collision is at or under the threshold, it closes in at least
    /// `minimumClosingSpeed` fast and the ego is at least `minimumEgoSpeed` fast, outside the
    /// refractory period; off at the first frame in which that lead is no longer the lead, its time
    /// to collision exceeds the threshold plus the hysteresis or is unknown, or the ego is too slow.
    /// A frame in which the tracker coasts the lead is no evidence either way: it neither confirms
    /// nor breaks a confirmation, and it does not end a warning on that lead.
    mutating func updateForwardCollision(
        at t: Double, lead: TrackFigures?, ego: EgoMotion?, figures: [Int: TrackFigures]
    ) -> [SafetyEventReport] {
        let rule = configuration.forwardCollision
        let fastEnough = (ego?.speed).map { $0 >= rule.minimumEgoSpeed } ?? false
        if var event = forwardCollision {
            let current = figures[event.track]
            let coasted = lead.map { !$0.measured } ?? false
            let holds =
                fastEnough && lead?.track == event.track
                && (coasted || (lead?.timeToCollision).map { $0 <= rule.timeToCollisionSeconds + rule.hysteresisSeconds } ?? false)
            guard holds else {
                forwardCollision = nil
                lastForwardCollisionEnd = t
                return [end(event, at: t, figures: current)]
            }
            event.add(current)
            forwardCollision = event
            return [event.report(.update, figures: current)]
        }

        if let lead, !lead.measured {
            if forwardCollisionCandidate?.track != lead.track { forwardCollisionCandidate = nil }
            return []
        }
        guard let lead, fastEnough, let closing = lead.closing, closing.speed >= rule.minimumClosingSpeed,
            let ttc = lead.timeToCollision, ttc <= rule.timeToCollisionSeconds
        else {
            forwardCollisionCandidate = nil
            return []
        }
        var candidate = EventCandidate(track: lead.track, onset: t)
        if let previous = forwardCollisionCandidate, previous.track == lead.track { candidate = previous }
        candidate.add(lead)
        let rested = lastForwardCollisionEnd.map { t - $0 >= rule.refractorySeconds - Self.timeTolerance } ?? true
        // A confirmed candidate waits out the refractory period, and starts then if it still holds.
        guard candidate.frames >= rule.confirmationFrames, rested else {
            forwardCollisionCandidate = candidate
            return []
        }
        let event = OpenEvent(type: .forwardCollision, candidate: candidate, start: t, figures: lead)
        forwardCollision = event
        forwardCollisionCandidate = nil
        return [event.report(.start, figures: lead)]
    }
}
