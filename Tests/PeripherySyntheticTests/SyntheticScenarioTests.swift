import Foundation
import Testing

@testable import PeripheryCore
@testable import PeripheryGeometry
@testable import PeripherySynthetic

/// The scripted lead of a drive at `t`, as the scene shows it, in world x (the scripted road runs
/// straight along world x, so vehicle-frame x plus the ego's world x is the lead's world x).
private func leadWorldX(_ drive: SyntheticDrive, at t: Double) throws -> Double {
    let (scene, traffic) = drive.scene(at: t)
    let leadID = try #require(drive.leadID)
    let index = try #require(traffic.firstIndex(of: leadID))
    return drive.ego(at: t).position.x + scene.vehicles[index].x
}

/// Whether a value is there and within 1e-12 of `expected`.
private func near(_ value: Double?, _ expected: Double) -> Bool { abs((value ?? .nan) - expected) < 1e-12 }

/// The error `body` throws, nil when it throws none.
private func thrown(_ body: () throws -> Void) -> (any Error)? {
    do {
        try body()
        return nil
    } catch {
        return error
    }
}

@Suite struct SyntheticScenarioTests {
    /// NHTSA's figures (45 mph = 20.1168 m/s, 20 mph = 8.9408 m/s, 0.3 g = 2.943 m/s², 30 m), typed
    /// here from the test procedure, not from the code.
    @Test func defaultsAreNHTSAs() {
        let lvs = SyntheticScenario(.leadVehicleStopped), lvd = SyntheticScenario(.leadVehicleDecelerating)
        let lvm = SyntheticScenario(.leadVehicleMoving), following = SyntheticScenario(.following)
        #expect(near(lvs.egoSpeed, 20.1168) && lvs.leadSpeed == 0 && lvs.leadDeceleration == nil)
        #expect(near(lvd.egoSpeed, 20.1168) && near(lvd.leadSpeed, 20.1168) && lvd.gap == 30 && near(lvd.leadDeceleration, 2.943))
        #expect(near(lvm.egoSpeed, 20.1168) && near(lvm.leadSpeed, 8.9408) && lvm.leadDeceleration == nil)
        // LVS and LVM start beyond the detector's 40 m.
        #expect((lvs.gap ?? 0) > 45 && (lvm.gap ?? 0) > 45)
        #expect(near(following.gap, 0.6 * 20.1168) && following.leadSpeed == following.egoSpeed)
        let free = SyntheticScenario(.free)
        #expect(free.egoSpeed == nil && free.leadSpeed == nil && free.gap == nil && free.leadDeceleration == nil)
    }

    @Test func badOptionsGetErrorsNamingThem() throws {
        #expect(throws: SyntheticScenarioError.unknownScenario("lvx")) { try SyntheticScenario.Kind(name: "lvx") }
        #expect(try SyntheticScenario.Kind(name: "cut-in") == .cutIn)
        #expect(throws: SyntheticScenarioError.notApplicable(.leadDeceleration, .leadVehicleMoving)) {
            try SyntheticScenario(.leadVehicleMoving, leadDeceleration: 3)
        }
        #expect(throws: SyntheticScenarioError.notApplicable(.leadSpeed, .leadVehicleStopped)) { try SyntheticScenario(.leadVehicleStopped, leadSpeed: 2) }
        #expect(throws: SyntheticScenarioError.notApplicable(.leadSpeed, .following)) { try SyntheticScenario(.following, leadSpeed: 20) }
        #expect(throws: SyntheticScenarioError.notApplicable(.egoSpeed, .free)) { try SyntheticScenario(.free, egoSpeed: 10) }
        #expect(throws: SyntheticScenarioError.outOfRange(.egoSpeed, value: -3, expected: 1...70)) { try SyntheticScenario(.leadVehicleMoving, egoSpeed: -3) }
        #expect(throws: SyntheticScenarioError.outOfRange(.leadSpeed, value: -1, expected: 0...70)) { try SyntheticScenario(.leadVehicleMoving, leadSpeed: -1) }
        #expect(throws: SyntheticScenarioError.outOfRange(.leadSpeed, value: 0, expected: 2...70)) { try SyntheticScenario(.cutIn, leadSpeed: 0) }
        #expect(throws: SyntheticScenarioError.outOfRange(.gap, value: 0, expected: 1...200)) { try SyntheticScenario(.leadVehicleStopped, gap: 0) }
        #expect(throws: SyntheticScenarioError.outOfRange(.leadDeceleration, value: 50, expected: 0.1...12)) {
            try SyntheticScenario(.leadVehicleDecelerating, leadDeceleration: 50)
        }
        // NaN equals nothing, so the error is matched by its case.
        let nanGap = thrown { _ = try SyntheticScenario(.leadVehicleDecelerating, gap: .nan) } as? SyntheticScenarioError
        if case .outOfRange(.gap, _, _)? = nanGap {} else { Issue.record("a gap of NaN gave \(String(describing: nanGap))") }
        let notApplicable = SyntheticScenarioError.notApplicable(.leadDeceleration, .leadVehicleStopped)
        #expect(notApplicable.description.hasPrefix("--lead-decel does not apply to --scenario lvs"))
        #expect(SyntheticScenarioError.outOfRange(.egoSpeed, value: -3, expected: 1...70).description.contains("--ego-speed"))
    }

    /// LVD with a hard stop (8 m/s² from 20 m/s, 60 m ahead, so that the lead stops 35 m ahead of the
    /// ego, which reaches it 1.75 s later): the lead's position and speed in the drive follow x0 + v0·t until the onset at 3 s, then
    /// v(τ) = v0 − a·τ and x = x0 + v0·3 + v0·τ − a·τ²/2 until v = 0, then stand. Positions to 1e-9 m;
    /// speeds from 1 ms differences of positions to 1e-5 m/s.
    @Test func deceleratingLeadFollowsTheClosedForm() throws {
        let (v0, a, onset) = (20.0, 8.0, 3.0)
        let scenario = try SyntheticScenario(.leadVehicleDecelerating, egoSpeed: 20, leadSpeed: v0, gap: 60, leadDeceleration: a)
        let drive = SyntheticDrive(seed: 9, duration: 10, scenario: scenario)
        let x0 = try leadWorldX(drive, at: 0)
        func closedForm(_ t: Double) -> (x: Double, v: Double) {
            if t <= onset { return (x0 + v0 * t, v0) }
            let tau = min(t - onset, v0 / a)
            return (x0 + v0 * onset + v0 * tau - a * tau * tau / 2, v0 - a * tau)
        }
        for t in stride(from: 0.0, through: 7.0, by: 0.25) {
            let x = try leadWorldX(drive, at: t)
            #expect(abs(x - closedForm(t).x) < 1e-9, "t \(t)")
            let h = 1e-3
            let speed = (try leadWorldX(drive, at: t + h) - (try leadWorldX(drive, at: t - h))) / (2 * h)
            // The difference straddles the onset and the stop at those two moments alone.
            if abs(t - onset) > h && abs(t - onset - v0 / a) > h { #expect(abs(speed - closedForm(t).v) < 1e-5, "t \(t)") }
        }
        // The lead is ahead by the gap at the start: its rear 60 m before the ego's bumper.
        let lead = try #require(drive.inPathLead(at: 0))
        #expect(lead.id == drive.leadID && abs(lead.range - 60) < 1e-9)
    }

    @Test func stoppedLeadStandsStill() throws {
        let drive = SyntheticDrive(seed: 2, duration: 3, scenario: SyntheticScenario(.leadVehicleStopped))
        let x0 = try leadWorldX(drive, at: 0)
        for t in stride(from: 0.1, through: 2.6, by: 0.1) { #expect(abs(try leadWorldX(drive, at: t) - x0) < 1e-9) }
        // The ego holds its lane at the scenario's speed on a straight road; the lead is centred in it.
        for t in [0.0, 1.3, 2.6] {
            let ego = drive.ego(at: t)
            #expect(abs(ego.speed - 20.1168) < 1e-6 && abs(ego.yawRate) < 1e-9 && ego.heading == 0)
            let (scene, traffic) = drive.scene(at: t)
            let leadID = try #require(drive.leadID)
            let lead = scene.vehicles[try #require(traffic.firstIndex(of: leadID))]
            #expect(abs(lead.y) < 1e-9 && abs(lead.yaw) < 1e-12)
        }
    }

    /// Over seeds and every scripted scenario: the scripted lead is the in-path lead whenever it is
    /// in the ego's lane (for a cut-in, from halfway through its lane change), and no other vehicle
    /// comes within 1 m of it.
    @Test(arguments: 0..<6 as Range<UInt64>)
    func trafficKeepsOutOfTheLeadsWay(seed: UInt64) throws {
        for kind in SyntheticScenario.Kind.allCases where kind != .free {
            let drive = SyntheticDrive(seed: seed, duration: 12, scenario: SyntheticScenario(kind))
            let leadID = try #require(drive.leadID)
            let end = drive.recordedFrames(requested: 120, fps: 10)
            for frame in 0..<end {
                let t = Double(frame) / 10
                if kind != .cutIn || t > 3.6 { #expect(drive.inPathLead(at: t)?.id == leadID, "\(kind) seed \(seed) frame \(frame)") }
                let (scene, traffic) = drive.scene(at: t)
                guard let index = traffic.firstIndex(of: leadID) else { continue }
                for (vehicle, id) in zip(scene.vehicles, traffic) where id != leadID {
                    #expect(!Footprint.overlap(vehicle.footprint, scene.vehicles[index].footprint, margin: 1), "\(kind) seed \(seed) frame \(frame) id \(id)")
                }
            }
            #expect(end > 10, "\(kind) seed \(seed)")
        }
    }

    /// `free` is the drive of the seed without a scenario, and that is the drive the branch's base
    /// wrote: seed 7 over 12 frames at 10 fps, frame 11's ego and labels as `periphery synth
    /// --sequence --frames 12 --seed 7` wrote them before scenarios existed (to 1e-12).
    @Test func freeIsTodaysDrive() {
        let free = SyntheticDrive(seed: 7, duration: 1.2, scenario: SyntheticScenario(.free)), plain = SyntheticDrive(seed: 7, duration: 1.2)
        #expect(free.leadID == nil)
        for t in [0.0, 0.6, 1.1] {
            #expect(free.ego(at: t) == plain.ego(at: t))
            #expect(free.scene(at: t).scene == plain.scene(at: t).scene && free.scene(at: t).trafficIndices == plain.scene(at: t).trafficIndices)
        }
        let ego = free.ego(at: 1.1)
        #expect(abs(ego.position.x - 43.9104356097706) < 1e-12 && abs(ego.position.y - -0.00614348934307012) < 1e-12)
        #expect(abs(ego.heading - 0.0016700537123158635) < 1e-12 && abs(ego.speed - 21.736789958050302) < 1e-12)
        let written: [Int: (x: Double, y: Double, yaw: Double)] = [
            0: (17.619185064928022, 0.38387427746146485, -0.0016700537123158635),
            1: (47.047967892769485, -0.1560062349940412, -0.0033089620705014132),
            2: (83.63963280757288, -1.5071033252018549, -0.08188112150253717),
            27: (24.69361870975596, 3.497077629415938, 3.1399225998774773),
        ]
        let (scene, traffic) = free.scene(at: 1.1)
        for (id, label) in written {
            guard let index = traffic.firstIndex(of: id) else {
                Issue.record("vehicle \(id) is missing")
                continue
            }
            let vehicle = scene.vehicles[index]
            #expect(abs(vehicle.x - label.x) < 1e-12 && abs(vehicle.y - label.y) < 1e-12 && abs(vehicle.yaw - label.yaw) < 1e-12, "id \(id)")
        }
    }
}
