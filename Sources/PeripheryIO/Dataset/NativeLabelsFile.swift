import Foundation
import PeripheryCore

/// The labels file of the native dataset layout (`DIR/labels/NNNNNN.json`, docs/guides/training.md §6):
/// `{"vehicles": [{"label", "x", "y", "z", "length", "width", "height", "yaw", "in_view", …}]}`,
/// vehicle frame, z at the box centre. Vehicles with `"in_view": false` are don't-care; labels
/// without `in_view` count as in view.
public enum NativeLabelsFile {
    /// One vehicle's entry: class name, label, box and `in_view` (writers add their own fields).
    public static func entry(_ truth: GroundTruthBox, inView: Bool) -> [String: Any] {
        let b = truth.box
        return [
            "class": VehicleClass(rawValue: truth.label)?.name ?? "unknown", "label": truth.label, "x": b.x, "y": b.y, "z": b.z,
            "length": b.length, "width": b.width, "height": b.height, "yaw": b.yaw, "in_view": inView,
        ]
    }

    /// Reads one labels file as ground truth.
    ///
    /// - Throws: `DriveError.unreadable` naming the file and the field (`vehicles[3].x`).
    public static func read(path: String) throws(DriveError) -> GroundTruth {
        guard let data = FileManager.default.contents(atPath: path),
            let root = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
            let vehicles = root["vehicles"] as? [[String: Any]]
        else {
            throw .unreadable(path: path, reason: "not a labels object with a 'vehicles' array")
        }
        var truth = GroundTruth(vehicles: [])
        for (i, v) in vehicles.enumerated() {
            func number(_ key: String) throws(DriveError) -> Double {
                guard let n = v[key] as? NSNumber, n.doubleValue.isFinite else {
                    throw .unreadable(path: path, reason: "vehicles[\(i)].\(key) must be a finite number")
                }
                return n.doubleValue
            }
            let box = GroundTruthBox(
                label: Int(try number("label")),
                box: VehicleBox(
                    x: try number("x"), y: try number("y"), z: try number("z"),
                    length: try number("length"), width: try number("width"), height: try number("height"), yaw: try number("yaw")))
            let inView: Bool
            switch v["in_view"] {
            case nil: inView = true
            case let flag as Bool: inView = flag
            default: throw .unreadable(path: path, reason: "vehicles[\(i)].in_view must be true or false")
            }
            if inView { truth.vehicles.append(box) } else { truth.dontCare.append(box) }
        }
        return truth
    }
}
