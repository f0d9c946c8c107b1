extension SafetyEventDetector {
    /// The close-following rule: following is close from the frame in which the lead's headway
    /// drops under the threshold, and stays close while the same lead's headway stays at or under
    /// the threshold plus the hysteresis and the ego is at least `minimumEgoSpeed` fast; the event
    /// starts once it has stayed close for `minimumDurationSeconds` and ends at the first frame it
    /// is no longer close.
    mutating func updateCloseFollowing(
        at t: Double, lead: TrackFigures?, ego: EgoMotion?, figures: [Int: TrackFigures]
    ) -> [SafetyEventReport] {
        let rule = configuration.closeFollowing
        let fastEnough = (ego?.speed).map { $0 >= rule.minimumEgoSpeed } ?? false
        func staysClose(_ track: Int) -> Bool {
            fastEnough && lead?.track == track && (lead?.headway).map { $0 <= rule.headwaySeconds + rule.hysteresisSeconds } ?? false
        }

        if var event = closeFollowing {
            let current = figures[event.track]
            guard staysClose(event.track) else {
                closeFollowing = nil
                return [end(event, at: t, figures: current)]
            }
            event.add(current)
            closeFollowing = event
            return [event.report(.update, figures: current)]
        }

        var candidate: EventCandidate
        if let previous = closeFollowingCandidate, staysClose(previous.track) {
            candidate = previous
        } else if let lead, fastEnough, let headway = lead.headway, headway < rule.headwaySeconds {
            candidate = EventCandidate(track: lead.track, onset: t)
        } else {
            closeFollowingCandidate = nil
            return []
        }
        candidate.add(lead)
        guard t - candidate.onset >= rule.minimumDurationSeconds - Self.timeTolerance else {
            closeFollowingCandidate = candidate
            return []
        }
        let event = OpenEvent(type: .closeFollowing, candidate: candidate, start: t, figures: lead)
        closeFollowing = event
        closeFollowingCandidate = nil
        return [event.report(.start, figures: lead)]
    }
}
