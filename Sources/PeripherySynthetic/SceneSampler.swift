import Foundation
import PeripheryCore
import PeripheryGeometry

/// Draws synthetic scenes deterministically from a seed.
public struct SceneSampler: Sendable, Hashable {
    /// Largest number of vehicles in a scene.
    public var maxVehicles: Int
    /// Forward range of vehicle centres, metres.
    public var forwardRange: ClosedRange<Double>
    /// Largest lateral offset of a vehicle centre, metres.
    public var lateralLimit: Double
    /// Smallest gap kept between vehicle footprints, metres.
    public var clearance: Double
    /// Two-wheelers placed in the lanes 5.5–10.5 m ahead before the other traffic is drawn.
    ///
    /// Training data for the near field: at these distances a rider's lower half often falls
    /// outside the network's crop, and a scene drawn over 0–40 m seldom holds one there. With 0
    /// (the default) no extra random numbers are drawn, so the default scenes stay as they were.
    public var nearTwoWheelers: Int

    /// The material of the vehicles' main bodies (the structured world paints lamps and plates).
    public var bodyMaterial: SurfaceMaterial = .plain

    /// Forward range of the ``nearTwoWheelers``, metres.
    public static let nearRange: ClosedRange<Double> = 5.5...10.5

    /// Creates a sampler.
    public init(
        maxVehicles: Int = 8, forwardRange: ClosedRange<Double> = 0...40, lateralLimit: Double = 10,
        clearance: Double = 0.4, nearTwoWheelers: Int = 0
    ) {
        precondition(nearTwoWheelers >= 0, "nearTwoWheelers must not be negative")
        self.maxVehicles = maxVehicles
        self.forwardRange = forwardRange
        self.lateralLimit = lateralLimit
        self.clearance = clearance
        self.nearTwoWheelers = nearTwoWheelers
    }

    /// The ego vehicle's footprint, which no sampled vehicle may touch: x −3…5 m, y ±1.5 m.
    static let egoKeepOut: [SIMD2<Double>] = [SIMD2(5, 1.5), SIMD2(-3, 1.5), SIMD2(-3, -1.5), SIMD2(5, -1.5)]

    /// The scene of `seed`.
    public func scene(seed: UInt64) -> SyntheticScene {
        var rng = SyntheticRandom(seed: seed)
        let road = sampleRoad(&rng)
        let overcast = rng.chance(0.3)
        let skyTop =
            overcast
            ? SIMD3<Double>(repeating: rng.uniform(0.55, 0.75))
            : SIMD3(rng.uniform(0.25, 0.45), rng.uniform(0.45, 0.6), rng.uniform(0.75, 0.92))
        let skyHorizon = overcast ? skyTop * 1.12 : SIMD3(rng.uniform(0.7, 0.85), rng.uniform(0.78, 0.88), rng.uniform(0.85, 0.95))
        let elevation = rng.uniform(20, 70) * .pi / 180, azimuth = rng.uniform(-.pi, .pi)
        let sun = SIMD3(cos(elevation) * cos(azimuth), cos(elevation) * sin(azimuth), sin(elevation))
        let grey = rng.uniform(0.26, 0.4)
        let asphalt = SIMD3(grey, grey, grey + rng.uniform(0, 0.03))
        let verge = SIMD3(rng.uniform(0.2, 0.35), rng.uniform(0.35, 0.48), rng.uniform(0.15, 0.25))
        let props = sampleProps(&rng, road: road)
        let vehicles = sampleVehicles(&rng, road: road)
        return SyntheticScene(
            seed: seed, road: road, skyTop: skyTop, skyHorizon: skyHorizon, sunDirection: sun,
            asphalt: asphalt, verge: verge, props: props, vehicles: vehicles)
    }

    func sampleRoad(_ rng: inout SyntheticRandom) -> SyntheticRoad {
        let lanes = rng.integer(2...4)
        let opposite = rng.chance(0.85) ? lanes / 2 : 0
        let laneWidth = rng.uniform(3.5, 3.7)
        let egoLane = rng.integer(0...(lanes - opposite - 1))
        let rightEdge = -(Double(egoLane) + 0.5) * laneWidth + rng.uniform(-0.3, 0.3)
        return SyntheticRoad(
            laneCount: lanes, oppositeLanes: opposite, laneWidth: laneWidth, rightEdge: rightEdge,
            shoulderWidth: rng.chance(0.5) ? rng.uniform(2.3, 2.8) : rng.uniform(0.4, 1.0),
            markingWidth: rng.uniform(0.1, 0.15), edgeLineWidth: rng.uniform(0.15, 0.25),
            dashLength: rng.uniform(2.5, 4), dashPeriod: rng.uniform(9, 12), dashPhase: rng.uniform(0, 12),
            kerbHeight: rng.uniform(0.1, 0.16))
    }

    func sampleProps(_ rng: inout SyntheticRandom, road: SyntheticRoad) -> [SyntheticBox] {
        let kerbColour = SIMD3<Double>(repeating: rng.uniform(0.55, 0.7))
        var props = [
            SyntheticBox(
                centre: SIMD3(90, road.rightKerb - 0.125, road.kerbHeight / 2),
                size: SIMD3(220, 0.25, road.kerbHeight), yaw: 0, colour: kerbColour),
            SyntheticBox(
                centre: SIMD3(90, road.leftKerb + 0.125, road.kerbHeight / 2),
                size: SIMD3(220, 0.25, road.kerbHeight), yaw: 0, colour: kerbColour),
        ]
        for side in [-1.0, 1.0] {
            let kerb = side < 0 ? road.rightKerb : road.leftKerb
            // Poles.
            var x = rng.uniform(5, 30)
            while x < 150 {
                let h = rng.uniform(5, 8)
                props.append(
                    SyntheticBox(
                        centre: SIMD3(x, kerb + side * 0.9, h / 2), size: SIMD3(0.18, 0.18, h),
                        yaw: 0, colour: SIMD3(repeating: rng.uniform(0.4, 0.6))))
                x += rng.uniform(25, 45)
            }
            // Trees.
            x = rng.uniform(3, 20)
            while x < 120 {
                let trunk = rng.uniform(1.8, 3), crown = rng.uniform(2.5, 4.5), y = kerb + side * rng.uniform(2, 4.5)
                props.append(
                    SyntheticBox(
                        centre: SIMD3(x, y, trunk / 2), size: SIMD3(0.35, 0.35, trunk), yaw: 0,
                        colour: SIMD3(0.3, 0.22, 0.15)))
                props.append(
                    SyntheticBox(
                        centre: SIMD3(x, y, trunk + crown / 2), size: SIMD3(crown, crown, crown), yaw: rng.uniform(0, 1.5),
                        colour: SIMD3(rng.uniform(0.12, 0.25), rng.uniform(0.3, 0.45), rng.uniform(0.1, 0.18))))
                x += rng.uniform(8, 30)
            }
            // Buildings.
            x = rng.uniform(0, 25)
            while x < 180 {
                let length = rng.uniform(8, 22), depth = rng.uniform(6, 14), h = rng.uniform(5, 25)
                let y = kerb + side * (rng.uniform(6, 12) + depth / 2)
                let tone = rng.uniform(0.45, 0.8)
                props.append(
                    SyntheticBox(
                        centre: SIMD3(x + length / 2, y, h / 2), size: SIMD3(length, depth, h), yaw: 0,
                        colour: SIMD3(tone, tone * rng.uniform(0.85, 1), tone * rng.uniform(0.75, 1)),
                        glassBand: rng.chance(0.5) ? (h * 0.3)...(h * 0.45) : nil))
                x += length + rng.uniform(2, 15)
            }
        }
        return props
    }

    static let paints: [SIMD3<Double>] = [
        SIMD3(0.9, 0.9, 0.9), SIMD3(0.08, 0.08, 0.09), SIMD3(0.55, 0.56, 0.58), SIMD3(0.7, 0.1, 0.1),
        SIMD3(0.12, 0.22, 0.55), SIMD3(0.75, 0.75, 0.72), SIMD3(0.2, 0.35, 0.2), SIMD3(0.85, 0.6, 0.15),
    ]

    func sampleVehicles(_ rng: inout SyntheticRandom, road: SyntheticRoad) -> [SyntheticVehicle] {
        var vehicles: [SyntheticVehicle] = []
        var attempts = 0
        while vehicles.count < nearTwoWheelers, attempts < 20 * nearTwoWheelers {
            attempts += 1
            place(sampleVehicle(&rng, road: road, kind: .twoWheeler, forward: SceneSampler.nearRange), in: &vehicles)
        }
        let target = vehicles.count + rng.integer(0...maxVehicles)
        attempts = 0
        while vehicles.count < target, attempts < 20 * max(target, 1) {
            attempts += 1
            let draw = rng.uniform(0, 1)
            let kind: VehicleClass = draw < 0.65 ? .lightVehicle : (draw < 0.82 ? .largeVehicle : .twoWheeler)
            place(sampleVehicle(&rng, road: road, kind: kind, forward: forwardRange), in: &vehicles)
        }
        return vehicles
    }

    /// Appends `vehicle` when it is within the lateral limit, clear of the ego and of the others.
    func place(_ vehicle: SyntheticVehicle, in vehicles: inout [SyntheticVehicle]) {
        guard abs(vehicle.y) <= lateralLimit else { return }
        let footprint = vehicle.footprint
        guard !Footprint.overlap(footprint, SceneSampler.egoKeepOut, margin: 0) else { return }
        guard vehicles.allSatisfy({ !Footprint.overlap($0.footprint, footprint, margin: clearance) }) else { return }
        vehicles.append(vehicle)
    }

    /// One vehicle of `kind` with its centre `forward` metres ahead: in a lane, parked or crossing.
    func sampleVehicle(
        _ rng: inout SyntheticRandom, road: SyntheticRoad, kind: VehicleClass, forward: ClosedRange<Double>
    ) -> SyntheticVehicle {
        let size: SIMD3<Double>
        switch kind {
        case .largeVehicle: size = SIMD3(rng.uniform(7, 14), rng.uniform(2.4, 2.6), rng.uniform(2.8, 3.8))
        case .twoWheeler: size = SIMD3(rng.uniform(1.8, 2.3), rng.uniform(0.6, 0.9), rng.uniform(1.4, 1.8))
        default: size = SIMD3(rng.uniform(3.8, 5.4), rng.uniform(1.7, 2.1), rng.uniform(1.4, 2.0))
        }
        let x = rng.uniform(forward.lowerBound, forward.upperBound)
        let parked = kind != .twoWheeler && rng.chance(0.25)
        // Crossing traffic (a junction or a car pulling out) stands across the road anywhere in range.
        let crossing = !parked && rng.chance(0.08)
        var y: Double, yaw: Double
        if crossing {
            y = rng.uniform(road.rightKerb + 1, road.leftKerb - 1)
            yaw = (rng.chance(0.5) ? 0.5 : -0.5) * Double.pi + rng.uniform(-0.15, 0.15)
        } else if parked {
            let right = rng.chance(0.6)
            y =
                right
                ? road.rightKerb + size.y / 2 + rng.uniform(0.15, 0.4)
                : road.leftKerb - size.y / 2 - rng.uniform(0.15, 0.4)
            yaw = (rng.chance(0.8) == right ? 0 : Double.pi) + rng.uniform(-0.04, 0.04)
        } else {
            let lane = rng.integer(0...(road.laneCount - 1))
            let jitter = kind == .twoWheeler ? 0.9 : 0.3
            y = road.laneCentre(lane) + rng.uniform(-jitter, jitter)
            yaw = (road.isOpposite(lane) ? Double.pi : 0) + rng.uniform(-0.05, 0.05)
        }
        if yaw > .pi { yaw -= 2 * .pi }
        let paint =
            SceneSampler.paints[rng.integer(0...(SceneSampler.paints.count - 1))]
            * rng.uniform(0.85, 1.1)
        return SyntheticVehicle(
            vehicleClass: kind, x: x, y: y, yaw: yaw, size: size, paint: paint, variant: rng.uniform(0, 1),
            isParked: parked, bodyMaterial: bodyMaterial)
    }
}
