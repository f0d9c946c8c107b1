import Foundation

extension VehicleTracker {
    // MARK: Velocities (§8.5)

    /// World velocity used to predict: over the last `predictionObservations` samples, or over the
    /// baseline when that is unset.
    func predictionVelocity(_ track: VehicleTrack) -> SIMD2<Double>? {
        if let n = configuration.predictionObservations { return track.worldVelocity(observations: n) }
        return track.worldVelocity(over: configuration.baselineSeconds)
    }

    /// World velocity used for the motion state: least squares over the last `stateObservations`
    /// samples, or over the baseline when that is unset.
    func stateVelocity(_ track: VehicleTrack) -> SIMD2<Double>? {
        if let n = configuration.stateObservations { return track.fittedWorldVelocity(observations: n) }
        return track.worldVelocity(over: configuration.baselineSeconds)
    }

    /// Predicted velocity in the ego frame: zero when parked.
    func egoVelocity(_ track: VehicleTrack) -> SIMD2<Double>? {
        if track.state == .parked { return .zero }
        return predictionVelocity(track).map(pose.rotateToEgo)
    }

    /// Reported velocity in the ego frame: zero when parked, the smoothed world velocity otherwise.
    func outputVelocity(_ track: VehicleTrack) -> SIMD2<Double>? {
        if track.state == .parked { return .zero }
        return track.outputWorldVelocity.map(pose.rotateToEgo)
    }

    // MARK: Motion state (§8.4 step 11)

    /// Updates the smoothed velocity and the parked / moving / unknown state of every track seen
    /// within `coastFreezeSeconds`; older coasting tracks keep theirs frozen.
    mutating func labelStates(t: Double) {
        for i in tracks.indices where t - tracks[i].lastSeenT <= configuration.coastFreezeSeconds {
            let velocity = stateVelocity(tracks[i])
            if tracks[i].observed, let velocity {
                if let old = tracks[i].outputWorldVelocity {
                    tracks[i].outputWorldVelocity = old + (velocity - old) * configuration.outputVelocityAlpha
                } else {
                    tracks[i].outputWorldVelocity = velocity
                }
            }
            guard let velocity, tracks[i].range <= configuration.stateMaximumRange else {
                tracks[i].state = .unknown
                tracks[i].parkedVotes = 0
                continue
            }
            if hypot(velocity.x, velocity.y) < parkedThreshold(tracks[i]) {
                tracks[i].parkedVotes += 1
                if tracks[i].parkedVotes >= configuration.parkedConfirmationFrames {
                    tracks[i].state = .parked
                }
            } else {
                tracks[i].state = .moving
                tracks[i].parkedVotes = 0
            }
        }
    }

    /// Speed below which a track votes parked: `parkedBelow`, or the noise-derived
    /// `parkedSigmas·√2·σr / span` when larger (span of the state samples, else the baseline).
    func parkedThreshold(_ track: VehicleTrack) -> Double {
        let span =
            configuration.stateObservations.flatMap { track.sampleSpan(observations: $0) }
            ?? configuration.baselineSeconds
        let sigma = sigmas(x: track.box.x, y: track.box.y).radial
        return max(configuration.parkedBelow, configuration.parkedSigmas * 2.0.squareRoot() * sigma / span)
    }
}
