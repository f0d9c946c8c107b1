import Foundation
import PeripheryTestSupport
import Testing

@testable import PeripheryCore
@testable import PeripheryGeometry
@testable import PeripheryIO
@testable import PeripherySynthetic

/// A JSON number as a Double (the reader gives integers for numbers without a fraction).
private func number(_ value: Any?) -> Double? { (value as? NSNumber)?.doubleValue }

@Suite struct InPathLeadTruthTests {
    /// The truth of LVS, LVM and LVD against the closed forms of constant speeds and of braking from
    /// the onset, at frames before and after it: range to 1e-6 m, closing speed to 1e-6 m/s, closing
    /// acceleration to 1e-4 m/s², TTC to 1e-5 s, headway to 1e-6 s.
    @Test(arguments: [SyntheticScenario.Kind.leadVehicleStopped, .leadVehicleMoving, .leadVehicleDecelerating])
    func truthFollowsTheClosedForms(kind: SyntheticScenario.Kind) throws {
        let scenario = SyntheticScenario(kind)
        let (ve, vl, gap) = (try #require(scenario.egoSpeed), try #require(scenario.leadSpeed), try #require(scenario.gap))
        let a = scenario.leadDeceleration ?? 0
        let drive = SyntheticDrive(seed: 4, duration: 8, scenario: scenario)
        let contact = drive.recordedFrames(requested: 80, fps: 10)
        for frame in stride(from: 0, to: contact, by: 4) {
            let t = Double(frame) / 10
            // Time braking, range, closing speed and acceleration, TTC.
            let tau = kind == .leadVehicleDecelerating ? max(0, t - 3) : 0
            let range = gap - (ve - vl) * t - a * tau * tau / 2
            let closing = ve - vl + a * tau
            let ttc: Double? =
                kind == .leadVehicleDecelerating ? (t < 3 ? nil : (2 * gap / a).squareRoot() - tau) : range / (ve - vl)
            let truth = try #require(drive.inPathLead(at: t), "frame \(frame)")
            #expect(truth.id == drive.leadID)
            #expect(abs(truth.range - range) < 1e-6, "frame \(frame)")
            #expect(abs(truth.closingSpeed - closing) < 1e-6, "frame \(frame)")
            #expect(abs(truth.closingAcceleration - (kind == .leadVehicleDecelerating && t >= 3 ? a : 0)) < 1e-4, "frame \(frame)")
            #expect(abs((truth.headway ?? .nan) - range / ve) < 1e-6)
            if let ttc { #expect(abs((truth.timeToCollision ?? .nan) - ttc) < 1e-5, "frame \(frame)") } else { #expect(truth.timeToCollision == nil) }
        }
        // The drive ends at the last frame before the range falls to 0.5 m.
        let leadID = try #require(drive.leadID)
        #expect(drive.range(of: leadID, at: Double(contact - 1) / 10) > 0.5)
        #expect(drive.range(of: leadID, at: Double(contact) / 10) <= 0.5)
    }

    /// On free drives (curves, lane wander, all the traffic) the truth agrees with the definitions
    /// applied to the scene's own vehicles: ranges from their footprint corners, the arc of yaw rate
    /// ÷ speed, the nearest in-path vehicle (id, range and headway to 1e-9); closing speed and
    /// acceleration from central differences of that range over 1 ms (to 1e-3 m/s and 1e-2 m/s²: the
    /// truth takes forward differences over 10 ms).
    @Test(arguments: 0..<4 as Range<UInt64>)
    func freeDriveTruthFollowsTheDefinitions(seed: UInt64) throws {
        let drive = SyntheticDrive(seed: seed, duration: 20, scenario: SyntheticScenario(.free))
        func inPath(at t: Double) -> [Int: Double] {
            let ego = drive.ego(at: t)
            let curvature = ego.speed < 1 ? 0 : ego.yawRate / ego.speed
            let (scene, ids) = drive.scene(at: t)
            var found: [Int: Double] = [:]
            for (vehicle, id) in zip(scene.vehicles, ids) {
                let range = vehicle.footprint.map(\.x).min()! - 3.7
                if range > 0 && range <= 60 && abs(vehicle.y - curvature * vehicle.x * vehicle.x / 2) <= 1.8 { found[id] = range }
            }
            return found
        }
        func rangeOf(_ id: Int, at t: Double) throws -> Double {
            let (scene, ids) = drive.scene(at: t)
            return scene.vehicles[try #require(ids.firstIndex(of: id))].footprint.map(\.x).min()! - 3.7
        }
        var leads = 0
        for frame in stride(from: 0, to: 200, by: 5) {
            let t = Double(frame) / 10
            let truth = drive.inPathLead(at: t)
            guard let (id, range) = inPath(at: t).min(by: { $0.value < $1.value }) else {
                #expect(truth == nil, "seed \(seed) frame \(frame)")
                continue
            }
            leads += 1
            let lead = try #require(truth, "seed \(seed) frame \(frame)")
            #expect(lead.id == id && abs(lead.range - range) < 1e-9 && abs((lead.headway ?? .nan) - range / drive.ego(at: t).speed) < 1e-9)
            let h = 1e-3
            let (before, after) = (try rangeOf(id, at: t - h), try rangeOf(id, at: t + h))
            #expect(abs(lead.closingSpeed - (before - after) / (2 * h)) < 1e-3, "seed \(seed) frame \(frame)")
            #expect(abs(lead.closingAcceleration + (before - 2 * range + after) / (h * h)) < 1e-2, "seed \(seed) frame \(frame)")
        }
        #expect(leads > 0)
    }

    /// TTC by its definition: the smallest t > 0 where range − v·t − a·t²/2 = 0.
    @Test func timeToCollisionIsTheFirstRoot() {
        #expect(InPathLeadTruth.timeToCollision(range: 30, closingSpeed: 10, closingAcceleration: 0) == 3)
        #expect(InPathLeadTruth.timeToCollision(range: 30, closingSpeed: 0, closingAcceleration: 0) == nil)
        #expect(InPathLeadTruth.timeToCollision(range: 30, closingSpeed: -2, closingAcceleration: 0) == nil)
        // Closing at 10 m/s but slowing at 1 m/s²: 50 m covered before it stops, more than 30 m.
        for (v, a) in [(10.0, -1.0), (-2.0, 1.5), (4.0, 2.943), (10.0, -1e-9)] {
            let t = InPathLeadTruth.timeToCollision(range: 30, closingSpeed: v, closingAcceleration: a) ?? .nan
            #expect(t > 0 && abs(30 - v * t - a * t * t / 2) < 1e-9, "v \(v) a \(a)")
            // No earlier root: the range is still positive halfway.
            #expect(30 - v * t / 2 - a * t * t / 8 > 0)
        }
        // Closing at 10 m/s, slowing at 2 m/s²: stops after 25 m, short of 30 m.
        #expect(InPathLeadTruth.timeToCollision(range: 30, closingSpeed: 10, closingAcceleration: -2) == nil)
    }

    /// A recorded LVD drive: the lead's labels carry `lead_id`, and truth.json holds the scenario,
    /// the lead, the bumper and per frame the in-path lead that `inPathLead(at:)` gives; the label's
    /// box agrees with the truth's range (rear face at x − length/2, 1e-6 m).
    @Test func recordedDriveCarriesTheTruth() throws {
        let folder = try scratchFolder("scenario-drive")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let drive = SyntheticDrive(seed: 3, duration: 0.3, scenario: SyntheticScenario(.leadVehicleDecelerating))
        var rng = SyntheticRandom(seed: 1)
        let camera = try SyntheticCamera(width: 320, height: 200).draw(&rng)
        try SyntheticDriveRecorder(dataset: SyntheticDataset(path: folder)).record(drive, camera: camera, frames: 3, fps: 10)
        let truth = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/truth.json"))) as? [String: Any])
        let leadID = try #require(drive.leadID)
        #expect(truth["lead_id"] as? Int == leadID && number(truth["ego_front_m"]) == 3.7)
        let scenario = try #require(truth["scenario"] as? [String: Any])
        #expect(scenario["name"] as? String == "lvd" && number(scenario["gap_m"]) == 30 && number(scenario["lead_brake_onset_s"]) == 3)
        #expect(scenario["lane_change_start_s"] is NSNull)
        let trajectory = try #require(truth["trajectory"] as? [[String: Any]])
        for (frame, entry) in trajectory.enumerated() {
            let lead = try #require(entry["in_path_lead"] as? [String: Any])
            let expected = try #require(drive.inPathLead(at: Double(frame) / 10))
            #expect(lead["id"] as? Int == leadID && abs((number(lead["range_m"]) ?? .nan) - expected.range) < 1e-9 && lead["ttc_s"] is NSNull)
            #expect(abs((number(lead["headway_s"]) ?? .nan) - (expected.headway ?? .nan)) < 1e-9 && number(lead["closing_speed_m_s"]) == 0)
            let labels = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: String(format: "%@/labels/%06d.json", folder, frame))))
                    as? [String: [[String: Any]]])
            let label = try #require(labels["vehicles"]?.first { $0["id"] as? Int == leadID })
            let x = try #require(number(label["x"])), length = try #require(number(label["length"]))
            #expect(abs(x - length / 2 - SyntheticDrive.egoFrontOfOrigin - expected.range) < 1e-6)
        }
    }
}
