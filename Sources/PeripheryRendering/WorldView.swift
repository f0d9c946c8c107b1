import Foundation
import PeripheryCore
import PeripheryGeometry

/// The 2.5D bird's-eye view of the tracked vehicles (visualization §10.2, the reference's
/// `drawBev()`): a virtual camera framed on the sensor's field of view, the road plane, range rings,
/// lane lines, the ego arrow, each vehicle's trail, layered body and label, and the ego car.
public struct WorldView: Sendable {
    /// Focal length of the network input, pixels; sets the drawn sensor field of view.
    public var networkFocal: Double
    /// Downward tilt of the virtual camera, degrees (clamped to `tiltRange` when drawn).
    public var tiltDegrees: Double
    /// Presentation-only shift of the camera to the right, metres (moves the field-of-view apex).
    public var cameraRight: Double

    /// Default tilt, degrees.
    public static let defaultTiltDegrees = 20.0
    /// Allowed tilt, degrees.
    static let tiltRange = 16.0...45.0
    /// Range rings, metres.
    static let ringRadii = [10.0, 20.0, 30.0, 40.0]
    /// Half the lane width, metres.
    static let laneHalfWidth = 1.85
    /// Ego speed below which no ego arrow is drawn, m/s.
    static let egoArrowMinimumSpeed = 0.3

    /// Creates a world view.
    public init(
        networkFocal: Double = Safety40.trainedFocal, tiltDegrees: Double = WorldView.defaultTiltDegrees,
        cameraRight: Double = 0
    ) {
        self.networkFocal = networkFocal
        self.tiltDegrees = tiltDegrees
        self.cameraRight = cameraRight
    }

    /// The network's horizontal field of view, `2 · atan(512 / (2 · focal))`, radians.
    public var horizontalFieldOfView: Double {
        2 * atan(Double(Safety40.inputWidth) / (2 * networkFocal))
    }

    /// The tilt in use, radians.
    public var tilt: Double {
        min(max(tiltDegrees, WorldView.tiltRange.lowerBound), WorldView.tiltRange.upperBound) * .pi / 180
    }

    /// The framed virtual camera for a view size.
    public func camera(width: Int, height: Int) -> WorldCamera {
        WorldCamera.framed(width: width, height: height, tilt: tilt, horizontalFieldOfView: horizontalFieldOfView)
    }

    /// Draws the view into a new `width × height` picture.
    ///
    /// - Parameters:
    ///   - vehicles: the tracks to draw, in the current ego frame.
    ///   - egoSpeed: ego speed over ground, m/s (arrow and label when above 0.3 m/s).
    ///   - width: picture width.
    ///   - height: picture height.
    public func render(_ vehicles: [TrackedVehicle], egoSpeed: Double = 0, width: Int, height: Int) -> RGBImage {
        render(vehicles, egoSpeed: egoSpeed, camera: camera(width: width, height: height))
    }

    /// Draws the view through a given virtual camera (its size is the picture's), bypassing the
    /// framing solver.
    public func render(_ vehicles: [TrackedVehicle], egoSpeed: Double = 0, camera: WorldCamera) -> RGBImage {
        let canvas = Canvas(width: camera.width, height: camera.height, background: Palette.ground)
        var painter = WorldPainter(camera: camera, canvas: canvas)
        drawScene(vehicles, egoSpeed: egoSpeed, painter: &painter)
        return painter.canvas.image
    }

    /// Font scale of the labels: 1 for views under 450 px on their short side, 2 up to 750, ….
    static func textScale(width: Int, height: Int) -> Int {
        max(1, Int((Double(min(width, height)) / 300).rounded()))
    }

    /// Paints the scene back to front: ground and sensor field, range rings and lanes, the ego's
    /// arrow, the vehicles, the ego car.
    func drawScene(_ vehicles: [TrackedVehicle], egoSpeed: Double, painter: inout WorldPainter) {
        let scale = WorldView.textScale(width: painter.camera.width, height: painter.camera.height)
        drawGround(&painter)
        drawGuides(&painter)
        drawEgoArrow(egoSpeed: egoSpeed, scale: scale, &painter)
        drawVehicles(vehicles, scale: scale, &painter)
        painter.body(
            .car, x: 0, y: 0, yaw: 0, length: 4.6, width: 1.9, height: 1.5, fill: Palette.parkedSoft,
            stroke: Palette.ink2, dashed: false)
    }

    /// The ground plane and the sensor's field of view out to 40 m.
    private func drawGround(_ painter: inout WorldPainter) {
        let ground: [SIMD3<Double>] = [
            SIMD3(-60, -2000, 0), SIMD3(4000, -2000, 0), SIMD3(4000, 2000, 0), SIMD3(-60, 2000, 0),
        ]
        painter.fill(ground, Palette.panel2)
        painter.stroke(ground, closed: true, Palette.line, .solid(1))
        let hfov = horizontalFieldOfView
        let apex = SIMD3(0, -cameraRight, 0.03)
        let arc = (0..<25).map { i -> SIMD3<Double> in
            let a = -hfov / 2 + hfov * Double(i) / 24
            return apex + SIMD3(40 * cos(a), 40 * sin(a), 0)
        }
        painter.fill([apex] + arc, Palette.radarSoft)
        painter.stroke([apex] + arc, closed: true, Palette.radar, .solid(1))
    }

    /// Range rings and the lane lines.
    private func drawGuides(_ painter: inout WorldPainter) {
        for r in WorldView.ringRadii {
            let ring = (0..<41).map { i -> SIMD3<Double> in
                let a = -1.25 + 2.5 * Double(i) / 40
                return SIMD3(r * cos(a), r * sin(a), 0.05)
            }
            painter.stroke(ring, Palette.ink3.opacity(0.55), .solid(1))
        }
        for y in [WorldView.laneHalfWidth, -WorldView.laneHalfWidth] {
            painter.stroke([SIMD3(0, y, 0.06), SIMD3(40, y, 0.06)], Palette.ink3.opacity(0.8), .dashed(1, [4, 5]))
        }
    }

    /// The ego's speed as an arrow of one second's travel, with its label, above walking pace.
    private func drawEgoArrow(egoSpeed: Double, scale: Int, _ painter: inout WorldPainter) {
        guard egoSpeed.isFinite, egoSpeed > WorldView.egoArrowMinimumSpeed else { return }
        let tail = SIMD3(0, 0, 0.1), tip = SIMD3(egoSpeed, 0, 0.1)
        painter.stroke([tail, tip], Palette.ink2, .dashed(1.5, [5, 4]))
        if let head = painter.camera.project(tip), let back = painter.camera.project(SIMD3(egoSpeed - 1, 0, 0.1)) {
            painter.arrowHead(at: head, from: back, colour: Palette.ink2)
            painter.label(
                String(format: "ego %.0f km/h", egoSpeed * 3.6), at: head + SIMD2(0, -6), scale: scale,
                colour: Palette.ink2)
        }
    }

    /// The vehicles far to near: trails, then bodies, then labels, so that labels stay on top.
    private func drawVehicles(_ vehicles: [TrackedVehicle], scale: Int, _ painter: inout WorldPainter) {
        let camera = painter.camera
        let sorted = vehicles.sorted { camera.depth(SIMD3($0.box.x, $0.box.y, 0)) > camera.depth(SIMD3($1.box.x, $1.box.y, 0)) }
        for vehicle in sorted { painter.trail(vehicle) }
        for vehicle in sorted {
            let colour = Palette.colour(for: vehicle.state)
            painter.body(
                VehicleProfile.forVehicle(label: vehicle.label, length: vehicle.box.length, width: vehicle.box.width),
                x: vehicle.box.x, y: vehicle.box.y, yaw: vehicle.box.yaw, length: vehicle.box.length, width: vehicle.box.width,
                height: vehicle.box.height, fill: colour.opacity(vehicle.observed ? 0.16 : 0.07), stroke: colour,
                dashed: !vehicle.observed)
        }
        for vehicle in sorted {
            let profile = VehicleProfile.forVehicle(label: vehicle.label, length: vehicle.box.length, width: vehicle.box.width)
            let h = profile.height(for: vehicle.box.height)
            guard let anchor = camera.project(SIMD3(vehicle.box.x, vehicle.box.y, max(h, 1) + 0.5)) else { continue }
            let speed = vehicle.velocity.map { ($0 * $0).sum().squareRoot() } ?? 0
            painter.label(
                String(format: "%.0f m %.0f km/h", vehicle.box.x, speed * 3.6), at: anchor, scale: scale,
                colour: Palette.colour(for: vehicle.state))
        }
    }
}
