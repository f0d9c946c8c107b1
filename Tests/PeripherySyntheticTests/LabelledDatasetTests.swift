import Foundation
import PeripheryTestSupport
import Testing

@testable import PeripheryCore
@testable import PeripheryGeometry
@testable import PeripheryIO
@testable import PeripherySynthetic

/// The dataset readers of `periphery eval --data` and `periphery prepare` against the writers of
/// `periphery synth` (whose truth is known) and against hand-made KITTI files.
@Suite struct LabelledDatasetTests {
    /// A synthetic dataset of one blank frame with `labels`, in every layout.
    static func dataset(_ name: String, seed: UInt64) throws -> (SyntheticDataset, CameraSetup, [SyntheticLabel]) {
        var rng = SyntheticRandom(seed: seed)
        let setup = try SyntheticCamera(width: 640, height: 400).draw(&rng)
        // In front of the camera and well inside its view, so that the readers' view rule agrees.
        let labels = (0..<6).map { i in
            let x = rng.uniform(10, 40)
            let box = GroundTruthBox(
                label: i % 4,
                box: VehicleBox(
                    x: x, y: x * rng.uniform(-0.25, 0.25), z: rng.uniform(0.6, 1.8),
                    length: rng.uniform(1.8, 12), width: rng.uniform(0.6, 2.6), height: rng.uniform(1.2, 3.6), yaw: rng.uniform(-3.1, 3.1)))
            return SyntheticLabel(
                vehicleIndex: i, box: box, visiblePixels: 500, unoccludedPixels: 600, occlusion: 0.2, truncation: 0,
                isVisible: true, viewPixels: 500, viewTruncation: 0, isInView: i != 5)
        }
        let dataset = SyntheticDataset(path: try scratchFolder(name))
        try dataset.write(index: 0, image: RGBImage(width: 640, height: 400), setup: setup, labels: labels)
        try KITTIObjectFormat.write(index: 0, dataset: dataset, setup: setup, labels: labels)
        try CityscapesBox3DFormat.write(index: 0, dataset: dataset, setup: setup, labels: labels)
        return (dataset, setup, labels)
    }

    static func expectEqual(_ a: CameraSetup, _ b: CameraSetup, tolerance: Double) {
        let (k, l) = (a.intrinsics, b.intrinsics)
        for (u, v) in [(k.fx, l.fx), (k.fy, l.fy), (k.cx, l.cx), (k.cy, l.cy), (k.skew, l.skew)] { #expect(abs(u - v) < tolerance * 1000) }
        #expect(k.width == l.width && k.height == l.height)
        let (p, q) = (a.pose, b.pose)
        for (u, v) in [
            (p.pitch, q.pitch), (p.roll, q.roll), (p.yaw, q.yaw), (p.height, q.height), (p.forwardOfOrigin, q.forwardOfOrigin),
            (p.lateralOffset, q.lateralOffset),
        ] {
            #expect(abs(u - v) < tolerance)
        }
    }

    /// Each layout reads back the camera and the truth it was written with: the vehicles in view,
    /// the one out of view as don't-care.
    @Test(arguments: LabelledDataset.Layout.allCases, 0..<4 as Range<UInt64>)
    func everyLayoutReadsBackTheTruth(layout: LabelledDataset.Layout, seed: UInt64) throws {
        let (dataset, setup, labels) = try Self.dataset("layouts", seed: seed)
        defer { try? FileManager.default.removeItem(atPath: dataset.path) }
        let reader = try LabelledDataset(path: dataset.path, options: .init(layout: layout))
        try #require(reader.entries.count == 1)
        let frame = try reader.read(reader.entries[0])
        // KITTI's P2 is written with 13 significant digits and decomposed again.
        Self.expectEqual(frame.setup, setup, tolerance: layout == .kitti ? 1e-9 : 1e-12)
        let inView = labels.filter(\.isInView).map(\.box), outOfView = labels.filter { !$0.isInView }.map(\.box)
        // A synthetic vehicle in view is in view by the readers' rule too (KITTI has no in_view field).
        try #require(frame.truth.vehicles.count == inView.count && frame.truth.dontCare.count == outOfView.count)
        for (read, written) in zip(frame.truth.vehicles + frame.truth.dontCare, inView + outOfView) {
            #expect(read.label == written.label || (layout == .kitti && !written.box.x.isNaN && read.label == -1))
            let (p, q) = (read.box, written.box)
            for (u, v) in [(p.x, q.x), (p.y, q.y), (p.z, q.z), (p.length, q.length), (p.width, q.width), (p.height, q.height)] {
                #expect(abs(u - v) < 1e-8)
            }
            #expect(abs(remainder(p.yaw - q.yaw, 2 * .pi)) < 1e-8)
        }
    }

    /// A KITTI camera as KITTI writes it (upper-triangular P2 with the stereo offset in its last
    /// column, R0_rect, no mount): with the mount from mount.json, P2 · rectified point and our
    /// calibration's projection of the same point in the vehicle frame agree, and a label's bottom
    /// centre lands on the road below the rectified frame's origin as the mount says.
    @Test func realKITTICalibrationWithAMount() throws {
        let folder = try scratchFolder("kitti-real")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let calib = folder + "/calib.txt", label = folder + "/label.txt"
        let p2: [Double] = [721.5377, 0, 609.5593, 44.85728, 0, 721.5377, 172.854, 0.2163791, 0, 0, 1, 0.002745884]
        let text =
            "P0: 721.5377 0 609.5593 0 0 721.5377 172.854 0 0 0 1 0\nP2: " + p2.map { "\($0)" }.joined(separator: " ")
            + "\nR0_rect: 0.9999239 0.00983776 -0.007445048 -0.009869795 0.9999421 -0.004278459 0.007402527 0.004351614 0.9999631\n"
            + "Tr_velo_to_cam: 7.533745e-03 -9.999714e-01 -6.166020e-04 -4.069766e-03 1.480249e-02 7.280733e-04 -9.998902e-01 "
            + "-7.631618e-02 9.998621e-01 7.523790e-03 1.480755e-02 -2.717806e-01\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: calib))
        try Data(#"{"height_m": 1.65, "pitch_deg": -1.5, "forward_of_origin_m": 1.2}"#.utf8).write(to: URL(fileURLWithPath: folder + "/mount.json"))
        let mount = try KITTIMount.load(root: folder, height: nil, pitchDegrees: nil)
        #expect(mount == .rectifiedCamera(MountPose(pitchDegrees: -1.5, height: 1.65, forwardOfOrigin: 1.2)))
        let setup = try KITTIObjectFormat.readCamera(calib: calib, width: 1242, height: 375, mount: mount).setup
        let calibration = CameraCalibration(setup)
        let toVehicle = try KITTIObjectFormat.vehicleFromRectified(try KITTIObjectFormat.readCalib(calib), mount: mount, path: calib)
        for q in [SIMD3(0.0, 1.0, 10.0), SIMD3(-4.0, 1.6, 25.0), SIMD3(3.0, -0.5, 7.0)] {
            let h = SIMD3(
                p2[0] * q.x + p2[1] * q.y + p2[2] * q.z + p2[3], p2[4] * q.x + p2[5] * q.y + p2[6] * q.z + p2[7],
                p2[8] * q.x + p2[9] * q.y + p2[10] * q.z + p2[11])
            let ours = try #require(calibration.sourcePoint(toVehicle.rotation * q + toVehicle.translation))
            #expect(abs(ours.x - h.x / h.z) < 1e-6 && abs(ours.y - h.y / h.z) < 1e-6)
        }
        // A car 20 m ahead on the road, driving away (rotation_y −π/2): its bottom centre is 1.65 m below a level mount.
        try Data("Car 0.00 0 -1.57 600 170 640 200 1.50 1.60 4.00 0.00 1.65 20.00 -1.5707963\n".utf8).write(to: URL(fileURLWithPath: label))
        let level = KITTIMount.rectifiedCamera(MountPose(pitchDegrees: 0, height: 1.65, forwardOfOrigin: 1.2))
        let levelVehicle = try KITTIObjectFormat.vehicleFromRectified(try KITTIObjectFormat.readCalib(calib), mount: level, path: calib)
        let box = try #require(try KITTIObjectFormat.readObjects(label: label, vehicleFromRectified: levelVehicle).first?.box)
        #expect(abs(box.x - 21.2) < 1e-9 && abs(box.y) < 1e-9 && abs(box.z - 0.75) < 1e-9 && abs(box.yaw) < 1e-6)
    }

    /// A KITTI dataset without a mount is refused by name; a flag supplies one.
    @Test func kittiNeedsAMount() throws {
        let folder = try scratchFolder("kitti-mount")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(throws: DriveError.self) { _ = try KITTIMount.load(root: folder, height: nil, pitchDegrees: nil) }
        let flags = try KITTIMount.load(root: folder, height: 1.65, pitchDegrees: 2)
        #expect(flags == .rectifiedCamera(MountPose(pitchDegrees: 2, height: 1.65, forwardOfOrigin: 0)))
        try Data(#"{"height_m": 9}"#.utf8).write(to: URL(fileURLWithPath: folder + "/mount.json"))
        #expect(throws: DriveError.self) { _ = try KITTIMount.load(root: folder, height: nil, pitchDegrees: nil) }
    }

    /// Hostile files: each read fails naming the file and the field, or (an unknown class) reads
    /// the object as don't-care with a warning — never a wrong label.
    @Test(arguments: ["missing camera", "NaN box", "unknown class", "size mismatch", "sensor disagrees"])
    func hostileCityscapesFiles(_ hostile: String) throws {
        let (dataset, _, _) = try Self.dataset("hostile", seed: 3)
        defer { try? FileManager.default.removeItem(atPath: dataset.path) }
        let reader = try LabelledDataset(path: dataset.path, options: .init(layout: .cityscapes3D))
        let frame = reader.entries[0]
        func edit(_ path: String, _ change: (String) -> String) throws {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            try Data(change(text).utf8).write(to: URL(fileURLWithPath: path))
        }
        switch hostile {
        case "missing camera":
            try FileManager.default.removeItem(atPath: frame.camera)
            #expect(throws: DriveError.unreadable(path: frame.camera, reason: "cannot read the file")) { _ = try reader.read(frame) }
        case "NaN box":
            try edit(frame.labels) { $0.replacingOccurrences(of: "\"center\" : [", with: "\"center\" : [\"NaN\", ") }
            #expect(throws: DriveError.unreadable(path: frame.labels, reason: "objects[0].3d.center must be 3 numbers")) { _ = try reader.read(frame) }
        case "unknown class":
            try edit(frame.labels) { $0.replacingOccurrences(of: "\"label\" : \"car\"", with: "\"label\" : \"tractor\"") }
            let read = try reader.read(frame)
            #expect(read.warnings.contains { $0.contains("'tractor'") && $0.contains(frame.labels) })
            #expect(read.truth.dontCare.contains { $0.label == -1 } && !read.truth.vehicles.contains { $0.label == -1 })
        case "size mismatch":
            try edit(frame.labels) { $0.replacingOccurrences(of: "\"imgWidth\" : 640", with: "\"imgWidth\" : 1280") }
            #expect(
                throws: DriveError.frameSize(
                    path: frame.image, size: PixelSize(width: 640, height: 400), camera: PixelSize(width: 1280, height: 400), cameraFile: frame.labels)
            ) { _ = try reader.read(frame) }
        default:
            let data = try Data(contentsOf: URL(fileURLWithPath: frame.camera))
            var camera = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            var extrinsic = try #require(camera["extrinsic"] as? [String: Any])
            extrinsic["pitch"] = (extrinsic["pitch"] as? Double ?? 0) + 0.1
            camera["extrinsic"] = extrinsic
            try JSONSerialization.data(withJSONObject: camera).write(to: URL(fileURLWithPath: frame.camera))
            #expect(
                throws: DriveError.unreadable(
                    path: frame.labels, reason: "sensor.sensor_T_ISO_8855 disagrees with the camera file's extrinsic (rotation)")
            ) { _ = try reader.read(frame) }
        }
    }

    /// A KITTI label with a non-finite value is refused naming the file, line and field.
    @Test func nonFiniteKITTIBox() throws {
        let (dataset, _, _) = try Self.dataset("hostile-kitti", seed: 5)
        defer { try? FileManager.default.removeItem(atPath: dataset.path) }
        let reader = try LabelledDataset(path: dataset.path, options: .init(layout: .kitti))
        let frame = reader.entries[0]
        var lines = try String(contentsOfFile: frame.labels, encoding: .utf8).split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        lines[1][11] = "nan"
        try Data(lines.map { $0.joined(separator: " ") }.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: frame.labels))
        #expect(throws: DriveError.unreadable(path: frame.labels, reason: "line 2: x is not a finite number")) { _ = try reader.read(frame) }
    }
}

/// The geometry the real-dataset readers use, against the renderer's own ray camera.
@Suite struct BoxViewTests {
    /// `CameraCalibration.viewTruncation` (the readers' "in view" rule) equals the view truncation the
    /// scene labeller computes for rendered vehicles through the renderer's camera.
    @Test(arguments: 0..<4 as Range<UInt64>)
    func viewTruncationMatchesTheRenderer(seed: UInt64) throws {
        var rng = SyntheticRandom(seed: seed &+ 100)
        let setup = try SyntheticCamera(width: 320, height: 200).draw(&rng)
        let frame = SceneRenderer().render(SceneSampler().scene(seed: seed), intrinsics: setup.intrinsics, pose: setup.pose)
        let calibration = CameraCalibration(setup)
        try #require(!frame.labels.isEmpty)
        for label in frame.labels {
            #expect(abs(calibration.viewTruncation(label.box.box) - label.viewTruncation) < 1e-9)
        }
    }

    /// A pose rebuilt from its own rotation and camera centre is the pose, across the plausible range.
    @Test(arguments: 0..<16 as Range<UInt64>)
    func mountPoseFromItsRotation(seed: UInt64) throws {
        var rng = SyntheticRandom(seed: seed)
        let pose = MountPose(
            pitchDegrees: rng.uniform(-25, 25), rollDegrees: rng.uniform(-25, 25), yawDegrees: rng.uniform(-25, 25),
            height: rng.uniform(0.5, 2.9), forwardOfOrigin: rng.uniform(-1.5, 5.5), lateralOffset: rng.uniform(-1.2, 1.2))
        let rebuilt = MountPose(vehicleToSensor: pose.vehicleToSensorRotation, cameraCentre: pose.cameraCentre)
        for (a, b) in [
            (pose.pitch, rebuilt.pitch), (pose.roll, rebuilt.roll), (pose.yaw, rebuilt.yaw), (pose.height, rebuilt.height),
            (pose.forwardOfOrigin, rebuilt.forwardOfOrigin), (pose.lateralOffset, rebuilt.lateralOffset),
        ] {
            #expect(abs(a - b) < 1e-12)
        }
    }

    /// A camera file whose intrinsics are no camera fails with the calibration's own error, naming
    /// the file and the field.
    @Test func invalidCityscapesIntrinsicsCarryTheCalibrationError() throws {
        let folder = try scratchFolder("cityscapes-camera")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/camera.json"
        try Data(
            #"""
            {"extrinsic": {"pitch": 0.05, "roll": 0, "yaw": 0, "x": 1.5, "y": 0, "z": 1.2},
             "intrinsic": {"fx": 0, "fy": 1000, "u0": 640, "v0": 360}}
            """#.utf8
        ).write(to: URL(fileURLWithPath: path))
        let expected = DriveError.invalidCamera(path: path, field: "intrinsic", .outOfRange(field: "fx", value: 0, allowed: "> 0"))
        #expect(throws: expected) { _ = try CityscapesBox3DFormat.readCamera(path: path, width: 1280, height: 720) }
        #expect(expected.description == "\(path): intrinsic: field 'fx' = 0.0 is out of range (> 0)")
    }
}
