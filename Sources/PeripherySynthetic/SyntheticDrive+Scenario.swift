import Foundation
import PeripheryCore
import PeripheryGeometry

/// The scripted lead of a scenario drive, the traffic cleared around it, and where the drive ends.
extension SyntheticDrive {
    /// Frames a recording at `fps` holds of the `requested`: all of them, or for a scripted drive
    /// those before the lead, in the ego's path, first comes within 0.5 m (the test has the ego brake
    /// or steer away there; the drive ends instead). A cut-in still beside the ego does not end it.
    public func recordedFrames(requested: Int, fps: Double) -> Int {
        guard let leadID else { return requested }
        for index in 0..<requested {
            let t = Double(index) / fps
            // The scripted ego drives straight: the path's lateral offset is y.
            let (range, centre) = reach(of: leadID, at: t, ego: ego(at: t))
            if range <= SyntheticScenario.contactRange && abs(centre.y) <= Self.corridorHalfWidth { return index }
        }
        return requested
    }

    /// Lateral offset of the centre of the lane the ego drives (the lane about d = 0).
    static func egoLaneCentre(_ road: SyntheticRoad) -> Double {
        (0..<road.laneCount).map(road.laneCentre).first { abs($0) < road.laneWidth / 2 } ?? 0
    }

    /// The lane a cut-in comes from: the one to the left with the traffic, else the one to the
    /// right, else (a two-lane road) the oncoming lane, from which an overtaking vehicle cuts back in.
    static func cutInLaneCentre(_ road: SyntheticRoad, egoLane: Double) -> Double {
        let ego = Int(((egoLane - road.rightEdge) / road.laneWidth - 0.5).rounded())
        let left = ego + 1, right = ego - 1
        if left < road.laneCount && !road.isOpposite(left) { return road.laneCentre(left) }
        return road.laneCentre(right >= 0 ? right : left)
    }

    /// The scripted lead: a light vehicle of the seed's own draw, centred in the ego's lane (a cut-in
    /// starting in the adjacent lane), placed so that its range is the scenario's gap at the gap's
    /// moment. The ego's vehicle origin is at arc length 20 + speed·t.
    static func scriptedLead(_ scenario: SyntheticScenario, seed: UInt64, road: SyntheticRoad, egoLane: Double) -> Mover {
        // A stream of its own, so that the traffic's draws stay the seed's.
        var rng = SyntheticRandom(seed: SyntheticRandom.mix(seed ^ 0x1EAD_CA12))
        let size = SIMD3(rng.uniform(3.8, 5.4), rng.uniform(1.7, 2.1), rng.uniform(1.4, 2.0))
        let paint = SceneSampler.paints[rng.integer(0...(SceneSampler.paints.count - 1))] * rng.uniform(0.85, 1.1)
        // A hatchback or saloon: the tests' lead vehicle is a passenger car.
        let variant = rng.uniform(0, 0.75)
        let t = scenario.gapTime
        let egoS = 20 + (scenario.egoSpeed ?? 0) * t
        let start = egoS + egoFrontOfOrigin + (scenario.gap ?? 0) + size.x / 2 - scenario.leadMotion(at: t).travel
        let from = scenario.kind == .cutIn ? cutInLaneCentre(road, egoLane: egoLane) : egoLane
        return Mover(
            vehicleClass: .lightVehicle, size: size, paint: paint, variant: variant, isParked: false, facesBack: false, s: start,
            speed: scenario.leadSpeed ?? 0, d: egoLane, script: scenario, laneChangeFrom: from)
    }

    /// The traffic without the vehicles that at some moment of the drive come within 1 m of the
    /// lead, or drive in the ego's lane between the ego and the lead (which would make them the
    /// in-path lead). Checked every 50 ms, in which two vehicles close by less than 5 m (at most
    /// 70 + 22 m/s), less than any two footprints' lengths and the margin span.
    static func clearing(_ traffic: [Mover], around lead: Mover, egoLane: Double, egoSpeed: Double, duration: Double) -> [Mover] {
        // The road of a scripted drive is straight along world x from the origin: road coordinates are world coordinates.
        func corners(_ place: (s: Double, d: Double, heading: Double), _ size: SIMD3<Double>) -> [SIMD2<Double>] {
            let c = cos(place.heading), s = sin(place.heading), hl = size.x / 2, hw = size.y / 2
            return [(hl, hw), (-hl, hw), (-hl, -hw), (hl, -hw)].map { SIMD2(place.s + c * $0.0 - s * $0.1, place.d + s * $0.0 + c * $0.1) }
        }
        let steps = Int((duration / 0.05).rounded(.up))
        let times = (0...steps).map { Double($0) * 0.05 }
        let leads = times.map { lead.place(at: $0) }
        let leadFootprints = leads.map { corners($0, lead.size) }
        let sweep = (low: min(lead.d, lead.laneChangeFrom), high: max(lead.d, lead.laneChangeFrom))
        return traffic.filter { mover in
            let inEgoLane = abs(mover.d - egoLane) < 2.3
            // Beside the lead's lateral sweep by more than both half-diagonals and the margin: never close.
            let aside = max(mover.d - sweep.high, sweep.low - mover.d, 0)
            guard inEgoLane || aside < (lead.size.x + lead.size.y + mover.size.x + mover.size.y) / 2 + 1 else { return true }
            for (index, t) in times.enumerated() {
                let place = mover.place(at: t), egoS = 20 + egoSpeed * t
                if inEgoLane && place.s > egoS - 3 && place.s < leads[index].s { return false }
                if Footprint.overlap(corners(place, mover.size), leadFootprints[index], margin: 1) { return false }
            }
            return true
        }
    }
}
