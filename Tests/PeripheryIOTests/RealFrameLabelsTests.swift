import Foundation
import PeripheryCore
import PeripheryGeometry
import PeripheryIO
import PeripheryTestSupport
import Testing

/// The real-frame set's labels files (`Tests/real/README.md`): the shipped set reads, and each kind
/// of bad file is an error that names the file and the field.
struct RealFrameLabelsTests {
    /// A set of one frame in a scratch folder: the shipped test1 frame and camera A, with `vehicles`.
    static func writeSet(vehicles: String, frame: String = "frames/A-udacity-test1.jpg") throws -> (folder: String, labels: String) {
        let folder = try scratchFolder("real-frames")
        for sub in ["frames", "cameras", "labels"] {
            try FileManager.default.createDirectory(atPath: folder + "/" + sub, withIntermediateDirectories: true)
        }
        try FileManager.default.copyItem(atPath: repositoryPath("Tests/real/frames/A-udacity-test1.jpg"), toPath: folder + "/frames/A-udacity-test1.jpg")
        try FileManager.default.copyItem(atPath: repositoryPath("Tests/real/cameras/A.json"), toPath: folder + "/cameras/A.json")
        let labels = folder + "/labels/A-udacity-test1.json"
        let json = "{\"frame\": \"\(frame)\", \"calibration\": \"cameras/A.json\", \"vehicles\": [\(vehicles)]}"
        try Data(json.utf8).write(to: URL(fileURLWithPath: labels))
        return (folder, labels)
    }

    /// The first vehicle of the shipped A-udacity-test1 labels, as written by tools/real_frames/ranges.py.
    static let good = "{\"box\": [816, 411, 946, 494], \"class\": 0, \"dont_care\": false, \"x_m\": 20.76, \"y_m\": -4.012}"

    @Test func theShippedSetReadsAndItsContactPointsLieUnderTheirBoxes() throws {
        let set = try RealFrameSet(path: repositoryPath("Tests/real"))
        #expect(set.labelFiles.count == 40)
        let frames = try set.labelFiles.map { try set.read($0) }
        #expect(Set(frames.map(\.camera)) == ["A", "B", "C", "D"])
        #expect(frames.map(\.vehicles.count).reduce(0, +) == 270)
    }

    @Test func aGoodFileReads() throws {
        let (folder, labels) = try Self.writeSet(vehicles: Self.good)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let frame = try RealFrameLabels.read(path: labels, folder: folder)
        #expect(frame.name == "A-udacity-test1" && frame.camera == "A")
        #expect(frame.vehicles == [RealFrameVehicle(box: SIMD4(816, 411, 946, 494), label: 0, dontCare: false, contact: SIMD2(20.76, -4.012))])
        // 20.8 m ahead, 4 m right, at most half outside camera A's crop: it counts; as don't care it would not.
        let calibration = CameraCalibration(frame.setup)
        #expect(frame.truth(calibration: calibration) == [ImageBoxTruth(rectangle: SIMD4(816, 411, 946, 494), counts: true)])
    }

    @Test(arguments: [
        ("{\"class\": 0, \"dont_care\": false, \"x_m\": 1, \"y_m\": 0}", "vehicles[0].box"),
        ("{\"box\": [816, 411, 946, 721], \"class\": 0, \"dont_care\": false, \"x_m\": 1, \"y_m\": 0}", "vehicles[0].box"),
        ("{\"box\": [946, 411, 816, 494], \"class\": 0, \"dont_care\": false, \"x_m\": 1, \"y_m\": 0}", "vehicles[0].box"),
        ("{\"box\": [816, 411, 946, 494], \"class\": 3, \"dont_care\": false, \"x_m\": 20.76, \"y_m\": -4.012}", "vehicles[0].class"),
        ("{\"box\": [816, 411, 946, 494], \"class\": 0, \"x_m\": 20.76, \"y_m\": -4.012}", "vehicles[0].dont_care"),
        ("{\"box\": [816, 411, 946, 494], \"class\": 0, \"dont_care\": false, \"x_m\": 25, \"y_m\": -4.012}", "vehicles[0].x_m"),
        ("{\"box\": [816, 411, 946, 494], \"class\": 0, \"dont_care\": false, \"x_m\": null, \"y_m\": null}", "vehicles[0].x_m"),
    ])
    func aBadVehicleNamesTheFileAndField(vehicle: String, field: String) throws {
        let (folder, labels) = try Self.writeSet(vehicles: Self.good + ", " + vehicle)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let error = #expect(throws: RealFrameError.self) { try RealFrameLabels.read(path: labels, folder: folder) }
        guard case .field(let path, let named, _) = error else {
            Issue.record("expected a field error, got \(String(describing: error))")
            return
        }
        #expect(path == labels)
        #expect(named == field.replacingOccurrences(of: "[0]", with: "[1]"))
    }

    @Test func aMissingPictureOrCalibrationIsNamed() throws {
        let (folder, labels) = try Self.writeSet(vehicles: Self.good, frame: "frames/missing.jpg")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let error = #expect(throws: RealFrameError.self) { try RealFrameLabels.read(path: labels, folder: folder) }
        #expect(error?.description.contains("field 'frame'") == true)
        #expect(error?.description.hasPrefix(labels) == true)

        try FileManager.default.removeItem(atPath: folder + "/cameras/A.json")
        let other = labels.replacingOccurrences(of: "A-udacity-test1.json", with: "other.json")
        try Data("{\"frame\": \"frames/A-udacity-test1.jpg\", \"calibration\": \"cameras/A.json\", \"vehicles\": []}".utf8)
            .write(to: URL(fileURLWithPath: other))
        let noCamera = #expect(throws: RealFrameError.self) { try RealFrameLabels.read(path: other, folder: folder) }
        guard case .calibration(let named, _) = noCamera else {
            Issue.record("expected a calibration error, got \(String(describing: noCamera))")
            return
        }
        #expect(named == other)
    }
}
