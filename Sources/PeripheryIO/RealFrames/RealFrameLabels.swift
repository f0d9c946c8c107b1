import Foundation
import PeripheryCore
import PeripheryGeometry

/// The labels file of one real frame (`Tests/real/README.md`, "Labels"):
/// `{"frame": "frames/X.jpg", "calibration": "cameras/A.json", "vehicles": [{"box", "class",
/// "dont_care", "x_m", "y_m"}]}`, paths relative to the set's folder.
public enum RealFrameLabels {
    /// How far, pixels, a stored contact point may project from its box's bottom-centre: the
    /// points are written to 1 cm, which moves them by well under a pixel.
    public static let contactTolerance = 1.0

    /// Reads and checks one labels file of the set in `folder`.
    ///
    /// - Throws: `RealFrameError` naming the file and the field: a missing or mistyped field, a
    ///   class that is not 0, 1 or 2, a box that is inverted or leaves the frame, a contact point
    ///   that does not project onto its box's bottom-centre, a missing picture, a bad calibration.
    public static func read(path: String, folder: String) throws(RealFrameError) -> RealFrame {
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(path: path, reason: "cannot read file") }
        guard let root = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw .unreadable(path: path, reason: "not a JSON object")
        }
        guard let frame = root["frame"] as? String else { throw .field(path: path, field: "frame", expected: "a path string") }
        guard let camera = root["calibration"] as? String else {
            throw .field(path: path, field: "calibration", expected: "a path string")
        }
        let imagePath = folder + "/" + frame
        guard FileManager.default.fileExists(atPath: imagePath) else {
            throw .field(path: path, field: "frame", expected: "an existing picture (\(imagePath) is missing)")
        }
        let setup: CameraSetup
        do {
            setup = try CalibrationFile.load(path: folder + "/" + camera)
        } catch {
            throw .calibration(labels: path, error)
        }
        guard let entries = root["vehicles"] as? [[String: Any]] else {
            throw .field(path: path, field: "vehicles", expected: "an array of objects")
        }
        let calibration = CameraCalibration(setup)
        var vehicles: [RealFrameVehicle] = []
        for (i, entry) in entries.enumerated() {
            vehicles.append(try vehicle(entry, field: "vehicles[\(i)]", path: path, calibration: calibration))
        }
        let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        let cameraName = URL(fileURLWithPath: camera).deletingPathExtension().lastPathComponent
        return RealFrame(name: name, camera: cameraName, imagePath: imagePath, setup: setup, vehicles: vehicles)
    }

    private static func vehicle(
        _ entry: [String: Any], field: String, path: String, calibration: CameraCalibration
    ) throws(RealFrameError) -> RealFrameVehicle {
        let width = Double(calibration.setup.intrinsics.width), height = Double(calibration.setup.intrinsics.height)
        guard let numbers = entry["box"] as? [NSNumber], numbers.count == 4, numbers.allSatisfy({ $0.doubleValue.isFinite }) else {
            throw .field(path: path, field: "\(field).box", expected: "four finite numbers [x0, y0, x1, y1]")
        }
        let box = SIMD4(numbers[0].doubleValue, numbers[1].doubleValue, numbers[2].doubleValue, numbers[3].doubleValue)
        guard box.x >= 0, box.y >= 0, box.z <= width, box.w <= height, box.x < box.z, box.y < box.w else {
            throw .field(path: path, field: "\(field).box", expected: "0 ≤ x0 < x1 ≤ \(Int(width)) and 0 ≤ y0 < y1 ≤ \(Int(height))")
        }
        guard let label = entry["class"] as? Int, (0...2).contains(label) else {
            throw .field(path: path, field: "\(field).class", expected: "0, 1 or 2")
        }
        guard let dontCare = entry["dont_care"] as? Bool else {
            throw .field(path: path, field: "\(field).dont_care", expected: "true or false")
        }
        let x = entry["x_m"] as? NSNumber, y = entry["y_m"] as? NSNumber
        guard let x, let y else {
            guard entry["x_m"] is NSNull, entry["y_m"] is NSNull, dontCare else {
                throw .field(path: path, field: "\(field).x_m", expected: "numbers x_m and y_m, or both null on a don't-care vehicle")
            }
            return RealFrameVehicle(box: box, label: label, dontCare: dontCare, contact: nil)
        }
        let contact = SIMD2(x.doubleValue, y.doubleValue)
        let bottomCentre = SIMD2((box.x + box.z) / 2, box.w)
        guard let projected = calibration.sourcePoint(SIMD3(contact.x, contact.y, 0)),
            ((projected - bottomCentre) * (projected - bottomCentre)).sum().squareRoot() <= contactTolerance
        else {
            throw .field(path: path, field: "\(field).x_m", expected: "the road point under the box's bottom-centre (tools/real_frames/ranges.py)")
        }
        return RealFrameVehicle(box: box, label: label, dontCare: dontCare, contact: contact)
    }
}
