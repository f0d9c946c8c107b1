import Foundation
import PeripheryCore
import PeripheryGeometry

/// Draws tracked vehicles as 3D boxes, and the road guides, over a camera frame
/// (visualization §10.3).
///
/// Boxes are projected with `CameraCalibration.sourcePoint`, edges clipped at the camera's near
/// plane first; line widths and text are in output pixels whatever the frame's scale.
public struct CameraOverlay: Sendable {
    /// The camera the frame comes from.
    public var calibration: CameraCalibration
    /// Presentation-only shift of the camera to the right, metres (the replay demo's `cameraRight`):
    /// the camera is drawn as if at lateral `pose.lateralOffset − cameraRight`.
    public var cameraRight: Double
    /// Whether to draw the horizon and the range ladder.
    public var showsGuides: Bool
    /// Forward distances of the range ladder, metres.
    public var guideRanges: [Double]

    /// Creates an overlay for a camera.
    public init(
        calibration: CameraCalibration, cameraRight: Double = 0, showsGuides: Bool = true,
        guideRanges: [Double] = [10, 20, 30, 40]
    ) {
        self.calibration = calibration
        self.cameraRight = cameraRight
        self.showsGuides = showsGuides
        self.guideRanges = guideRanges
    }

    /// Farthest footprint corner still displayed, metres.
    static let displayRange = 40.0

    /// Half the network's horizontal field of view, `atan(512 / (2 · focal_net))`, radians.
    public var halfFieldOfView: Double {
        atan(Double(Safety40.inputWidth) / (2 * calibration.crop.achievedFocal))
    }

    /// The calibration the boxes are projected with: `calibration` with the camera moved right by
    /// `cameraRight`.
    public var projector: CameraCalibration {
        guard cameraRight != 0 else { return calibration }
        var pose = calibration.setup.pose
        pose.lateralOffset -= cameraRight
        return CameraCalibration(
            intrinsics: calibration.setup.intrinsics, pose: pose, targetFocal: calibration.crop.targetFocal)
    }

    /// The newest display filter: shown if any footprint corner is ahead (`x > 0`), within
    /// `displayRange` and within `halfFieldOfView` of straight ahead as seen from the camera's
    /// lateral position.
    func isDisplayed(_ vehicle: TrackedVehicle) -> Bool {
        let cameraLeft = calibration.setup.pose.lateralOffset - cameraRight
        let half = halfFieldOfView
        return CameraOverlay.boxCorners(vehicle).prefix(4).contains { corner in
            let forward = corner.x, left = corner.y - cameraLeft
            return forward > 0 && (forward * forward + left * left).squareRoot() <= CameraOverlay.displayRange
                && abs(atan2(left, forward)) <= half
        }
    }

    /// The 8 corners of a vehicle's box in the vehicle frame: the bottom ring (z − h/2) then the top
    /// ring (z + h/2), each front-left, front-right, rear-right, rear-left of the box rotated by yaw.
    static func boxCorners(_ v: TrackedVehicle) -> [SIMD3<Double>] {
        let c = cos(v.box.yaw), s = sin(v.box.yaw)
        let footprint = [(0.5, 0.5), (0.5, -0.5), (-0.5, -0.5), (-0.5, 0.5)].map { f, l -> SIMD2<Double> in
            let dx = f * v.box.length, dy = l * v.box.width
            return SIMD2(v.box.x + dx * c - dy * s, v.box.y + dx * s + dy * c)
        }
        return [v.box.z - v.box.height / 2, v.box.z + v.box.height / 2].flatMap { z in footprint.map { SIMD3($0.x, $0.y, z) } }
    }

    /// The frame with the overlay, at the frame's own resolution.
    public func render(on frame: RGBImage, vehicles: [TrackedVehicle]) -> RGBImage {
        var canvas = Canvas(frame)
        draw(vehicles, on: &canvas, mapping: .identity, sourceHeight: frame.height)
        return canvas.image
    }

    /// The frame aspect-filled into a `width × height` view, with the overlay drawn at view resolution.
    public func render(frame: RGBImage, vehicles: [TrackedVehicle], width: Int, height: Int) -> RGBImage {
        var canvas = Canvas(width: width, height: height, background: Palette.splitBackground)
        let view = PixelRect(x: 0, y: 0, width: width, height: height)
        let mapping = ViewMapping.aspectFill(sourceWidth: frame.width, sourceHeight: frame.height, view: view)
        canvas.draw(frame, mapping: mapping, clip: view)
        draw(vehicles, on: &canvas, mapping: mapping, sourceHeight: frame.height)
        return canvas.image
    }

    /// Draws the guides, then the displayed vehicles far to near, then their labels.
    ///
    /// - Parameters:
    ///   - vehicles: the tracks to draw, in the current vehicle frame.
    ///   - canvas: the picture drawn on.
    ///   - mapping: source pixels → canvas pixels.
    ///   - sourceHeight: height of the source frame, to size the labels.
    public func draw(_ vehicles: [TrackedVehicle], on canvas: inout Canvas, mapping: ViewMapping, sourceHeight: Int) {
        let camera = projector
        if showsGuides { drawGuides(camera.groundGuides(ranges: guideRanges), on: &canvas, mapping: mapping) }
        let shown = vehicles.filter(isDisplayed).sorted { a, b in a.box.range > b.box.range }
        var labels: [(text: String, at: SIMD2<Int>, colour: Colour)] = []
        for vehicle in shown {
            let corners = CameraOverlay.boxCorners(vehicle)
            var paths: [[SIMD2<Double>]] = []
            for i in 0..<4 {
                let j = (i + 1) % 4
                let edges = [(corners[i], corners[j]), (corners[4 + i], corners[4 + j]), (corners[i], corners[4 + i])]
                for (a, b) in edges {
                    if let segment = camera.projectSegment(a, b) {
                        paths.append([mapping.view(segment.start), mapping.view(segment.end)])
                    }
                }
            }
            guard !paths.isEmpty else { continue }
            let colour = Palette.colour(for: vehicle.state)
            let style = vehicle.observed ? StrokeStyle.solid(2) : StrokeStyle.dashed(1.5, [5, 4])
            canvas.stroke(paths: paths, colour: colour, style: style)
            let tops = corners[4...].compactMap { camera.sourcePoint($0) }.map(mapping.view)
            if let top = tops.min(by: { $0.y < $1.y }) {
                let scale = CameraOverlay.labelScale(viewHeight: Double(sourceHeight) * mapping.scale)
                let y = Int(top.y.rounded()) - 4 - BitmapFont.glyphHeight * scale
                labels.append(("#\(vehicle.id)", SIMD2(Int(top.x.rounded()), y), colour))
            }
        }
        let scale = CameraOverlay.labelScale(viewHeight: Double(sourceHeight) * mapping.scale)
        for label in labels {
            canvas.text(
                label.text, at: label.at, scale: scale, colour: label.colour, alignment: .centre,
                halo: Colour(red: 0, green: 0, blue: 0, alpha: 0.6))
        }
    }

    /// Font scale of the labels: 1 up to about 630 view pixels of frame height, 2 above.
    static func labelScale(viewHeight: Double) -> Int {
        max(1, Int((viewHeight / 420).rounded()))
    }

    /// The horizon (cyan, dashed [8, 5]) and the range ladder (yellow).
    func drawGuides(_ guides: GroundGuides, on canvas: inout Canvas, mapping: ViewMapping) {
        if let horizon = guides.horizon {
            canvas.strokeLine(
                from: mapping.view(horizon.start), to: mapping.view(horizon.end), colour: Palette.horizonGuide,
                style: .dashed(1.5, [8, 5]))
        }
        let rungs = guides.rungs.map { [mapping.view($0.segment.start), mapping.view($0.segment.end)] }
        canvas.stroke(paths: rungs, colour: Palette.rangeGuide, style: .solid(1.25))
    }
}

extension CameraCalibration {
    /// Depth below which a segment is cut before projection, metres.
    static let nearDepth = 0.05

    /// The source-image segment of a vehicle-frame segment, cut where it passes behind the camera's
    /// near plane; `nil` if it lies wholly behind.
    func projectSegment(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> ImageSegment? {
        let centre = setup.pose.cameraCentre
        let da = (sourceCamera * (a - centre)).z, db = (sourceCamera * (b - centre)).z
        let near = CameraCalibration.nearDepth
        guard da >= near || db >= near else { return nil }
        var p = a, q = b
        if da < near { p = a + (b - a) * ((near - da) / (db - da)) }
        if db < near { q = a + (b - a) * ((near - da) / (db - da)) }
        guard let start = sourcePoint(p), let end = sourcePoint(q) else { return nil }
        return ImageSegment(start: start, end: end)
    }
}
