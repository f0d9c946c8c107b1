import Foundation
import PeripheryEvents

/// JSON Schemas of the Foxglove messages of a run, named as Foxglove names them
/// (`foxglove.SceneUpdate`, ...), so that viewers recognise the channels; the MCAP stores each with
/// encoding `jsonschema`, the live server advertises them. Only the fields written are described.
indirect enum FoxgloveSchema: Sendable {
    case object([(String, FoxgloveSchema)])
    case array(FoxgloveSchema)
    case number, integer, string, boolean
    /// Bytes, base64 in JSON.
    case bytes
    /// A number or `null` (unknown).
    case optionalNumber
    /// One of the given strings.
    case oneOf([String])

    /// The schema as a JSON value.
    var json: [String: Any] {
        switch self {
        case .object(let fields):
            ["type": "object", "properties": Dictionary(uniqueKeysWithValues: fields.map { ($0.0, $0.1.json) })]
        case .array(let element): ["type": "array", "items": element.json]
        case .number: ["type": "number"]
        case .integer: ["type": "integer"]
        case .string: ["type": "string"]
        case .boolean: ["type": "boolean"]
        case .bytes: ["type": "string", "contentEncoding": "base64"]
        case .optionalNumber: ["type": ["number", "null"]]
        case .oneOf(let values): ["type": "string", "enum": values]
        }
    }

    /// The schema document for a message named `name`.
    func document(named name: String) -> Data {
        var root = json
        root["title"] = name
        root["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        return (try? JSONSerialization.data(withJSONObject: root, options: [.sortedKeys])) ?? Data()
    }

    static let time = object([("sec", .integer), ("nsec", .integer)])
    static let vector3 = object([("x", .number), ("y", .number), ("z", .number)])
    static let quaternion = object([("x", .number), ("y", .number), ("z", .number), ("w", .number)])
    static let pose = object([("position", vector3), ("orientation", quaternion)])
    static let color = object([("r", .number), ("g", .number), ("b", .number), ("a", .number)])

    static let runStats = object([
        ("index", .integer), ("pts", .number), ("processed", .integer), ("dropped", .integer), ("corrupt", .integer),
        ("latency_ms", .number), ("fps", .number),
    ])

    /// `/perception/events`: the frame's event reports, as the sidecar line's `events`; the message
    /// that ends a run's events has `end_of_run`.
    static let safetyEvents = object([
        ("timestamp", time), ("index", .integer), ("pts", .number), ("end_of_run", .boolean),
        (
            "events",
            .array(
                object([
                    ("type", .oneOf(SafetyEventType.allCases.map(\.rawValue))), ("phase", .oneOf(SafetyEventPhase.allCases.map(\.rawValue))),
                    ("track", .integer), ("ttc_s", .optionalNumber), ("headway_s", .optionalNumber), ("range_m", .optionalNumber),
                ]))
        ),
    ])

    static let compressedImage = object([("timestamp", time), ("frame_id", .string), ("data", .bytes), ("format", .string)])

    static let cameraCalibration = object([
        ("timestamp", time), ("frame_id", .string), ("width", .integer), ("height", .integer), ("distortion_model", .string),
        ("D", .array(.number)), ("K", .array(.number)), ("R", .array(.number)), ("P", .array(.number)),
    ])

    static let frameTransform = object([
        ("timestamp", time), ("parent_frame_id", .string), ("child_frame_id", .string), ("translation", vector3),
        ("rotation", quaternion),
    ])

    static let posesInFrame = object([("timestamp", time), ("frame_id", .string), ("poses", .array(pose))])

    static let sceneUpdate: FoxgloveSchema = {
        let cube = object([("pose", pose), ("size", vector3), ("color", color)])
        let text = object([
            ("pose", pose), ("billboard", .boolean), ("font_size", .number), ("scale_invariant", .boolean), ("color", color),
            ("text", .string),
        ])
        let entity = object([
            ("timestamp", time), ("frame_id", .string), ("id", .string), ("lifetime", time), ("frame_locked", .boolean),
            ("metadata", .array(object([("key", .string), ("value", .string)]))), ("cubes", .array(cube)), ("texts", .array(text)),
            ("arrows", .array(object([]))), ("spheres", .array(object([]))), ("cylinders", .array(object([]))),
            ("lines", .array(object([]))), ("triangles", .array(object([]))), ("models", .array(object([]))),
        ])
        let deletion = object([("timestamp", time), ("type", .integer), ("id", .string)])
        return object([("deletions", .array(deletion)), ("entities", .array(entity))])
    }()
}
