import Foundation
import PeripheryCore
import PeripheryGeometry

/// A drive through the synthetic world, deterministic in its seed: a road of straights and curves
/// with roadside objects, traffic moving in its lanes and parked at the kerbs, and an ego vehicle
/// that follows its lane with a little wander while its body pitches over bumps.
///
/// `scene(at:)` gives the scene of one moment in the ego's vehicle frame (with a `WorldPlacement`
/// so that road markings curve and textures stay fixed to the world); `ego(at:)` gives the ego's
/// motion, from which a recorder's gyro, accelerometer and GPS are simulated.
///
/// With a scripted `scenario` the road is straight, the ego holds its lane centre at the scenario's
/// speed without wander, and a lead vehicle (`leadID`) follows the script; the rest of the traffic is
/// the seed's, less the vehicles that would come between the ego and the lead or touch the lead.
public struct SyntheticDrive: Sendable {
    /// One moment of the ego vehicle.
    public struct EgoState: Sendable, Hashable {
        /// Arc length along the road, metres.
        public var s: Double
        /// World position and heading.
        public var position: SIMD2<Double>
        public var heading: Double
        /// Ground speed, m/s.
        public var speed: Double
        /// Yaw rate, rad/s (positive left).
        public var yawRate: Double
        /// Body pitch over the road from bumps, radians (nose up positive), and its rate.
        public var bumpPitch: Double
        public var bumpPitchRate: Double
    }

    /// A vehicle of the traffic: where it is on the road at time 0 and how it moves.
    struct Mover: Sendable {
        var vehicleClass: VehicleClass
        var size: SIMD3<Double>
        var paint: SIMD3<Double>
        var variant: Double
        var isParked: Bool
        /// Whether it faces against the road's direction (oncoming lanes, some parked cars).
        var facesBack: Bool
        /// Arc length at time 0 and speed along the road (negative: driving against it).
        var s: Double
        var speed: Double
        /// Lateral offset from the centreline.
        var d: Double
        /// The scenario that scripts this vehicle's motion (the scripted lead alone), and the
        /// lateral offset it starts from (a cut-in starts in the adjacent lane and ends at `d`).
        var script: SyntheticScenario? = nil
        var laneChangeFrom = 0.0

        /// Arc length, lateral offset and heading relative to the road at time `t`.
        func place(at t: Double) -> (s: Double, d: Double, heading: Double) {
            guard let script else { return (s + speed * t, d, facesBack ? .pi : 0) }
            let along = script.leadMotion(at: t), lane = script.laneChange(at: t)
            let shift = d - laneChangeFrom
            return (s + along.travel, laneChangeFrom + shift * lane.share, atan2(shift * lane.rate, along.speed))
        }
    }

    /// A roadside object, placed by road coordinates.
    struct Prop: Sendable {
        var s: Double
        var d: Double
        var box: SyntheticBox
    }

    /// The drive's seed.
    public let seed: UInt64
    /// Length of the drive in seconds.
    public let duration: Double
    /// The road in the world frame.
    package let centreline: RoadCentreline
    /// The ego's speed along the road, m/s.
    public let egoSpeed: Double
    /// The scripted scenario; nil for a drive without one (the same drive as `free`).
    public let scenario: SyntheticScenario?
    /// The traffic index of the scripted lead (the `id` its labels carry); nil without one.
    public let leadID: Int?
    /// The lateral offset of the ego's lane centre, which a scripted ego holds; nil: the ego wanders about d = 0.
    let heldLane: Double?
    let template: SyntheticScene
    let movers: [Mover]
    let props: [Prop]
    let wander: (amplitude: Double, period: Double, phase: Double)
    let bumps: [(amplitude: Double, frequency: Double, phase: Double)]

    /// Draws a drive of `duration` seconds, scripted by `scenario` when one is given (`free` and
    /// nil give the same drive).
    ///
    /// Speeds are 9–22 m/s; the road alternates straights of 60–250 m with curves of radius
    /// 250–900 m (either way, 20–45° of turn); the body pitches by two sinusoids of 0.05–0.25° at
    /// 0.7–2.5 Hz. Vehicles in the ego's lane drive a little faster than the ego and start ahead of
    /// it, so that nothing runs into it.
    public init(seed: UInt64, duration: Double, scenario: SyntheticScenario? = nil, sampler: SceneSampler = SceneSampler()) {
        var rng = SyntheticRandom(seed: SyntheticRandom.mix(seed ^ 0xD21FE))
        self.seed = seed
        self.duration = duration
        self.scenario = scenario
        let scene = sampler.scene(seed: seed)
        // The single-frame scene supplies lanes, colours and sun; props and traffic are laid out anew.
        var template = scene
        template.props = []
        template.vehicles = []
        self.template = template
        // Drawn even when the scenario sets it, so that the rest of the seed's draws stay the same.
        let drawnSpeed = rng.uniform(9, 22)
        let script = scenario.flatMap { $0.isScripted ? $0 : nil }
        egoSpeed = script?.egoSpeed ?? drawnSpeed
        let length = egoSpeed * duration + 400
        var layout: [(length: Double, curvature: Double)] = [(rng.uniform(40, 120), 0)]
        var total = layout[0].length
        while total < length {
            let radius = rng.uniform(250, 900), turn = rng.uniform(20, 45) * .pi / 180
            let arc = radius * turn
            layout.append((arc, (rng.chance(0.5) ? 1 : -1) / radius))
            let straight = rng.uniform(60, 250)
            layout.append((straight, 0))
            total += arc + straight
        }
        // NHTSA's tests run on a straight, flat track: a scripted drive's road is one straight as long as the layout.
        centreline = script == nil ? RoadCentreline(layout) : RoadCentreline([(total, 0)])
        wander = (rng.uniform(0.05, 0.2), rng.uniform(8, 16), rng.uniform(0, 2 * .pi))
        bumps = (0..<2).map { _ in
            (rng.uniform(0.05, 0.25) * .pi / 180, rng.uniform(0.7, 2.5), rng.uniform(0, 2 * .pi))
        }
        let road = template.road
        props = SyntheticDrive.layProps(&rng, road: road, length: total)
        let traffic = SyntheticDrive.layTraffic(&rng, road: road, length: total, egoSpeed: egoSpeed)
        guard let script else {
            movers = traffic
            leadID = nil
            heldLane = nil
            return
        }
        let lane = SyntheticDrive.egoLaneCentre(road)
        let lead = SyntheticDrive.scriptedLead(script, seed: seed, road: road, egoLane: lane)
        movers = SyntheticDrive.clearing(traffic, around: lead, egoLane: lane, egoSpeed: egoSpeed, duration: duration) + [lead]
        leadID = movers.count - 1
        heldLane = lane
    }

    /// The ego at time `t`.
    public func ego(at t: Double) -> EgoState {
        func place(_ t: Double) -> (SIMD2<Double>, Double, Double) {
            let s = 20 + egoSpeed * t
            if let heldLane { return (centreline.point(s: s, d: heldLane), centreline.pose(at: s).heading, s) }
            let d = wander.amplitude * sin(2 * .pi * t / wander.period + wander.phase)
            let slope = wander.amplitude * 2 * .pi / wander.period * cos(2 * .pi * t / wander.period + wander.phase) / egoSpeed
            return (centreline.point(s: s, d: d), centreline.pose(at: s).heading + atan(slope), s)
        }
        let (p, heading, s) = place(t)
        // Central differences over 1 ms: exact to far below the sensors' noise.
        let h = 1e-3
        let (pa, ha, _) = place(t - h), (pb, hb, _) = place(t + h)
        let v = pb - pa
        let turn = RoadCentreline.wrapped(hb - ha)
        var pitch = 0.0, rate = 0.0
        for b in bumps {
            let w = 2 * .pi * b.frequency
            pitch += b.amplitude * sin(w * t + b.phase)
            rate += b.amplitude * w * cos(w * t + b.phase)
        }
        return EgoState(
            s: s, position: p, heading: heading, speed: (v * v).sum().squareRoot() / (2 * h), yawRate: turn / (2 * h),
            bumpPitch: pitch, bumpPitchRate: rate)
    }

    /// The scene at time `t` in the ego's vehicle frame, and for each of its vehicles its index in
    /// the drive's traffic (an identity that holds across frames).
    public func scene(at t: Double) -> (scene: SyntheticScene, trafficIndices: [Int]) {
        let ego = ego(at: t)
        let c = cos(ego.heading), s = sin(ego.heading)
        func local(_ world: SIMD2<Double>) -> SIMD2<Double> {
            let r = world - ego.position
            return SIMD2(c * r.x + s * r.y, -s * r.x + c * r.y)
        }
        func inView(_ p: SIMD2<Double>, margin: Double) -> Bool { p.x > -15 - margin && p.x < 170 + margin && abs(p.y) < 60 + margin }
        var scene = template
        for prop in props where abs(prop.s - ego.s - 70) < 110 {
            let p = local(centreline.point(s: prop.s, d: prop.d))
            let size = prop.box.halfExtents * 2
            guard inView(p, margin: max(size.x, size.y)) else { continue }
            let yaw = centreline.pose(at: prop.s).heading - ego.heading + prop.box.yaw
            scene.props.append(
                SyntheticBox(
                    centre: SIMD3(p.x, p.y, prop.box.centre.z), size: size, yaw: yaw, colour: prop.box.colour,
                    glassBand: prop.box.glassBand))
        }
        var traffic: [Int] = []
        for (index, mover) in movers.enumerated() {
            let (p, yaw, along) = pose(of: mover, at: t, ego: ego)
            guard abs(along - ego.s - 70) < 110, inView(p, margin: mover.size.x) else { continue }
            scene.vehicles.append(
                SyntheticVehicle(
                    vehicleClass: mover.vehicleClass, x: p.x, y: p.y, yaw: yaw, size: mover.size, paint: mover.paint,
                    variant: mover.variant, isParked: mover.isParked))
            traffic.append(index)
        }
        scene.placement = WorldPlacement(
            centreline: centreline, position: ego.position, heading: ego.heading,
            window: (ego.s - 40)...(ego.s + 400), textureSeed: seed)
        return (scene, traffic)
    }

    /// A mover's footprint centre and yaw at `t` in the vehicle frame of `ego` (the ego at `t`), and its arc length.
    func pose(of mover: Mover, at t: Double, ego: EgoState) -> (centre: SIMD2<Double>, yaw: Double, along: Double) {
        let place = mover.place(at: t)
        let r = centreline.point(s: place.s, d: place.d) - ego.position
        let c = cos(ego.heading), s = sin(ego.heading)
        let yaw = RoadCentreline.wrapped(centreline.pose(at: place.s).heading - ego.heading + place.heading)
        return (SIMD2(c * r.x + s * r.y, -s * r.x + c * r.y), yaw, place.s)
    }

    static func layProps(_ rng: inout SyntheticRandom, road: SyntheticRoad, length: Double) -> [Prop] {
        var props: [Prop] = []
        for side in [-1.0, 1.0] {
            let kerb = side < 0 ? road.rightKerb : road.leftKerb
            var s = rng.uniform(0, 30)
            while s < length {
                let h = rng.uniform(5, 8)
                props.append(
                    Prop(
                        s: s, d: kerb + side * 0.9,
                        box: SyntheticBox(
                            centre: SIMD3(0, 0, h / 2), size: SIMD3(0.18, 0.18, h), yaw: 0, colour: SIMD3(repeating: rng.uniform(0.4, 0.6)))))
                s += rng.uniform(25, 45)
            }
            s = rng.uniform(0, 20)
            while s < length {
                let trunk = rng.uniform(1.8, 3), crown = rng.uniform(2.5, 4.5), d = kerb + side * rng.uniform(2, 4.5)
                props.append(
                    Prop(
                        s: s, d: d,
                        box: SyntheticBox(
                            centre: SIMD3(0, 0, trunk / 2), size: SIMD3(0.35, 0.35, trunk), yaw: 0, colour: SIMD3(0.3, 0.22, 0.15))))
                props.append(
                    Prop(
                        s: s, d: d,
                        box: SyntheticBox(
                            centre: SIMD3(0, 0, trunk + crown / 2), size: SIMD3(crown, crown, crown), yaw: rng.uniform(0, 1.5),
                            colour: SIMD3(rng.uniform(0.12, 0.25), rng.uniform(0.3, 0.45), rng.uniform(0.1, 0.18)))))
                s += rng.uniform(8, 30)
            }
            s = rng.uniform(0, 25)
            while s < length {
                let along = rng.uniform(8, 22), depth = rng.uniform(6, 14), h = rng.uniform(5, 25)
                let tone = rng.uniform(0.45, 0.8)
                props.append(
                    Prop(
                        s: s + along / 2, d: kerb + side * (rng.uniform(6, 12) + depth / 2),
                        box: SyntheticBox(
                            centre: SIMD3(0, 0, h / 2), size: SIMD3(along, depth, h), yaw: 0,
                            colour: SIMD3(tone, tone * rng.uniform(0.85, 1), tone * rng.uniform(0.75, 1)),
                            glassBand: rng.chance(0.5) ? (h * 0.3)...(h * 0.45) : nil)))
                s += along + rng.uniform(2, 15)
            }
        }
        return props
    }

    static func layTraffic(_ rng: inout SyntheticRandom, road: SyntheticRoad, length: Double, egoSpeed: Double) -> [Mover] {
        var movers: [Mover] = []
        func draw(_ rng: inout SyntheticRandom, allowTwoWheeler: Bool) -> (VehicleClass, SIMD3<Double>) {
            let u = rng.uniform(0, 1)
            if u < 0.7 || (!allowTwoWheeler && u >= 0.88) {
                return (.lightVehicle, SIMD3(rng.uniform(3.8, 5.4), rng.uniform(1.7, 2.1), rng.uniform(1.4, 2.0)))
            }
            if u < 0.88 { return (.largeVehicle, SIMD3(rng.uniform(7, 14), rng.uniform(2.4, 2.6), rng.uniform(2.8, 3.8))) }
            return (.twoWheeler, SIMD3(rng.uniform(1.8, 2.3), rng.uniform(0.6, 0.9), rng.uniform(1.4, 1.8)))
        }
        func paint(_ rng: inout SyntheticRandom) -> SIMD3<Double> {
            SceneSampler.paints[rng.integer(0...(SceneSampler.paints.count - 1))] * rng.uniform(0.85, 1.1)
        }
        // The ego drives the lane whose centre is the centreline (d = 0).
        for lane in 0..<road.laneCount {
            let d = road.laneCentre(lane)
            let opposite = road.isOpposite(lane)
            let isEgoLane = abs(d) < road.laneWidth / 2
            // One speed per lane keeps every gap in it.
            let speed = opposite ? -rng.uniform(9, 22) : (isEgoLane ? egoSpeed + rng.uniform(0.3, 1.5) : egoSpeed + rng.uniform(-4, 4))
            var s = isEgoLane ? 20 + rng.uniform(12, 40) : rng.uniform(-150, 0)
            let reach = length + (opposite ? 600 : 100)
            while s < reach {
                let (kind, size) = draw(&rng, allowTwoWheeler: true)
                let jitter = kind == .twoWheeler ? 0.6 : 0.2
                movers.append(
                    Mover(
                        vehicleClass: kind, size: size, paint: paint(&rng), variant: rng.uniform(0, 1), isParked: false,
                        facesBack: opposite, s: s + size.x / 2, speed: speed, d: d + rng.uniform(-jitter, jitter)))
                s += size.x + rng.uniform(8, 70)
            }
        }
        // Parked vehicles need a shoulder to stand on; on a narrow one they would block a lane.
        for side in [-1.0, 1.0] where road.shoulderWidth >= 2.2 {
            var s = rng.uniform(0, 80)
            while s < length {
                let (kind, size) = draw(&rng, allowTwoWheeler: false)
                let kerb = side < 0 ? road.rightKerb : road.leftKerb
                let d = kerb - side * (size.y / 2 + rng.uniform(0.15, 0.4))
                movers.append(
                    Mover(
                        vehicleClass: kind, size: size, paint: paint(&rng), variant: rng.uniform(0, 1), isParked: true,
                        facesBack: rng.chance(0.8) != (side < 0), s: s + size.x / 2, speed: 0, d: d))
                s += size.x + (rng.chance(0.3) ? rng.uniform(0.8, 3) : rng.uniform(15, 120))
            }
        }
        return movers
    }
}
