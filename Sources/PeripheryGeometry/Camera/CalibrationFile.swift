import Foundation
import PeripheryCore

/// The project's calibration file: a camera's intrinsics and mount pose in JSON.
///
/// ```json
/// {"intrinsics": {"fx": 910, "fy": 910, "cx": 582, "cy": 437, "width": 1164, "height": 874},
///  "mount": {"pitch_deg": -3.659, "roll_deg": 0, "yaw_deg": 0, "height_m": 1.2,
///            "forward_of_origin_m": 1.65}}
/// ```
/// `intrinsics` may give `"K": [[fx, s, cx], [0, fy, cy], [0, 0, 1]]` (row-major) instead of the four
/// numbers; `mount` may add `"lateral_offset_m"` (default 0). Every other field is required.
public enum CalibrationFile {
    /// Largest accepted calibration file, bytes (a real one is under 1 KB).
    public static let maxFileSize = 1 << 20

    /// Reads and validates a calibration file.
    ///
    /// - Throws: `CalibrationError.unreadable` if the file cannot be read or parsed, otherwise
    ///   `CalibrationError.inFile` wrapping the error that names the bad field.
    public static func load(path: String) throws(CalibrationError) -> CameraSetup {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        if let size = attributes?[.size] as? Int, size > maxFileSize {
            throw .unreadable(path: path, reason: "\(size) bytes exceeds the \(maxFileSize)-byte limit")
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .unreadable(path: path, reason: "cannot read file (\(error.localizedDescription))")
        }
        do {
            return try parse(data)
        } catch let error {
            if case .unreadable(_, let reason) = error { throw .unreadable(path: path, reason: reason) }
            throw .inFile(path: path, error)
        }
    }

    /// Parses and validates calibration JSON.
    ///
    /// - Throws: `CalibrationError` naming the field (e.g. `intrinsics.fx`, `mount.height_m`).
    public static func parse(_ data: Data) throws(CalibrationError) -> CameraSetup {
        guard data.count <= maxFileSize else {
            throw .unreadable(path: "<calibration>", reason: "\(data.count) bytes exceeds the \(maxFileSize)-byte limit")
        }
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw .unreadable(path: "<calibration>", reason: "not valid JSON")
        }
        let object = try JSONObject(root, path: "")
        let intrinsics = try parseIntrinsics(try object.object("intrinsics"))
        let pose = try parseMount(try object.object("mount"))
        return CameraSetup(intrinsics: intrinsics, pose: pose)
    }

    /// Serializes a setup in the documented format (explicit fx/fy/cx/cy, angles in degrees).
    public static func encode(_ setup: CameraSetup) -> Data {
        let k = setup.intrinsics, p = setup.pose
        var intrinsics: [String: Any] = [
            "fx": k.fx, "fy": k.fy, "cx": k.cx, "cy": k.cy, "width": k.width, "height": k.height,
        ]
        if k.skew != 0 {
            intrinsics["K"] = k.matrix.rowMajor
            for key in ["fx", "fy", "cx", "cy"] { intrinsics[key] = nil }
        }
        let mount: [String: Any] = [
            "pitch_deg": p.pitch * 180 / .pi, "roll_deg": p.roll * 180 / .pi, "yaw_deg": p.yaw * 180 / .pi,
            "height_m": p.height, "forward_of_origin_m": p.forwardOfOrigin, "lateral_offset_m": p.lateralOffset,
        ]
        let root: [String: Any] = ["intrinsics": intrinsics, "mount": mount]
        // Only numbers, strings, arrays and dictionaries: serialization cannot fail.
        return (try? JSONSerialization.data(withJSONObject: root, options: [.prettyPrinted, .sortedKeys])) ?? Data()
    }

    static func parseIntrinsics(_ o: JSONObject) throws(CalibrationError) -> CameraIntrinsics {
        let width = try o.integer("width"), height = try o.integer("height")
        do {
            if o.has("K") {
                guard let k = Matrix3(rowMajor: try o.matrix("K")) else {
                    throw CalibrationError.wrongType(field: o.path("K"), expected: "a 3×3 array of numbers")
                }
                do {
                    return try CameraIntrinsics(K: k, width: width, height: height)
                } catch {
                    throw error.renamingField { CalibrationFile.matrixElementNames[$0] ?? $0 }
                }
            }
            return try CameraIntrinsics(
                fx: try o.number("fx"), fy: try o.number("fy"), cx: try o.number("cx"), cy: try o.number("cy"),
                width: width, height: height)
        } catch let error as CalibrationError {
            throw o.qualify(error)
        } catch {
            throw .wrongType(field: o.path("K"), expected: "a 3×3 array of numbers")
        }
    }

    /// Names of K's elements, for errors about intrinsics given as a matrix.
    static let matrixElementNames = [
        "fx": "K[0][0]", "skew": "K[0][1]", "cx": "K[0][2]", "fy": "K[1][1]", "cy": "K[1][2]",
    ]

    static func parseMount(_ o: JSONObject) throws(CalibrationError) -> MountPose {
        let pose = MountPose(
            pitchDegrees: try o.number("pitch_deg"), rollDegrees: try o.number("roll_deg"),
            yawDegrees: try o.number("yaw_deg"), height: try o.number("height_m"),
            forwardOfOrigin: try o.number("forward_of_origin_m"),
            lateralOffset: o.has("lateral_offset_m") ? try o.number("lateral_offset_m") : 0)
        do {
            try pose.validate()
        } catch {
            throw o.qualify(error)
        }
        return pose
    }
}

/// A JSON dictionary with its path, so that every error names the full field.
struct JSONObject {
    let values: [String: Any]
    let prefix: String

    init(_ value: Any, path: String) throws(CalibrationError) {
        guard let values = value as? [String: Any] else {
            throw path.isEmpty ? .wrongType(field: "<root>", expected: "an object") : .wrongType(field: path, expected: "an object")
        }
        self.values = values
        prefix = path
    }

    func path(_ key: String) -> String { prefix.isEmpty ? key : "\(prefix).\(key)" }

    func has(_ key: String) -> Bool { values[key] != nil }

    func value(_ key: String) throws(CalibrationError) -> Any {
        guard let v = values[key] else { throw .missingField(path(key)) }
        return v
    }

    func object(_ key: String) throws(CalibrationError) -> JSONObject {
        try JSONObject(try value(key), path: path(key))
    }

    func number(_ key: String) throws(CalibrationError) -> Double {
        guard let n = JSONObject.asNumber(try value(key)) else {
            throw .wrongType(field: path(key), expected: "a number")
        }
        guard n.isFinite else { throw .nonFinite(field: path(key)) }
        return n
    }

    func integer(_ key: String) throws(CalibrationError) -> Int {
        let n = try number(key)
        guard n == n.rounded(), abs(n) < 1e9 else { throw .wrongType(field: path(key), expected: "an integer") }
        return Int(n)
    }

    func matrix(_ key: String) throws(CalibrationError) -> [[Double]] {
        guard let rows = try value(key) as? [Any] else {
            throw .wrongType(field: path(key), expected: "an array of rows")
        }
        var result: [[Double]] = []
        for (r, row) in rows.enumerated() {
            guard let cells = row as? [Any] else { throw .wrongType(field: "\(path(key))[\(r)]", expected: "an array") }
            var numbers: [Double] = []
            for (c, cell) in cells.enumerated() {
                guard let n = JSONObject.asNumber(cell) else {
                    throw .wrongType(field: "\(path(key))[\(r)][\(c)]", expected: "a number")
                }
                guard n.isFinite else { throw .nonFinite(field: "\(path(key))[\(r)][\(c)]") }
                numbers.append(n)
            }
            result.append(numbers)
        }
        return result
    }

    /// Prefixes the field of an error raised by a validating initialiser with this object's path.
    func qualify(_ error: CalibrationError) -> CalibrationError {
        error.renamingField { field in field.hasPrefix(prefix + ".") ? field : path(field) }
    }

    /// A JSON number as Double; booleans, which Foundation also bridges to NSNumber, are refused.
    static func asNumber(_ value: Any) -> Double? {
        // JSON booleans arrive as NSNumber with the objCType of a C char; JSON numbers never do.
        guard let n = value as? NSNumber, String(cString: n.objCType) != "c" else { return nil }
        return n.doubleValue
    }
}
