import Foundation

extension VehicleTracker {
    /// The confirmed tracks (`hits ≥ confirmHits`) as reported, in track order (§8.4 step 12).
    func confirmedTracks(t: Double) -> [TrackedVehicle] {
        tracks.filter { $0.hits >= configuration.confirmHits }.map { output($0, t: t) }
    }

    /// One track as reported: display heading from the velocity when fast enough, otherwise the
    /// model yaw less the heading bias; trail points at least 0.1 s apart within `trailSeconds`.
    private func output(_ track: VehicleTrack, t: Double) -> TrackedVehicle {
        let velocity = outputVelocity(track)
        let heading: Double
        let source: TrackedVehicle.HeadingSource
        if let velocity, hypot(velocity.x, velocity.y) >= configuration.motionHeadingMinimumSpeed {
            heading = Self.wrap(atan2(velocity.y, velocity.x))
            source = .motion
        } else {
            heading = Self.wrap(track.box.yaw - configuration.headingBiasDegrees * Double.pi / 180)
            source = .model
        }
        var trail: [SIMD3<Double>] = []
        for sample in track.world where t - sample.t <= configuration.trailSeconds {
            if let last = trail.last, sample.t - last.x < 0.1 { continue }
            let p = pose.toEgo(SIMD2(sample.x, sample.y))
            trail.append(SIMD3(sample.t, p.x, p.y))
        }
        return TrackedVehicle(
            id: track.id,
            box: VehicleBox(
                x: track.box.x, y: track.box.y, z: track.box.z, length: track.box.length, width: track.box.width,
                height: track.box.height, yaw: heading),
            modelYaw: track.box.yaw, headingSource: source,
            label: track.label, score: Double(track.score), hits: track.hits, observed: track.observed,
            ageSeconds: t - track.firstT, state: track.state, velocity: velocity, trail: trail)
    }

    /// An angle in [−π, π): `((a + π) mod 2π, made non-negative) − π`.
    static func wrap(_ angle: Double) -> Double {
        var value = (angle + Double.pi).truncatingRemainder(dividingBy: 2 * Double.pi)
        if value < 0 { value += 2 * Double.pi }
        return value - Double.pi
    }
}
