extension SafetyEventDetector {
    /// The cut-in rule, per track: a track seen beyond the corridor's edge plus the margin for
    /// `confirmationFrames` consecutive frames, which then stays inside the corridor within
    /// `maximumRangeMetres` for `confirmationFrames` consecutive frames, cuts in at the last of
    /// them if the ego is at least `minimumEgoSpeed` fast. One that enters the corridor beyond the
    /// range (or was never seen outside, like a vehicle always in the lane) does not. A new track
    /// of a vehicle seen under an older id carries on that id's corridor history (`adoptHistory`).
    /// The cut-in ends `durationSeconds` after its start, or earlier when the track leaves the
    /// corridor or is lost. A frame in which the tracker coasts the track is no evidence either
    /// way: it counts neither outside nor inside, and does not end a cut-in.
    mutating func updateCutIns(at t: Double, ego: EgoMotion?, figures: [Int: TrackFigures]) -> [SafetyEventReport] {
        let rule = configuration.cutIn
        let fastEnough = (ego?.speed).map { $0 >= rule.minimumEgoSpeed } ?? false
        let outsideBeyond = configuration.corridorWidthMetres / 2 + rule.lateralMarginMetres
        var reports: [SafetyEventReport] = []
        for (track, event) in cutIns where figures[track] == nil {
            cutIns[track] = nil
            reports.append(end(event, at: t, figures: nil))
        }

        var kept: [Int: LateralHistory] = [:]
        for (track, current) in figures {
            var history = lateral[track] ?? LateralHistory()
            if !current.measured {
                // Coasted: the history stands as it was.
            } else if abs(current.lateralOffset) > outsideBeyond {
                history.outsideFrames += 1
                history.entry = nil
                if history.outsideFrames >= rule.confirmationFrames { history.seenOutside = true }
            } else if current.inCorridor && current.range > 0 && current.range <= rule.maximumRangeMetres {
                history.outsideFrames = 0
                var entry = history.entry ?? EventCandidate(track: track, onset: t)
                entry.add(current)
                history.entry = entry
            } else {
                // On the margin, or in the corridor out of range: an entry beyond the range is not
                // a cut-in, and it uses up the sighting outside.
                if current.inCorridor { history.seenOutside = false }
                history.outsideFrames = 0
                history.entry = nil
            }

            if var event = cutIns[track] {
                if (current.measured && !current.inCorridor) || t - event.start >= rule.durationSeconds - Self.timeTolerance {
                    cutIns[track] = nil
                    reports.append(end(event, at: t, figures: current))
                } else {
                    event.add(current)
                    cutIns[track] = event
                    reports.append(event.report(.update, figures: current))
                }
            } else if current.measured, history.seenOutside, let entry = history.entry, entry.frames >= rule.confirmationFrames {
                // Decided at this frame either way: an entry while the ego is too slow does not cut in later.
                history.seenOutside = false
                if fastEnough {
                    let event = OpenEvent(type: .cutIn, candidate: entry, start: t, figures: current)
                    cutIns[track] = event
                    reports.append(event.report(.start, figures: current))
                }
            }
            kept[track] = history
        }
        lateral = kept
        return reports.sorted { $0.track < $1.track }
    }
}
