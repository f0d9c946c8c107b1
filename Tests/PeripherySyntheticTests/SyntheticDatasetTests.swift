import Foundation
import PeripheryTestSupport
import Testing

@testable import PeripheryCore
@testable import PeripheryGeometry
@testable import PeripheryIO
@testable import PeripherySynthetic

@Suite struct KITTIObjectFormatTests {
    /// Labels written in KITTI form and read back through the calib file give the same
    /// vehicle-frame boxes, for cameras across the synthetic ranges (tilted, rolled, yawed).
    @Test(arguments: 0..<8 as Range<UInt64>)
    func labelsRoundTripThroughCameraCoordinates(seed: UInt64) throws {
        var rng = SyntheticRandom(seed: seed)
        let setup = try SyntheticCamera(width: 640, height: 400).draw(&rng)
        let boxes = (0..<6).map { i in
            GroundTruthBox(
                label: i % 3,
                box: VehicleBox(
                    x: rng.uniform(3, 40), y: rng.uniform(-10, 10), z: rng.uniform(0.6, 1.8),
                    length: rng.uniform(1.8, 12), width: rng.uniform(0.6, 2.6), height: rng.uniform(1.2, 3.6), yaw: rng.uniform(-3.1, 3.1)))
        }
        let labels = boxes.enumerated().map { i, box in
            SyntheticLabel(
                vehicleIndex: i, box: box, visiblePixels: 100, unoccludedPixels: 120, occlusion: 0.3, truncation: 0, isVisible: true,
                viewPixels: 100, viewTruncation: 0, isInView: true)
        }
        let folder = try scratchFolder("kitti")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let label = folder + "/000000.txt", calib = folder + "/calib.txt"
        try Data((labels.map { KITTIObjectFormat.labelLine($0, setup: setup) }.joined(separator: "\n") + "\n").utf8)
            .write(to: URL(fileURLWithPath: label))
        try Data(KITTIObjectFormat.calibText(setup).utf8).write(to: URL(fileURLWithPath: calib))
        let read = try KITTIObjectFormat.readLabels(label: label, calib: calib).vehicles
        try #require(read.count == boxes.count)
        for (a, b) in zip(boxes, read) {
            // Label files hold six decimals.
            #expect(a.label == b.label)
            let (p, q) = (a.box, b.box)
            for (u, v) in [(p.x, q.x), (p.y, q.y), (p.z, q.z), (p.length, q.length), (p.width, q.width), (p.height, q.height)] {
                #expect(abs(u - v) < 1e-5)
            }
            #expect(abs(remainder(a.box.yaw - b.box.yaw, 2 * .pi)) < 1e-5)
        }
    }

    /// A label not in the detector's view is written as KITTI `DontCare` with its 3-D box and read
    /// back as don't-care truth; KITTI's own `DontCare` lines (−1 sizes) are image regions only.
    @Test func outOfViewLabelsRoundTripAsDontCare() throws {
        var rng = SyntheticRandom(seed: 4)
        let setup = try SyntheticCamera(width: 640, height: 400).draw(&rng)
        let seen = GroundTruthBox(label: 0, box: VehicleBox(x: 20, y: 0.5, z: 0.8, length: 4.4, width: 1.8, height: 1.6, yaw: 0.1))
        let unseen = GroundTruthBox(label: 1, box: VehicleBox(x: 4, y: 4.5, z: 1.6, length: 11, width: 2.5, height: 3.2, yaw: 0))
        let labels = [(seen, true), (unseen, false)].enumerated().map { i, entry in
            SyntheticLabel(
                vehicleIndex: i, box: entry.0, visiblePixels: 900, unoccludedPixels: 900, occlusion: 0, truncation: 0,
                isVisible: true, viewPixels: entry.1 ? 900 : 0, viewTruncation: entry.1 ? 0 : 1, isInView: entry.1)
        }
        let folder = try scratchFolder("kitti-dontcare")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let label = folder + "/l.txt", calib = folder + "/c.txt"
        let lines = labels.map { KITTIObjectFormat.labelLine($0, setup: setup) }
        #expect(lines[0].hasPrefix("Car ") && lines[1].hasPrefix("DontCare "))
        let kittiRegion = "DontCare -1 -1 -10 503.89 169.71 590.61 190.13 -1 -1 -1 -1000 -1000 -1000 -10"
        try Data((lines + [kittiRegion]).joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: label))
        try Data(KITTIObjectFormat.calibText(setup).utf8).write(to: URL(fileURLWithPath: calib))
        let truth = try KITTIObjectFormat.readLabels(label: label, calib: calib)
        try #require(truth.vehicles.count == 1 && truth.dontCare.count == 1)
        #expect(abs(truth.vehicles[0].box.x - seen.box.x) < 1e-5 && abs(truth.dontCare[0].box.y - unseen.box.y) < 1e-5)

        // The JSON labels say the same through "in_view", and refuse anything but a boolean there.
        let dataset = SyntheticDataset(path: folder + "/set")
        try dataset.write(index: 0, image: RGBImage(width: 8, height: 8), setup: setup, labels: labels)
        let read = try dataset.read(index: 0).truth
        #expect(read.vehicles == [seen] && read.dontCare == [unseen])
        let path = dataset.file("labels", 0, "json")
        try Data(#"{"vehicles":[{"label":0,"x":1,"y":0,"z":0.8,"length":4,"width":1.8,"height":1.6,"yaw":0,"in_view":"yes"}]}"#.utf8)
            .write(to: URL(fileURLWithPath: path))
        #expect(throws: DriveError.unreadable(path: path, reason: "vehicles[0].in_view must be true or false")) {
            _ = try dataset.read(index: 0)
        }
    }

    /// P2 · R0_rect · Tr_velo_to_cam projects a vehicle point where the calibration does.
    @Test func calibProjectsLikeTheCalibration() throws {
        var rng = SyntheticRandom(seed: 5)
        let setup = try SyntheticCamera().draw(&rng)
        let lines = KITTIObjectFormat.calibText(setup).split(separator: "\n")
        func matrix(_ name: String) -> [Double] {
            lines.first { $0.hasPrefix(name + ":") }.map { $0.split(separator: " ").dropFirst().compactMap { Double($0) } } ?? []
        }
        let p2 = matrix("P2"), velo = matrix("Tr_velo_to_cam")
        try #require(p2.count == 12 && velo.count == 12)
        let calibration = CameraCalibration(setup)
        for point in [SIMD3(12.0, 1.5, 0.2), SIMD3(35.0, -6.0, 1.4), SIMD3(6.0, 3.0, 0.0)] {
            let c = (0..<3).map { (r: Int) -> Double in velo[4 * r] * point.x + velo[4 * r + 1] * point.y + velo[4 * r + 2] * point.z + velo[4 * r + 3] }
            let h = (0..<3).map { (r: Int) -> Double in p2[4 * r] * c[0] + p2[4 * r + 1] * c[1] + p2[4 * r + 2] * c[2] + p2[4 * r + 3] }
            let expected = try #require(calibration.sourcePoint(point))
            #expect(abs(h[0] / h[2] - expected.x) < 1e-6 && abs(h[1] / h[2] - expected.y) < 1e-6)
        }
    }

    @Test(arguments: [
        ("Car 0 0 0 1 2 3 4 1.5 1.8", "line 1: 10 fields, a KITTI label has 15"),
        ("Car 0 0 0 1 2 3 4 1.5 1.8 4.2 1 2 x 0", "line 1: z is not a finite number"),
        ("Car 0 0 0 1 2 3 4 0 1.8 4.2 1 2 20 0", "line 1: h, w and l must be positive"),
    ])
    func malformedLabelsAreRefusedWithTheirLine(text: String, reason: String) throws {
        var rng = SyntheticRandom(seed: 1)
        let setup = try SyntheticCamera().draw(&rng)
        let folder = try scratchFolder("kitti-bad")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let label = folder + "/l.txt", calib = folder + "/c.txt"
        try Data(text.utf8).write(to: URL(fileURLWithPath: label))
        try Data(KITTIObjectFormat.calibText(setup).utf8).write(to: URL(fileURLWithPath: calib))
        #expect(throws: DriveError.unreadable(path: label, reason: reason)) {
            _ = try KITTIObjectFormat.readLabels(label: label, calib: calib)
        }
        try Data("P2: 1 2 3\n".utf8).write(to: URL(fileURLWithPath: calib))
        #expect(throws: DriveError.unreadable(path: calib, reason: "P2 has 3 numbers, not 12")) {
            _ = try KITTIObjectFormat.readLabels(label: label, calib: calib)
        }
        let noVelodyne = KITTIObjectFormat.calibText(setup).split(separator: "\n").filter { !$0.hasPrefix("Tr_velo_to_cam") }
        try Data(noVelodyne.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: calib))
        #expect(throws: DriveError.unreadable(path: calib, reason: "no Tr_velo_to_cam line (mount.json says vehicle_frame velodyne)")) {
            _ = try KITTIObjectFormat.readLabels(label: label, calib: calib)
        }
    }
}

@Suite struct SyntheticDriveRecorderTests {
    /// A short recorded drive reads back as a drive directory: its gyro gives the true yaw rate
    /// (within noise and bias), its GPS the true speed, and labels keep vehicle ids.
    @Test func recordedDriveReadsBackWithItsMotion() throws {
        let folder = try scratchFolder("drive")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let drive = SyntheticDrive(seed: 12, duration: 4)
        let setup = CameraSetup(
            intrinsics: try CameraIntrinsics(fx: 180, fy: 180, cx: 96, cy: 60, width: 192, height: 120),
            pose: MountPose(pitchDegrees: -2.5, rollDegrees: 1, yawDegrees: -1.2, height: 1.3, forwardOfOrigin: 1.6))
        var recorder = SyntheticDriveRecorder(dataset: SyntheticDataset(path: folder))
        recorder.writesKITTI = true
        try recorder.record(drive, camera: setup, frames: 12, fps: 10)
        let directory = try DriveDirectory(path: folder)
        #expect(directory.frames.count == 12 && directory.skipped.isEmpty)
        #expect(directory.frames[3].timestamp == 0.3 && directory.frames[3].intrinsics == setup.intrinsics)
        for i in 1..<12 {
            let a = directory.frames[i - 1].timestamp, b = directory.frames[i].timestamp
            let delta = directory.egoDelta(from: a, to: b)
            let truth = drive.ego(at: b)
            #expect(delta.valid)
            // Ten gyro samples of 0.003 rad/s noise and a bias of at most 0.003 rad/s per axis.
            #expect(abs(delta.dyaw / delta.dt - truth.yawRate) < 0.01)
            #expect(abs(hypot(delta.dx, delta.dy) / delta.dt - truth.speed) < 0.5)
        }
        let dataset = SyntheticDataset(path: folder)
        let ids = try (0..<12).map { i in
            let data = try Data(contentsOf: URL(fileURLWithPath: dataset.file("labels", i, "json")))
            let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            return Set(try #require(root["vehicles"] as? [[String: Any]]).compactMap { $0["id"] as? Int })
        }
        #expect(!ids[0].isEmpty && !ids[0].intersection(ids[11]).isEmpty)
        #expect(try CalibrationFile.load(path: folder + "/calibration.json") == setup)
        // The KITTI copy reads back as the same truth.
        let (_, _, truth) = try dataset.read(index: 5)
        let kitti = try KITTIObjectFormat.readLabels(label: dataset.file("label_2", 5, "txt"), calib: dataset.file("calib", 5, "txt"))
        #expect(truth.vehicles.count == kitti.vehicles.count && truth.dontCare.count == kitti.dontCare.count)
        for (a, b) in zip(truth.vehicles + truth.dontCare, kitti.vehicles + kitti.dontCare) {
            #expect(abs(a.box.x - b.box.x) < 1e-5 && abs(a.box.y - b.box.y) < 1e-5)
        }
    }

    @Test func sameSeedRecordsIdenticalBytes() throws {
        let setup = CameraSetup(
            intrinsics: try CameraIntrinsics(fx: 100, fy: 100, cx: 48, cy: 32, width: 96, height: 64),
            pose: MountPose(pitchDegrees: -1, height: 1.2, forwardOfOrigin: 1.5))
        var outputs: [[Data]] = []
        for _ in 0..<2 {
            let folder = try scratchFolder("drive-bytes")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            try SyntheticDriveRecorder(dataset: SyntheticDataset(path: folder)).record(SyntheticDrive(seed: 2, duration: 1), camera: setup, frames: 3, fps: 10)
            outputs.append(
                try ["images/000002.png", "labels/000002.json", "motion.csv", "location.csv", "truth.json"].map {
                    try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\($0)"))
                })
        }
        #expect(outputs[0] == outputs[1])
    }
}
