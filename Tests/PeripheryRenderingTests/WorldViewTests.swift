import Foundation
import Testing

@testable import PeripheryCore
@testable import PeripheryGeometry
@testable import PeripheryRendering

/// The world view: virtual camera, framing solver, profiles and what lands where.
struct WorldViewTests {
    @Test func cameraGeometry() {
        let camera = WorldCamera(width: 800, height: 600, tilt: 20 * .pi / 180, aim: 20, distance: 100)
        #expect(abs(camera.focal - 600 / (2 * tan(13 * Double.pi / 180))) < 1e-9)
        // The aim point (aim, 0, 0.9) is at the centre of the view, `distance` deep.
        let centre = camera.project(SIMD3(20, 0, 0.9))
        #expect(centre.map { abs($0.x - 400) < 1e-9 && abs($0.y - 300) < 1e-9 } == true)
        #expect(abs(camera.depth(SIMD3(20, 0, 0.9)) - 100) < 1e-9)
        // Left is left on screen; up is up.
        let left = camera.project(SIMD3(20, 2, 0.9)), up = camera.project(SIMD3(20, 0, 3))
        #expect((left?.x ?? 1000) < 400 && (up?.y ?? 1000) < 300)
        // Points behind the camera are not projected.
        #expect(camera.project(SIMD3(-200, 0, 0)) == nil)
    }

    @Test(arguments: [(900, 600), (1000, 800), (640, 360), (1200, 500), (400, 700)])
    func framingKeepsPatchInsideMargins(width: Int, height: Int) {
        for tiltDegrees in [16.0, 20.0, 30.0, 45.0] {
            let view = WorldView(networkFocal: 565.44, tiltDegrees: tiltDegrees)
            let camera = view.camera(width: width, height: height)
            #expect(camera.aim >= 6 && camera.aim <= 24 && camera.distance >= 12 && camera.distance <= 520)
            let bounds = WorldCamera.framingBounds(width: width, height: height)
            for point in WorldCamera.framingPatch(horizontalFieldOfView: view.horizontalFieldOfView) {
                let p = camera.project(point)
                #expect(p != nil)
                guard let p else { continue }
                #expect(p.x >= bounds.lo.x - 1e-9 && p.x <= bounds.hi.x + 1e-9, "x \(p.x) for \(point)")
                #expect(p.y >= bounds.lo.y - 1e-9 && p.y <= bounds.hi.y + 1e-9, "y \(p.y) for \(point)")
            }
            // Nearly tight: 0.1 m closer no longer fits at this aim (unless already at the 12 m floor).
            if camera.distance > 12.1 {
                var closer = camera
                closer.distance -= 0.1
                let patch = WorldCamera.framingPatch(horizontalFieldOfView: view.horizontalFieldOfView)
                let fits = patch.allSatisfy { point in
                    guard let p = closer.project(point) else { return false }
                    return p.x >= bounds.lo.x && p.x <= bounds.hi.x && p.y >= bounds.lo.y && p.y <= bounds.hi.y
                }
                #expect(!fits)
            }
        }
    }

    @Test func framingPatchAndBounds() {
        let patch = WorldCamera.framingPatch(horizontalFieldOfView: 0.8)
        #expect(patch.count == 20)
        #expect(patch[0] == SIMD3(-2.6, 1.1, 0) && patch[1] == SIMD3(-2.6, -1.1, 0))
        #expect(abs(patch[2].x - 42 * cos(0.4)) < 1e-12 && abs(patch[2].y + 42 * sin(0.4)) < 1e-12 && patch[3].z == 2.6)
        let bounds = WorldCamera.framingBounds(width: 1000, height: 200)
        #expect(bounds.lo == SIMD2(8, 30) && bounds.hi == SIMD2(992, 192))
        #expect(WorldCamera.framingBounds(width: 1000, height: 800).lo == SIMD2(10, 32))
    }

    @Test func framingFallsBackWhenImpossible() {
        // A 4 px tall view cannot hold the patch below a 22 px top margin.
        let camera = WorldCamera.framed(width: 100, height: 4, tilt: 20 * .pi / 180, horizontalFieldOfView: 0.85)
        #expect(camera.aim == 21 && camera.distance == 120)
    }

    @Test func tiltIsClamped() {
        #expect(abs(WorldView(tiltDegrees: 5).tilt - 16 * .pi / 180) < 1e-12)
        #expect(abs(WorldView(tiltDegrees: 90).tilt - 45 * .pi / 180) < 1e-12)
        #expect(abs(WorldView().tilt - 20 * .pi / 180) < 1e-12)
        #expect(abs(WorldView(networkFocal: 565.6).horizontalFieldOfView - 2 * atan(512 / 1131.2)) < 1e-12)
    }

    @Test func vehicleDrawsStateColourNearItsCentre() {
        let view = WorldView(networkFocal: 565.44)
        let width = 900, height = 600
        let camera = view.camera(width: width, height: height)
        let empty = view.render([], width: width, height: height)
        for state in [TrackedVehicle.MotionState.moving, .parked, .unknown] {
            let car = CameraOverlayTests.vehicle(x: 20, y: 0, state: state)
            let drawn = view.render([car], width: width, height: height)
            guard let centre = camera.project(SIMD3(20, 0, 0.63)) else {
                Issue.record("centre not projected")
                return
            }
            // The pixels around the projected centre change, towards the state colour.
            let target = SIMD3<Double>(Palette.colour(for: state).rgb8)
            var closer = 0, changed = 0
            for dy in -6...6 {
                for dx in -12...12 {
                    let x = Int(centre.x) + dx, y = Int(centre.y) + dy
                    let before = SIMD3<Double>(empty[x, y]), after = SIMD3<Double>(drawn[x, y])
                    if before != after { changed += 1 }
                    let newGap = ((after - target) * (after - target)).sum()
                    if newGap < ((before - target) * (before - target)).sum() { closer += 1 }
                }
            }
            #expect(changed > 100 && closer > 100, "\(state): \(changed) changed, \(closer) closer")
            // The outline, within 60 px of the centre, has pixels in (nearly) the exact state colour.
            var exact = 0
            for y in (Int(centre.y) - 60)...(Int(centre.y) + 60) {
                for x in (Int(centre.x) - 60)...(Int(centre.x) + 60) {
                    let d = SIMD3<Double>(drawn[x, y]) - target
                    if (d * d).sum() < 12 * 12 { exact += 1 }
                }
            }
            #expect(exact > 20, "\(state): \(exact)")
        }
    }

    @Test func sceneDrawsEveryLayer() throws {
        let view = WorldView()
        let width = 800, height = 500
        let camera = view.camera(width: width, height: height)
        let image = view.render([], egoSpeed: 10, width: width, height: height)
        // The ground quad reaches 4 km ahead, past the top of the view at this tilt.
        #expect(image[width / 2, 3] == Palette.panel2.rgb8)
        let roadSide = try #require(camera.project(SIMD3(5, 12, 0)))
        #expect(image[Int(roadSide.x), Int(roadSide.y)] == Palette.panel2.rgb8)
        // Inside the field-of-view wedge the road is tinted towards the radar colour.
        let wedge = try #require(camera.project(SIMD3(35, 0, 0)))
        let tinted = image[Int(wedge.x), Int(wedge.y) - 3]
        #expect(tinted.z > Palette.panel2.rgb8.z && tinted != Palette.panel2.rgb8)
        // The ego label is drawn near the arrow tip ("ego 36 km/h").
        let tip = try #require(camera.project(SIMD3(10, 0, 0.1)))
        let around = (Int(tip.y) - 30...Int(tip.y)).flatMap { y in
            (Int(tip.x) - 40...Int(tip.x) + 40).map { image[$0, y] }
        }
        #expect(around.contains(Palette.ink2.rgb8))
    }

    @Test func profiles() {
        #expect(VehicleProfile.forVehicle(label: 1, length: 4, width: 2) == .truck)
        #expect(VehicleProfile.forVehicle(label: 2, length: 2, width: 0.8) == .bike)
        #expect(VehicleProfile.forVehicle(label: 3, length: 0.6, width: 0.6) == .pedestrian)
        #expect(VehicleProfile.forVehicle(label: 0, length: 5.3, width: 1.9) == .suv)
        #expect(VehicleProfile.forVehicle(label: 0, length: 4.5, width: 2.2) == .suv)
        #expect(VehicleProfile.forVehicle(label: 0, length: 4.5, width: 1.9) == .car)
        for profile in [VehicleProfile.car, .suv, .truck, .bike, .pedestrian] {
            let all = profile.body + profile.cabin + profile.glass.flatMap { $0 }
            #expect(all.allSatisfy { abs($0.x) <= 0.5 && abs($0.y) <= 0.5 }, "\(profile.name)")
            #expect(profile.body.count >= 3 && profile.cabin.count >= 3)
            #expect(profile.bodyZ < profile.roofZ && profile.roofZ < 1)
        }
        #expect(VehicleProfile.car.hasSeam && VehicleProfile.truck.hasSeam)
        #expect(!VehicleProfile.bike.hasSeam && !VehicleProfile.pedestrian.hasSeam)
        #expect(VehicleProfile.truck.height(for: .nan) == 3 && VehicleProfile.car.height(for: 0.1) == 1.5)
        #expect(VehicleProfile.car.height(for: 1.7) == 1.7)
    }
}
