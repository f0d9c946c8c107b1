import Foundation
import PeripheryCore
import PeripheryTestSupport
import Testing

@testable import PeripheryEvents

/// Reading a drive's `truth.json` and labels as `periphery synth --sequence --scenario` writes them
/// (`docs/guides/synthetic-world.md#scripted-scenarios`), and the errors that name the file and field.
struct ScenarioTruthFileTests {
    /// Two frames of an LVM drive: the lead (id 78) 55 m ahead, then 53.88 m; at frame 1 a
    /// parked car (id 5) is the in-path lead in the labels too.
    static let truth = """
        {"ego_front_m": 3.7, "fps": 10, "kind": "periphery-synthetic-drive", "lead_id": 78,
         "scenario": {"ego_speed_m_s": 20.1168, "gap_m": 55, "lane_change_duration_s": null, "lane_change_start_s": null,
                      "lead_brake_onset_s": null, "lead_decel_m_s2": null, "lead_speed_m_s": 8.9408, "name": "lvm"},
         "trajectory": [
           {"index": 0, "t": 0, "in_path_lead": {"closing_acceleration_m_s2": 0, "closing_speed_m_s": 11.176, "headway_s": 2.734,
                                                  "id": 78, "range_m": 55, "ttc_s": 4.921}},
           {"index": 1, "t": 0.1, "in_path_lead": {"closing_acceleration_m_s2": 0.5, "closing_speed_m_s": 20.1168, "headway_s": 1.5,
                                                    "id": 5, "range_m": 30.2, "ttc_s": null}},
           {"index": 2, "t": 0.2, "in_path_lead": null}]}
        """

    static func labels(_ vehicles: [(id: Int, x: Double)]) -> String {
        let entries = vehicles.map {
            "{\"class\": \"light_vehicle\", \"id\": \($0.id), \"label\": 0, \"x\": \($0.x), \"y\": 0.1, \"z\": 0.8, \"length\": 4.5, "
                + "\"width\": 1.8, \"height\": 1.5, \"yaw\": 0, \"in_view\": true}"
        }
        return "{\"vehicles\": [\(entries.joined(separator: ", "))]}"
    }

    /// A drive folder with `truth` and three labels files.
    static func drive(truth: String = truth) throws -> String {
        let folder = try scratchFolder("scenario-truth")
        try FileManager.default.createDirectory(atPath: folder + "/labels", withIntermediateDirectories: true)
        try truth.write(toFile: folder + "/truth.json", atomically: true, encoding: .utf8)
        let frames = [[(id: 78, x: 60.95), (id: 12, x: 20)], [(id: 5, x: 36.15), (id: 78, x: 59.83)], [(id: 78, x: 58.7)]]
        for (i, vehicles) in frames.enumerated() {
            try labels(vehicles).write(toFile: folder + "/labels/00000\(i).json", atomically: true, encoding: .utf8)
        }
        return folder
    }

    @Test func readsTheScenarioTheLeadsAndTheirBoxes() throws {
        let folder = try Self.drive()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let truth = try ScenarioTruth(driveDirectory: folder)
        #expect(truth.scenario == ScenarioTruth.Scenario(kind: .leadVehicleMoving, egoSpeed: 20.1168, leadSpeed: 8.9408, gap: 55))
        #expect(truth.leadID == 78 && truth.egoFrontMetres == 3.7 && truth.framesPerSecond == 10)
        #expect(truth.frames.map(\.time) == [0, 0.1, 0.2])
        #expect(
            truth.frames[0].lead == ScenarioTruth.Lead(id: 78, range: 55, closingSpeed: 11.176, closingAcceleration: 0, timeToCollision: 4.921, headway: 2.734))
        #expect(truth.frames[1].lead?.id == 5 && truth.frames[1].lead?.timeToCollision == nil && truth.frames[1].lead?.closingAcceleration == 0.5)
        #expect(truth.frames[2].lead == nil)
        // The scripted lead's box and the in-path lead's, not the other labelled vehicles'.
        #expect(Set(truth.frames[0].vehicles.keys) == [78] && Set(truth.frames[1].vehicles.keys) == [5, 78])
        #expect(truth.frames[1].vehicles[5] == VehicleBox(x: 36.15, y: 0.1, z: 0.8, length: 4.5, width: 1.8, height: 1.5, yaw: 0))
        #expect(truth.frames[2].vehicles[78]?.x == 58.7)
    }

    @Test func aDriveWithoutTruthIsMissing() throws {
        let folder = try scratchFolder("scenario-truth")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(throws: ScenarioTruthError.missing(path: folder + "/truth.json")) { try ScenarioTruth(driveDirectory: folder) }
    }

    @Test func badFieldsAreNamed() throws {
        let cases: [(String, String, String)] = [
            // A drive written without --scenario has no scenario object.
            (#""scenario": {"#, #""scenery": {"#, "scenario"),
            (#""name": "lvm""#, #""name": "lvx""#, "scenario.name"),
            (#""lead_id": 78"#, #""lead_id": "78""#, "lead_id"),
            (#""ego_front_m": 3.7,"#, "", "ego_front_m"),
            (#""headway_s": 1.5"#, #""headway_s": "1.5""#, "trajectory[1].in_path_lead.headway_s"),
            (#""t": 0.1,"#, "", "trajectory[1].t"),
            (#""index": 2, "t": 0.2, "in_path_lead": null"#, #""index": 2, "t": 0.2"#, "trajectory[2].in_path_lead"),
        ]
        for (original, replacement, field) in cases {
            let folder = try Self.drive(truth: Self.truth.replacingOccurrences(of: original, with: replacement))
            defer { try? FileManager.default.removeItem(atPath: folder) }
            do throws(ScenarioTruthError) {
                _ = try ScenarioTruth(driveDirectory: folder)
                Issue.record("\(field): no error")
            } catch {
                guard case .field(let path, let named, _) = error else {
                    Issue.record("\(field): \(error)")
                    continue
                }
                #expect(path == folder + "/truth.json" && named == field)
                #expect(error.description.contains(field))
            }
        }
    }

    @Test func aMissingLabelsFileIsNamed() throws {
        let folder = try Self.drive()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.removeItem(atPath: folder + "/labels/000001.json")
        #expect(throws: ScenarioTruthError.unreadable(path: folder + "/labels/000001.json", reason: "cannot be read")) {
            try ScenarioTruth(driveDirectory: folder)
        }
    }
}
