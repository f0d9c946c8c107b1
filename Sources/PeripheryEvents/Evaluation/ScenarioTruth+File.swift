import Foundation
import PeripheryCore

extension ScenarioTruth {
    /// The name of the truth file in a drive.
    public static let fileName = "truth.json"

    /// Reads a drive's truth: `DIR/truth.json` as `periphery synth --sequence --scenario` writes it
    /// (`docs/guides/synthetic-world.md#scripted-scenarios`), and from `DIR/labels/NNNNNN.json` the
    /// boxes of the scripted lead and of each frame's in-path lead.
    ///
    /// - Throws: `ScenarioTruthError`: `.missing` without `truth.json`, `.unreadable` for a file
    ///   that is not a JSON object, `.field` naming the first field that is absent or wrong (a
    ///   `truth.json` written without `--scenario` lacks `scenario`).
    public init(driveDirectory directory: String) throws(ScenarioTruthError) {
        let path = directory + "/" + Self.fileName
        guard FileManager.default.fileExists(atPath: path) else { throw .missing(path: path) }
        let root = TruthObject(path: path, field: nil, value: try Self.object(at: path))
        let scenario = try root.object("scenario", expected: "the scenario of `periphery synth --sequence --scenario`")
        guard let kind = Kind(rawValue: try scenario.string("name")) else {
            throw .field(path: path, field: "scenario.name", expected: "one of \(Kind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let leadID = try root.optionalInteger("lead_id")
        let fps = try root.number("fps")
        let egoFront = try root.number("ego_front_m")
        guard fps > 0 else { throw .field(path: path, field: "fps", expected: "a frame rate > 0") }
        var frames: [Frame] = []
        for entry in try root.array("trajectory") {
            var lead: Lead?
            if let object = try entry.optionalObject("in_path_lead") {
                lead = Lead(
                    id: try object.integer("id"), range: try object.number("range_m"), closingSpeed: try object.number("closing_speed_m_s"),
                    closingAcceleration: try object.number("closing_acceleration_m_s2"), timeToCollision: try object.optionalNumber("ttc_s"),
                    headway: try object.optionalNumber("headway_s"))
            }
            let wanted = Set([leadID, lead?.id].compactMap { $0 })
            let labels = directory + "/labels/" + Self.labelsName(try entry.integer("index"))
            frames.append(Frame(time: try entry.number("t"), lead: lead, vehicles: try Self.boxes(wanted, in: labels)))
        }
        guard zip(frames, frames.dropFirst()).allSatisfy({ $0.time < $1.time }) else {
            throw .field(path: path, field: "trajectory", expected: "entries in increasing time \"t\"")
        }
        self.init(
            scenario: Scenario(
                kind: kind, egoSpeed: try scenario.optionalNumber("ego_speed_m_s"), leadSpeed: try scenario.optionalNumber("lead_speed_m_s"),
                gap: try scenario.optionalNumber("gap_m"), leadDeceleration: try scenario.optionalNumber("lead_decel_m_s2")),
            leadID: leadID, egoFrontMetres: egoFront, framesPerSecond: fps, frames: frames)
    }

    /// `NNNNNN.json`, the labels file of frame `index`.
    static func labelsName(_ index: Int) -> String {
        let digits = String(index)
        return String(repeating: "0", count: max(0, 6 - digits.count)) + digits + ".json"
    }

    /// The boxes of the vehicles `ids` in a labels file (`{"vehicles": [{"id", "x", "y", "z",
    /// "length", "width", "height", "yaw", …}]}`); an id the file lacks is not in view.
    static func boxes(_ ids: Set<Int>, in path: String) throws(ScenarioTruthError) -> [Int: VehicleBox] {
        guard !ids.isEmpty else { return [:] }
        let root = TruthObject(path: path, field: nil, value: try object(at: path))
        var boxes: [Int: VehicleBox] = [:]
        for vehicle in try root.array("vehicles") {
            let id = try vehicle.integer("id")
            guard ids.contains(id) else { continue }
            boxes[id] = VehicleBox(
                x: try vehicle.number("x"), y: try vehicle.number("y"), z: try vehicle.number("z"), length: try vehicle.number("length"),
                width: try vehicle.number("width"), height: try vehicle.number("height"), yaw: try vehicle.number("yaw"))
        }
        return boxes
    }

    /// The JSON object in the file at `path`.
    private static func object(at path: String) throws(ScenarioTruthError) -> [String: Any] {
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(path: path, reason: "cannot be read") }
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw .unreadable(path: path, reason: "not a JSON object")
        }
        return object
    }
}

/// A JSON object of a truth file, whose accessors name the file and the field's path when it is
/// absent or of the wrong kind.
private struct TruthObject {
    let path: String
    /// The object's own path (`trajectory[3]`), nil for the root.
    let field: String?
    let value: [String: Any]

    func name(_ key: String) -> String { field.map { "\($0).\(key)" } ?? key }

    func fail(_ key: String, _ expected: String) -> ScenarioTruthError { .field(path: path, field: name(key), expected: expected) }

    func number(_ key: String) throws(ScenarioTruthError) -> Double {
        guard let value = try optionalNumber(key) else { throw fail(key, "a finite number") }
        return value
    }

    /// A number, or nil for an explicit null; an absent key is an error.
    func optionalNumber(_ key: String) throws(ScenarioTruthError) -> Double? {
        switch value[key] {
        case is NSNull: return nil
        case let number as NSNumber where number.doubleValue.isFinite: return number.doubleValue
        default: throw fail(key, "a finite number or null")
        }
    }

    func integer(_ key: String) throws(ScenarioTruthError) -> Int {
        guard let value = try optionalInteger(key) else { throw fail(key, "an integer") }
        return value
    }

    func optionalInteger(_ key: String) throws(ScenarioTruthError) -> Int? {
        switch value[key] {
        case is NSNull: return nil
        case let number as NSNumber where number.doubleValue == number.doubleValue.rounded() && abs(number.doubleValue) < 1e15:
            return Int(number.doubleValue)
        default: throw fail(key, "an integer or null")
        }
    }

    func string(_ key: String) throws(ScenarioTruthError) -> String {
        guard let value = value[key] as? String else { throw fail(key, "a string") }
        return value
    }

    func object(_ key: String, expected: String) throws(ScenarioTruthError) -> TruthObject {
        guard let object = value[key] as? [String: Any] else { throw fail(key, expected) }
        return TruthObject(path: path, field: name(key), value: object)
    }

    /// An object, or nil for an explicit null; an absent key is an error.
    func optionalObject(_ key: String) throws(ScenarioTruthError) -> TruthObject? {
        switch value[key] {
        case is NSNull: return nil
        case let object as [String: Any]: return TruthObject(path: path, field: name(key), value: object)
        default: throw fail(key, "an object or null")
        }
    }

    func array(_ key: String) throws(ScenarioTruthError) -> [TruthObject] {
        guard let array = value[key] as? [Any] else { throw fail(key, "an array") }
        var objects: [TruthObject] = []
        for (i, element) in array.enumerated() {
            guard let object = element as? [String: Any] else { throw fail("\(key)[\(i)]", "an object") }
            objects.append(TruthObject(path: path, field: name("\(key)[\(i)]"), value: object))
        }
        return objects
    }
}
