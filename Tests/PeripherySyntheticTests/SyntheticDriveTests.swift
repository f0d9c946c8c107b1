import Foundation
import Testing

@testable import PeripheryCore
@testable import PeripheryGeometry
@testable import PeripherySynthetic

private func distance(_ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double {
    let d = a - b
    return (d.x * d.x + d.y * d.y).squareRoot()
}

@Suite struct RoadCentrelineTests {
    static let road = RoadCentreline([(80, 0), (150, 1 / 300.0), (60, 0), (120, -1 / 250.0), (50, 0)], origin: SIMD2(5, -3), heading: 0.4)

    @Test func piecesJoinWithoutGapsOrKinks() {
        let road = RoadCentrelineTests.road
        for piece in road.pieces.dropFirst() {
            let before = road.pose(at: piece.start - 1e-7), after = road.pose(at: piece.start + 1e-7)
            #expect(distance(before.position, after.position) < 1e-6)
            #expect(abs(before.heading - after.heading) < 1e-6)
        }
        // Heading changes by curvature × length on each arc.
        let arc = road.pieces[1]
        let turn: Double = road.pose(at: arc.start + arc.length).heading - road.pose(at: arc.start).heading
        #expect(abs(turn - arc.length * arc.curvature) < 1e-12)
    }

    /// 400 random points along the road (and beyond its ends): road coordinates invert `point(s:d:)`.
    @Test func roadCoordinatesInvertPoints() {
        let road = RoadCentrelineTests.road
        var rng = SyntheticRandom(seed: 11)
        for _ in 0..<400 {
            let s = rng.uniform(-30, road.length + 30), d = rng.uniform(-15, 15)
            let found = road.roadCoordinates(of: road.point(s: s, d: d), window: (s - 50)...(s + 50))
            #expect(abs(found.x - s) < 1e-6 && abs(found.y - d) < 1e-6, "s \(s) d \(d) → \(found)")
        }
    }

    @Test func arcLengthMatchesDistanceTravelled() {
        let road = RoadCentrelineTests.road
        var length = 0.0, previous = road.pose(at: 0).position
        for i in 1...4600 {
            let p = road.pose(at: Double(i) * 0.1).position
            length += distance(p, previous)
            previous = p
        }
        #expect(abs(length - 460) < 1e-3)
    }
}

@Suite struct SyntheticDriveTests {
    @Test func sameSeedGivesTheSameDrive() {
        let a = SyntheticDrive(seed: 3, duration: 20), b = SyntheticDrive(seed: 3, duration: 20)
        for t in [0.0, 4.3, 17.9] {
            #expect(a.ego(at: t) == b.ego(at: t))
            #expect(a.scene(at: t).scene == b.scene(at: t).scene)
            #expect(a.scene(at: t).trafficIndices == b.scene(at: t).trafficIndices)
        }
        #expect(SyntheticDrive(seed: 4, duration: 20).ego(at: 1) != a.ego(at: 1))
    }

    /// Over 12 drives: yaw rate equals speed × curvature away from the wander, speed stays the
    /// drive's, and the body pitch rate is the derivative of the pitch.
    @Test(arguments: 0..<12 as Range<UInt64>)
    func egoMotionIsConsistent(seed: UInt64) {
        let drive = SyntheticDrive(seed: seed, duration: 60)
        for i in 0..<120 {
            let t = Double(i) * 0.5
            let ego = drive.ego(at: t)
            let curvature = drive.centreline.curvature(at: ego.s)
            // The lane wander adds at most amplitude·(2π/period)²/speed of yaw rate (< 0.014 rad/s).
            #expect(abs(ego.yawRate - ego.speed * curvature) < 0.015, "seed \(seed) t \(t)")
            #expect(abs(ego.speed - drive.egoSpeed) / drive.egoSpeed < 2e-2)
            let h = 1e-4
            let numeric = (drive.ego(at: t + h).bumpPitch - drive.ego(at: t - h).bumpPitch) / (2 * h)
            #expect(abs(numeric - ego.bumpPitchRate) < 1e-6)
            #expect(abs(ego.bumpPitch) < 0.5 * .pi / 180)
        }
    }

    /// Vehicles keep their identity from frame to frame and move by their speed; none comes
    /// near the ego.
    @Test(arguments: 0..<6 as Range<UInt64>)
    func trafficMovesSmoothlyAndKeepsClearOfTheEgo(seed: UInt64) {
        let drive = SyntheticDrive(seed: seed, duration: 30)
        var previous: [Int: SyntheticVehicle] = [:]
        for i in 0..<300 {
            let t = Double(i) * 0.1
            let (scene, traffic) = drive.scene(at: t)
            #expect(scene.vehicles.count == traffic.count && Set(traffic).count == traffic.count)
            var now: [Int: SyntheticVehicle] = [:]
            for (vehicle, id) in zip(scene.vehicles, traffic) {
                #expect(!Footprint.overlap(vehicle.footprint, SceneSampler.egoKeepOut, margin: 0), "seed \(seed) t \(t) id \(id)")
                if let before = previous[id] {
                    // Relative speeds stay under 50 m/s, so 0.1 s moves a vehicle less than 5 m.
                    #expect(hypot(vehicle.x - before.x, vehicle.y - before.y) < 5)
                }
                now[id] = vehicle
            }
            previous = now
        }
    }
}

@Suite struct DeviceAxesTests {
    /// A level, straight-ahead phone in landscape: its +x edge points up, so gravity reads −x,
    /// and a left turn (yaw about vehicle up) turns about device x.
    @Test func levelMountReadsGravityOnMinusX() {
        let device = DeviceAxes.fromVehicle(MountPose(pitch: 0, height: 1.2, forwardOfOrigin: 1.5))
        let gravity = device * SIMD3(0, 0, -1), up = device * SIMD3(0, 0, 1), forward = device * SIMD3(1, 0, 0)
        #expect(abs(gravity.x + 1) < 1e-12 && abs(gravity.y) < 1e-12 && abs(gravity.z) < 1e-12)
        #expect(abs(up.x - 1) < 1e-12)
        // The optical axis (vehicle forward) is −z of the device.
        #expect(abs(forward.z + 1) < 1e-12)
        #expect(abs(device.determinant - 1) < 1e-12)
    }

    @Test(arguments: [-6.0, -2.0, 3.0])
    func pitchTiltsGravityTowardsTheScreen(pitchDegrees: Double) {
        let device = DeviceAxes.fromVehicle(MountPose(pitchDegrees: pitchDegrees, height: 1.2, forwardOfOrigin: 1.5))
        let gravity = device * SIMD3(0, 0, -1)
        // The optical axis is device −z, so gravity along z is sin(pitch) (nose up positive).
        #expect(abs(gravity.z - sin(pitchDegrees * .pi / 180)) < 1e-12)
    }
}
