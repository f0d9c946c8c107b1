import Foundation
import Testing

@testable import PeripheryCore
@testable import PeripheryGeometry
@testable import PeripherySynthetic

/// The sample camera: 640 × 400, f = 480, pitch −2°, 1.3 m high, 1.6 m forward.
private func sampleCamera() throws -> (CameraIntrinsics, MountPose) {
    (
        try CameraIntrinsics(fx: 480, fy: 480, cx: 320, cy: 200, width: 640, height: 400),
        MountPose(pitchDegrees: -2, height: 1.3, forwardOfOrigin: 1.6)
    )
}

/// A small camera for fast debug-build tests: 320 × 200, f = 240.
private func smallCamera() throws -> (CameraIntrinsics, MountPose) {
    (
        try CameraIntrinsics(fx: 240, fy: 240, cx: 160, cy: 100, width: 320, height: 200),
        MountPose(pitchDegrees: -2, height: 1.3, forwardOfOrigin: 1.6)
    )
}

private let plainRoad = SyntheticRoad(laneCount: 2, oppositeLanes: 1, laneWidth: 3.5, rightEdge: -1.75, shoulderWidth: 1)

@Suite struct SyntheticSceneTests {
    @Test func sameSeedGivesIdenticalFramesAndDifferentSeedsDiffer() throws {
        let (k, pose) = try smallCamera()
        let sampler = SceneSampler(), renderer = SceneRenderer()
        let a = renderer.render(sampler.scene(seed: 42), intrinsics: k, pose: pose)
        let b = renderer.render(sampler.scene(seed: 42), intrinsics: k, pose: pose)
        #expect(a == b)
        #expect(sampler.scene(seed: 42) == sampler.scene(seed: 42))
        let c = renderer.render(sampler.scene(seed: 43), intrinsics: k, pose: pose)
        #expect(a.image.pixels != c.image.pixels)
        #expect(sampler.scene(seed: 42) != sampler.scene(seed: 43))
    }

    /// Blur smooths the picture (less total variation), keeps its mean and leaves the labels alone.
    @Test(arguments: [0.8, 2.0])
    func blurSmoothsThePictureOnly(sigma: Double) throws {
        let (k, pose) = try smallCamera()
        var options = SceneRenderer.Options()
        let sharp = SceneRenderer(options: options).render(SceneSampler().scene(seed: 9), intrinsics: k, pose: pose)
        options.blurSigma = sigma
        let blurred = SceneRenderer(options: options).render(SceneSampler().scene(seed: 9), intrinsics: k, pose: pose)
        func variation(_ p: [UInt8]) -> Int { (3..<p.count).reduce(0) { $0 + abs(Int(p[$1]) - Int(p[$1 - 3])) } }
        #expect(variation(blurred.image.pixels) < variation(sharp.image.pixels) * 3 / 4)
        let mean = { (p: [UInt8]) in Double(p.reduce(0) { $0 + Int($1) }) / Double(p.count) }
        #expect(abs(mean(blurred.image.pixels) - mean(sharp.image.pixels)) < 0.5)
        #expect(blurred.labels == sharp.labels)
    }

    @Test func sampledVehiclesNeverOverlapAndStayInRange() {
        let sampler = SceneSampler()
        var total = 0
        for seed in 0..<200 as Range<UInt64> {
            let vehicles = sampler.scene(seed: seed).vehicles
            total += vehicles.count
            for (i, a) in vehicles.enumerated() {
                #expect(sampler.forwardRange.contains(a.x) && abs(a.y) <= sampler.lateralLimit)
                #expect(!Footprint.overlap(a.footprint, SceneSampler.egoKeepOut, margin: 0))
                for b in vehicles[(i + 1)...] {
                    #expect(!Footprint.overlap(a.footprint, b.footprint, margin: 0), "seed \(seed)")
                }
                let s = a.size
                switch a.vehicleClass {
                case .lightVehicle: #expect((3.8...5.4).contains(s.x) && (1.7...2.1).contains(s.y) && (1.4...2.0).contains(s.z))
                case .largeVehicle: #expect((7...14).contains(s.x) && (2.4...2.6).contains(s.y) && (2.8...3.8).contains(s.z))
                case .twoWheeler: #expect((1.8...2.3).contains(s.x) && (0.6...0.9).contains(s.y) && (1.4...1.8).contains(s.z))
                case .pedestrian: Issue.record("no pedestrians are sampled")
                }
                #expect(a.groundTruth.box.z == s.z / 2)
            }
        }
        #expect(total > 400)
    }

    /// Near two-wheelers come first, 5.5–10.5 m ahead, and the usual traffic still follows them.
    @Test(arguments: [1, 3])
    func nearTwoWheelersArePlacedAheadOfTheOtherTraffic(count: Int) {
        let sampler = SceneSampler(nearTwoWheelers: count)
        var near = 0, others = 0
        for seed in 0..<100 as Range<UInt64> {
            let vehicles = sampler.scene(seed: seed).vehicles
            let placed = vehicles.prefix { $0.vehicleClass == .twoWheeler && SceneSampler.nearRange.contains($0.x) }
            near += min(placed.count, count)
            others += vehicles.count - min(placed.count, count)
            for (i, a) in vehicles.enumerated() {
                #expect(abs(a.y) <= sampler.lateralLimit && !Footprint.overlap(a.footprint, SceneSampler.egoKeepOut, margin: 0))
                for b in vehicles[(i + 1)...] { #expect(!Footprint.overlap(a.footprint, b.footprint, margin: 0), "seed \(seed)") }
            }
        }
        #expect(near >= 90 * count, "near two-wheelers placed: \(near) of \(100 * count)")
        #expect(others > 250)
        #expect(SceneSampler(nearTwoWheelers: 0).scene(seed: 5) == SceneSampler().scene(seed: 5))
    }

    @Test func renderedPixelsAgreeWithProjectedLabels() throws {
        let (k, pose) = try smallCamera()
        let calibration = CameraCalibration(intrinsics: k, pose: pose)
        let renderer = SceneRenderer()
        var checkedCentres = 0
        for seed in 0..<12 as Range<UInt64> {
            let scene = SceneSampler().scene(seed: seed)
            let frame = renderer.render(scene, intrinsics: k, pose: pose)
            #expect(frame.labels.count == scene.vehicles.count)
            for label in frame.labels {
                #expect(label.visiblePixels <= label.unoccludedPixels)
                #expect((0...1).contains(label.occlusion) && (0...1).contains(label.truncation))
                #expect(label.isVisible == (label.visiblePixels >= 40))
                #expect(label.visiblePixels == frame.vehicleIDs.filter { $0 == Int32(label.vehicleIndex) }.count)
            }
            for label in frame.visibleLabels {
                let vehicle = scene.vehicles[label.vehicleIndex]
                let projected = vehicle.bounds.corners.compactMap(calibration.sourcePoint)
                guard projected.count == 8 else { continue }
                let xs = projected.map(\.x), ys = projected.map(\.y)
                let minX = try #require(xs.min()) - 1, maxX = try #require(xs.max()) + 1
                let minY = try #require(ys.min()) - 1, maxY = try #require(ys.max()) + 1
                for row in 0..<k.height {
                    for column in 0..<k.width where frame.vehicleID(x: column, y: row) == Int32(label.vehicleIndex) {
                        let u = Double(column) + 0.5, v = Double(row) + 0.5
                        #expect(u >= minX && u <= maxX && v >= minY && v <= maxY, "seed \(seed) vehicle \(label.vehicleIndex)")
                    }
                }
                if label.occlusion == 0, label.truncation == 0 {
                    let g = label.box
                    let centre = try #require(calibration.sourcePoint(SIMD3(g.box.x, g.box.y, g.box.z)))
                    let column = Int(centre.x.rounded(.down)), row = Int(centre.y.rounded(.down))
                    // The centre ray passes through the box; it must hit one of the vehicle's parts
                    // for light and large vehicles, whose bodies fill their box around the centre.
                    if g.label != VehicleClass.twoWheeler.rawValue {
                        #expect(frame.vehicleID(x: column, y: row) == Int32(label.vehicleIndex), "seed \(seed)")
                        checkedCentres += 1
                    }
                }
            }
        }
        #expect(checkedCentres > 3)
    }

    @Test func vehicleHiddenBehindTruckIsFullyOccluded() throws {
        let (k, pose) = try smallCamera()
        let truck = SyntheticVehicle(
            vehicleClass: .largeVehicle, x: 12, y: 0, yaw: 0, size: SIMD3(10, 2.5, 3.5), paint: SIMD3(0.8, 0.8, 0.8),
            variant: 0.9)
        let car = SyntheticVehicle(
            vehicleClass: .lightVehicle, x: 25, y: 0, yaw: 0, size: SIMD3(4.5, 1.8, 1.5), paint: SIMD3(0.7, 0.1, 0.1))
        let scene = SyntheticScene(seed: 1, road: plainRoad, vehicles: [truck, car])
        let frame = SceneRenderer(options: .clean).render(scene, intrinsics: k, pose: pose)
        let truckLabel = frame.labels[0], carLabel = frame.labels[1]
        #expect(truckLabel.isVisible && truckLabel.occlusion < 0.01)
        #expect(carLabel.visiblePixels == 0 && !carLabel.isVisible)
        #expect(carLabel.unoccludedPixels > 0 && carLabel.occlusion > 0.999)
        #expect(carLabel.box == GroundTruthBox(label: 0, box: VehicleBox(x: 25, y: 0, z: 0.75, length: 4.5, width: 1.8, height: 1.5, yaw: 0)))
        // Alone, the car is fully visible.
        let alone = SceneRenderer(options: .clean).render(
            SyntheticScene(seed: 1, road: plainRoad, vehicles: [car]), intrinsics: k, pose: pose)
        #expect(alone.labels[0].visiblePixels == carLabel.unoccludedPixels)
        #expect(alone.labels[0].occlusion == 0 && alone.labels[0].truncation == 0)
    }

    /// A wide camera's crop is its central part: a car ahead is in view, a car beside the lane that
    /// the frame shows but the crop does not is visible yet not in view, and `viewPixels` counts
    /// exactly the vehicle's pixels inside the crop.
    @Test func visibilityInTheDetectorsViewCountsOnlyCropPixels() throws {
        // f = 240 at 320 px: the crop is 512 · 240 / 565.6 ≈ 217 px wide, the centre of the frame.
        let (k, pose) = try smallCamera()
        let crop = FocalMatchedCrop(intrinsics: k)
        #expect(crop.width < k.width)
        let ahead = SyntheticVehicle(
            vehicleClass: .lightVehicle, x: 15, y: 0, yaw: 0, size: SIMD3(4.5, 1.8, 1.5), paint: SIMD3(0.7, 0.1, 0.1))
        let beside = SyntheticVehicle(
            vehicleClass: .lightVehicle, x: 6, y: 4.5, yaw: 0, size: SIMD3(4.5, 1.8, 1.5), paint: SIMD3(0.1, 0.1, 0.7))
        let frame = SceneRenderer(options: .clean).render(
            SyntheticScene(seed: 3, road: plainRoad, vehicles: [ahead, beside]), intrinsics: k, pose: pose)
        for label in frame.labels {
            var inCrop = 0
            for row in crop.y..<crop.y + crop.height {
                for column in crop.x..<crop.x + crop.width where frame.vehicleID(x: column, y: row) == Int32(label.vehicleIndex) {
                    inCrop += 1
                }
            }
            #expect(label.viewPixels == inCrop)
            #expect(label.isInView == (inCrop >= 40 && label.viewTruncation <= 0.5))
        }
        #expect(frame.labels[0].isVisible && frame.labels[0].isInView && frame.labels[0].viewTruncation == 0)
        #expect(frame.labels[1].isVisible && !frame.labels[1].isInView && frame.labels[1].viewTruncation > 0.5)
    }

    @Test func laneLinesAppearWhereTheyProject() throws {
        let (k, pose) = try sampleCamera()
        let calibration = CameraCalibration(intrinsics: k, pose: pose)
        let road = SyntheticRoad(
            laneCount: 2, oppositeLanes: 1, laneWidth: 3.6, rightEdge: -1.8, shoulderWidth: 1, edgeLineWidth: 0.25,
            dashLength: 4, dashPeriod: 10, dashPhase: 0)
        let scene = SyntheticScene(seed: 3, road: road)
        let frame = SceneRenderer(options: .clean).render(scene, intrinsics: k, pose: pose)
        func brightness(_ p: SIMD2<Double>) -> Int {
            let c = frame.image[Int(p.x.rounded(.down)), Int(p.y.rounded(.down))]
            return Int(c.x) + Int(c.y) + Int(c.z)
        }
        for x in [12.0, 20.0] {
            // Right and left edge lines.
            for y in [road.rightEdge, road.leftEdge] {
                let on = try #require(calibration.sourcePoint(SIMD3(x, y, 0)))
                let off = try #require(calibration.sourcePoint(SIMD3(x, y + 0.6, 0)))
                #expect(on.x >= 0 && on.x < 640 && off.x >= 0 && off.x < 640)
                #expect(brightness(on) > 500, "line at x \(x) y \(y)")
                #expect(brightness(off) < 400)
            }
        }
        // The centre divider is solid (one lane each way); inside a dash period and outside.
        let centre = try #require(calibration.sourcePoint(SIMD3(12, 1.8, 0)))
        #expect(brightness(centre) > 500)
        #expect(road.surface(x: 12, y: 1.8) == .marking)
        let dashed = SyntheticRoad(
            laneCount: 3, oppositeLanes: 0, laneWidth: 3.6, rightEdge: -1.8, shoulderWidth: 1,
            dashLength: 4, dashPeriod: 10, dashPhase: 0)
        #expect(dashed.surface(x: 11, y: 1.8) == .marking)
        #expect(dashed.surface(x: 16, y: 1.8) == .asphalt)
        let dashedFrame = SceneRenderer(options: .clean).render(SyntheticScene(seed: 3, road: dashed), intrinsics: k, pose: pose)
        let inDash = try #require(calibration.sourcePoint(SIMD3(11.5, 1.8, 0)))
        let inGap = try #require(calibration.sourcePoint(SIMD3(17, 1.8, 0)))
        let a = dashedFrame.image[Int(inDash.x), Int(inDash.y)], b = dashedFrame.image[Int(inGap.x), Int(inGap.y)]
        #expect(Int(a.x) > 200 && Int(b.x) < 130)
    }
}
