import PeripheryCore
import PeripheryGeometry

/// Draws world-frame primitives through the world camera.
struct WorldPainter {
    let camera: WorldCamera
    var canvas: Canvas

    /// Fills a world polygon, cut at the near depth.
    mutating func fill(_ polygon: [SIMD3<Double>], _ colour: Colour) {
        let projected = camera.projectPolygon(polygon)
        if projected.count >= 3 { canvas.fill(polygon: projected, colour: colour) }
    }

    /// Strokes a world polyline, cut at the near depth.
    mutating func stroke(_ points: [SIMD3<Double>], closed: Bool = false, _ colour: Colour, _ style: StrokeStyle) {
        stroke(paths: [closed && points.count > 2 ? points + [points[0]] : points], colour, style)
    }

    /// Strokes several world polylines as one shape.
    mutating func stroke(paths: [[SIMD3<Double>]], _ colour: Colour, _ style: StrokeStyle) {
        let projected = paths.flatMap(camera.projectPolyline)
        if !projected.isEmpty { canvas.stroke(paths: projected, colour: colour, style: style) }
    }

    /// A small filled arrow head at `tip`, pointing away from `back`.
    mutating func arrowHead(at tip: SIMD2<Double>, from back: SIMD2<Double>, colour: Colour) {
        let d = tip - back
        let length = (d * d).sum().squareRoot()
        guard length > 1e-6 else { return }
        let u = d / length, n = SIMD2(-u.y, u.x)
        canvas.fill(polygon: [tip, tip - 9 * u + 4.5 * n, tip - 9 * u - 4.5 * n], colour: colour)
    }

    /// One line of text centred on `anchor.x`, its bottom at `anchor.y`.
    mutating func label(_ text: String, at anchor: SIMD2<Double>, scale: Int, colour: Colour) {
        guard anchor.x.isFinite, anchor.y.isFinite, abs(anchor.x) < 1e6, abs(anchor.y) < 1e6 else { return }
        let top = Int(anchor.y.rounded()) - BitmapFont.glyphHeight * scale
        canvas.text(
            text, at: SIMD2(Int(anchor.x.rounded()), top), scale: scale, colour: colour, alignment: .centre,
            halo: Palette.ground.opacity(0.85))
    }
}
