import Foundation
import PeripheryTestSupport
import Testing

@testable import PeripheryCore
@testable import PeripheryGeometry
@testable import PeripheryRendering

/// The camera overlay: box edges where `sourcePoint` puts them, the display filter, guides, labels.
struct CameraOverlayTests {
    /// A track with the fields the drawing reads.
    static func vehicle(
        id: Int = 1, x: Double, y: Double, z: Double = 0.75, length: Double = 4.5, width: Double = 1.9,
        height: Double = 1.5, yaw: Double = 0, label: Int = 0, observed: Bool = true,
        state: TrackedVehicle.MotionState = .moving, velocity: SIMD2<Double>? = nil, trail: [SIMD3<Double>] = []
    ) -> TrackedVehicle {
        TrackedVehicle(
            id: id, box: VehicleBox(x: x, y: y, z: z, length: length, width: width, height: height, yaw: yaw), modelYaw: yaw,
            headingSource: .model, label: label, score: 0.9, hits: 5, observed: observed, ageSeconds: 1, state: state,
            velocity: velocity, trail: trail)
    }

    static let black = SIMD3<UInt8>(0, 0, 0)

    /// Whether a pixel is within `radius` of one that is not black.
    static func inkNear(_ image: RGBImage, _ p: SIMD2<Double>, radius: Int = 1) -> Bool {
        let cx = Int(p.x.rounded(.down)), cy = Int(p.y.rounded(.down))
        for y in (cy - radius)...(cy + radius) {
            for x in (cx - radius)...(cx + radius) where x >= 0 && y >= 0 && x < image.width && y < image.height {
                if image[x, y] != black { return true }
            }
        }
        return false
    }

    @Test func boxEdgesLandWhereSourcePointSays() throws {
        let calibration = try goldenCalibration()
        let overlay = CameraOverlay(calibration: calibration, showsGuides: false)
        let car = Self.vehicle(id: 7, x: 15, y: -1.2, yaw: 0.3, state: .moving)
        let frame = RGBImage(width: 1164, height: 874)
        let drawn = overlay.render(on: frame, vehicles: [car])
        let corners = CameraOverlay.boxCorners(car)
        let projected = try corners.map { try #require(calibration.sourcePoint($0)) }
        let colour = Palette.moving.rgb8
        // Each corner pixel is drawn fully in the state colour (a 2 px solid line ends round there).
        for p in projected {
            #expect(drawn[Int(p.x.rounded(.down)), Int(p.y.rounded(.down))] == colour, "corner \(p)")
        }
        // Midpoints of the bottom-ring, top-ring and vertical edges are drawn too.
        for (a, b) in [(0, 1), (1, 2), (4, 5), (6, 7), (0, 4), (2, 6)] {
            let m = (projected[a] + projected[b]) / 2
            #expect(drawn[Int(m.x.rounded(.down)), Int(m.y.rounded(.down))] == colour, "edge \(a)-\(b)")
        }
        // The middle of the front face and pixels far from every edge are untouched.
        let faceCentre = (projected[0] + projected[1] + projected[4] + projected[5]) / 4
        #expect(drawn[Int(faceCentre.x), Int(faceCentre.y)] == Self.black)
        #expect(drawn[100, 100] == Self.black && drawn[1100, 800] == Self.black && drawn[582, 300] == Self.black)
        // Only the state colour, its antialiased blends and the label are drawn.
        let minY = projected.map(\.y).min() ?? 0
        let outside = (0..<874).filter { Double($0) < minY - 30 || Double($0) > (projected.map(\.y).max() ?? 0) + 3 }
        #expect(outside.allSatisfy { y in (0..<1164).allSatisfy { drawn[$0, y] == Self.black } })
    }

    @Test func labelSitsAboveHighestTopCorner() throws {
        let calibration = try goldenCalibration()
        let overlay = CameraOverlay(calibration: calibration, showsGuides: false)
        let car = Self.vehicle(id: 4, x: 12, y: 0)
        let drawn = overlay.render(on: RGBImage(width: 1164, height: 874), vehicles: [car])
        let top = try CameraOverlay.boxCorners(car)[4...].map { try #require(calibration.sourcePoint($0)) }
            .min { $0.y < $1.y }
        let highest = try #require(top)
        // Scale 2 at 874 px: the text occupies the 14 rows ending 4 px above the corner, centred on it.
        let bottom = Int(highest.y.rounded()) - 5
        let rows = (bottom - 13)...bottom
        let columns = (Int(highest.x) - 20)...(Int(highest.x) + 20)
        let lit = rows.flatMap { y in columns.map { x in drawn[x, y] } }.filter { $0 == Palette.moving.rgb8 }
        #expect(lit.count > 30)
        // Nothing between the text (and its 1 px halo) and the box.
        #expect(columns.allSatisfy { drawn[$0, bottom + 2] == Self.black })
    }

    @Test func coastingBoxIsDashedAndThinner() throws {
        let calibration = try goldenCalibration()
        let overlay = CameraOverlay(calibration: calibration, showsGuides: false)
        let blank = RGBImage(width: 1164, height: 874)
        let observed = overlay.render(on: blank, vehicles: [Self.vehicle(x: 10, y: 0, state: .parked)])
        let coasting = overlay.render(on: blank, vehicles: [Self.vehicle(x: 10, y: 0, observed: false, state: .parked)])
        // Ink ≈ width × duty: 1.5 × 5/9 against 2 (plus the same antialiased fringes and corners).
        func ink(_ image: RGBImage) -> Double { image.pixels.reduce(0) { $0 + Double($1) } }
        #expect(ink(coasting) < 0.55 * ink(observed))
        #expect(ink(coasting) > 0.3 * ink(observed))
        // Along the bottom front edge, the coasting line has gaps.
        let car = Self.vehicle(x: 10, y: 0)
        let a = try #require(calibration.sourcePoint(CameraOverlay.boxCorners(car)[0]))
        let b = try #require(calibration.sourcePoint(CameraOverlay.boxCorners(car)[1]))
        let samples = (1..<40).map { i -> SIMD3<UInt8> in
            let p = a + (b - a) * (Double(i) / 40)
            return coasting[Int(p.x), Int(p.y)]
        }
        #expect(samples.contains(Self.black) && samples.contains { $0 != Self.black })
    }

    @Test func displayFilter() throws {
        let overlay = CameraOverlay(calibration: try goldenCalibration())
        // Half field of view atan(512 / (2 · 565.44)) ≈ 24.36°.
        #expect(abs(overlay.halfFieldOfView * 180 / .pi - 24.36) < 0.05)
        #expect(overlay.isDisplayed(Self.vehicle(x: 20, y: 0)))
        #expect(!overlay.isDisplayed(Self.vehicle(x: -10, y: 0)))
        #expect(!overlay.isDisplayed(Self.vehicle(x: 45, y: 0)))
        #expect(overlay.isDisplayed(Self.vehicle(x: 41, y: 0))) // rear corners at 38.75 m
        #expect(!overlay.isDisplayed(Self.vehicle(x: 5, y: 8)))
        // Moving the camera 1 m right (left = y + 1) turns the field of view towards the right.
        let leftSide = Self.vehicle(x: 10, y: 4.2, length: 0.2, width: 0.2) // 22.8° → 27.5°
        let rightSide = Self.vehicle(x: 10, y: -5, length: 0.2, width: 0.2) // −26.6° → −21.8°
        var shifted = overlay
        shifted.cameraRight = 1
        #expect(overlay.isDisplayed(leftSide) && !shifted.isDisplayed(leftSide))
        #expect(!overlay.isDisplayed(rightSide) && shifted.isDisplayed(rightSide))
        // A filtered-out vehicle draws nothing.
        var quiet = overlay
        quiet.showsGuides = false
        let drawn = quiet.render(on: RGBImage(width: 1164, height: 874), vehicles: [Self.vehicle(x: 5, y: 8)])
        #expect(drawn.pixels.allSatisfy { $0 == 0 })
    }

    @Test func boxCornersFollowYaw() {
        let box = Self.vehicle(x: 10, y: 2, z: 1, length: 4, width: 2, height: 2, yaw: .pi / 2)
        let corners = CameraOverlay.boxCorners(box)
        // Yaw 90°: the front points left (+y); front-left corner is (10 − 1, 2 + 2).
        #expect(abs(corners[0].x - 9) < 1e-12 && abs(corners[0].y - 4) < 1e-12 && corners[0].z == 0)
        #expect(abs(corners[6].x - 11) < 1e-12 && abs(corners[6].y - 0) < 1e-12 && corners[6].z == 2)
    }

    @Test func nearBoxIsClippedNotDropped() throws {
        // A box straddling the camera plane still draws its visible part and nothing wild.
        let overlay = CameraOverlay(calibration: try goldenCalibration(), showsGuides: false)
        let near = Self.vehicle(x: 2.5, y: 0, length: 4)
        let drawn = overlay.render(on: RGBImage(width: 1164, height: 874), vehicles: [near])
        #expect(drawn.pixels.contains { $0 != 0 })
    }

    @Test func guidesFollowGroundGuides() throws {
        let calibration = try goldenCalibration()
        let drawn = CameraOverlay(calibration: calibration).render(on: RGBImage(width: 1164, height: 874), vehicles: [])
        let guides = calibration.groundGuides()
        for rung in guides.rungs {
            // Across the rung, the red ink adds up to width 1.25 × opacity 0.55 × 255 ≈ 175; the
            // green to 0.8 of that; no blue.
            let m = (rung.segment.start + rung.segment.end) / 2
            let column = (Int(m.y) - 4)...(Int(m.y) + 4)
            let red = column.reduce(0.0) { $0 + Double(drawn[Int(m.x), $1].x) }
            let green = column.reduce(0.0) { $0 + Double(drawn[Int(m.x), $1].y) }
            #expect(abs(red - 175) < 15 && abs(green - 0.8 * red) < 6, "rung \(rung.range): \(red), \(green)")
            #expect(column.allSatisfy { drawn[Int(m.x), $0].z == 0 })
        }
        let horizon = try #require(guides.horizon)
        // The horizon is level here: along its row, cyan dashes [8, 5] cover about 8/13 of the width.
        let row = Int(((horizon.start.y + horizon.end.y) / 2).rounded(.down))
        let hits = (0..<1164).filter { drawn[$0, row].z > 100 && drawn[$0, row].x < 60 }.count
        #expect(hits > 600 && hits < 900)
        // Road between the rungs and the sky above the horizon are untouched.
        #expect(drawn[582, 700] == Self.black && drawn[582, 470] == Self.black && drawn[300, 200] == Self.black)
    }

    @Test func viewRenderUsesAspectFill() throws {
        let calibration = try goldenCalibration()
        let overlay = CameraOverlay(calibration: calibration, showsGuides: false)
        var frame = RGBImage(width: 1164, height: 874, fill: SIMD3(40, 40, 40))
        frame[582, 437] = SIMD3(40, 40, 40)
        let car = Self.vehicle(x: 15, y: 0)
        let view = overlay.render(frame: frame, vehicles: [car], width: 600, height: 300)
        let mapping = ViewMapping.aspectFill(
            sourceWidth: 1164, sourceHeight: 874, view: PixelRect(x: 0, y: 0, width: 600, height: 300))
        let corner = mapping.view(try #require(calibration.sourcePoint(CameraOverlay.boxCorners(car)[5])))
        #expect(view[Int(corner.x), Int(corner.y)] == Palette.moving.rgb8)
        #expect(view[10, 10] == SIMD3(40, 40, 40))
    }
}
