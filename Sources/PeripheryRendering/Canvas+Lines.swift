import Foundation
import PeripheryCore
import PeripheryGeometry

/// How a line is drawn: its width in pixels and an optional dash pattern.
public struct StrokeStyle: Sendable, Hashable {
    /// Line width in pixels; widths under 1 are drawn 1 px wide at proportionally lower opacity.
    public var width: Double
    /// Alternating dash and gap lengths in pixels (HTML canvas `setLineDash`); empty for a solid line.
    ///
    /// An odd-length pattern is repeated once, as on a canvas; a pattern with a negative, non-finite
    /// or all-zero entry draws a solid line.
    public var dash: [Double]

    /// Creates a style.
    public init(width: Double = 1, dash: [Double] = []) {
        self.width = width
        self.dash = dash
    }

    /// A solid line of `width` pixels.
    public static func solid(_ width: Double) -> StrokeStyle { StrokeStyle(width: width) }

    /// A dashed line of `width` pixels.
    public static func dashed(_ width: Double, _ pattern: [Double]) -> StrokeStyle {
        StrokeStyle(width: width, dash: pattern)
    }

    /// The dash pattern to use, or `nil` for a solid line.
    var effectiveDash: [Double]? {
        guard !dash.isEmpty, dash.allSatisfy({ $0.isFinite && $0 >= 0 }), dash.contains(where: { $0 > 0 })
        else { return nil }
        return dash.count % 2 == 0 ? dash : dash + dash
    }
}

extension Canvas {
    /// Strokes a polyline (closed back to its first point when `closed`), with round joins and caps;
    /// dashes end square (butt) where the pattern cuts them.
    ///
    /// The whole polyline is blended once, so a translucent line is not darker where it overlaps
    /// itself. The dash pattern runs on along the polyline across its corners.
    mutating func stroke(
        _ points: [SIMD2<Double>], closed: Bool = false, colour: Colour, style: StrokeStyle = StrokeStyle()
    ) {
        guard let first = points.first else { return }
        stroke(paths: [closed && points.count > 2 ? points + [first] : points], colour: colour, style: style)
    }

    /// Strokes one straight line.
    mutating func strokeLine(
        from start: SIMD2<Double>, to end: SIMD2<Double>, colour: Colour, style: StrokeStyle = StrokeStyle()
    ) {
        stroke(paths: [[start, end]], colour: colour, style: style)
    }

    /// Strokes several open polylines as one shape (blended once); each restarts the dash pattern.
    mutating func stroke(paths: [[SIMD2<Double>]], colour: Colour, style: StrokeStyle = StrokeStyle()) {
        guard colour.alpha > 0, style.width > 0, style.width.isFinite else { return }
        let radius = max(style.width, 1) / 2
        let reach = radius + 0.5
        let pieces = strokePieces(paths: paths, reach: reach, dash: style.effectiveDash)
        guard !pieces.isEmpty else { return }
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for (a, b, _, _) in pieces {
            minX = min(minX, a.x, b.x)
            minY = min(minY, a.y, b.y)
            maxX = max(maxX, a.x, b.x)
            maxY = max(maxY, a.y, b.y)
        }
        guard
            var mask = CoverageMask(
                minX: minX - reach, minY: minY - reach, maxX: maxX + reach, maxY: maxY + reach,
                canvasWidth: width, canvasHeight: height)
        else { return }
        let gain = Float(min(style.width, 1))
        for (a, b, buttStart, buttEnd) in pieces {
            mask.addSegment(a, b, radius: radius, gain: gain, buttStart: buttStart, buttEnd: buttEnd)
        }
        composite(mask, colour: colour)
    }

    /// The solid pieces of the paths that can touch the canvas: each segment clipped to the canvas
    /// grown by `reach`, then cut into dashes; an end the dash pattern cut is flagged butt.
    private func strokePieces(
        paths: [[SIMD2<Double>]], reach: Double, dash: [Double]?
    ) -> [(SIMD2<Double>, SIMD2<Double>, Bool, Bool)] {
        let bounds = (
            lo: SIMD2(-reach - 1, -reach - 1), hi: SIMD2(Double(width) + reach + 1, Double(height) + reach + 1)
        )
        var pieces: [(SIMD2<Double>, SIMD2<Double>, Bool, Bool)] = []
        for path in paths {
            guard path.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else { continue }
            if path.count == 1 {
                pieces.append((path[0], path[0], false, false))
                continue
            }
            var travelled = 0.0
            for (a, b) in zip(path, path.dropFirst()) {
                let d = b - a
                let length = (d * d).sum().squareRoot()
                defer { travelled += length }
                guard let (t0, t1) = clipSegment(a, b, lo: bounds.lo, hi: bounds.hi) else { continue }
                guard let dash, length > 0 else {
                    pieces.append((a + t0 * d, a + t1 * d, false, false))
                    continue
                }
                let start = travelled + t0 * length, end = travelled + t1 * length
                for (u0, u1) in dashIntervals(dash, from: start, to: end) {
                    pieces.append(
                        (
                            a + ((u0 - travelled) / length) * d, a + ((u1 - travelled) / length) * d, u0 > start, u1 < end
                        ))
                }
            }
        }
        return pieces
    }
}

/// The "on" parts of a dash pattern that starts at path distance 0, within `[from, to]`.
func dashIntervals(_ pattern: [Double], from start: Double, to end: Double) -> [(Double, Double)] {
    let period = pattern.reduce(0, +)
    guard period > 0, end > start else { return [] }
    var phase = start.truncatingRemainder(dividingBy: period)
    var index = 0
    while phase >= pattern[index] {
        phase -= pattern[index]
        index = (index + 1) % pattern.count
    }
    var intervals: [(Double, Double)] = []
    var u = start
    var left = pattern[index] - phase
    while u < end {
        let next = min(u + left, end)
        if index % 2 == 0, next > u { intervals.append((u, next)) }
        u = next
        index = (index + 1) % pattern.count
        left = pattern[index]
    }
    return intervals
}

/// Liang–Barsky: the parameter range `[t0, t1] ⊂ [0, 1]` of `a + t·(b − a)` inside the box, or `nil`.
func clipSegment(_ a: SIMD2<Double>, _ b: SIMD2<Double>, lo: SIMD2<Double>, hi: SIMD2<Double>) -> (Double, Double)? {
    let d = b - a
    var t0 = 0.0, t1 = 1.0
    for (p, q) in [(-d.x, a.x - lo.x), (d.x, hi.x - a.x), (-d.y, a.y - lo.y), (d.y, hi.y - a.y)] {
        if p == 0 {
            if q < 0 { return nil }
        } else {
            let t = q / p
            if p < 0 { t0 = max(t0, t) } else { t1 = min(t1, t) }
        }
    }
    return t0 <= t1 ? (t0, t1) : nil
}

extension CoverageMask {
    /// Raises the coverage of the pixels within `radius` (+ ½ px of antialiasing) of the segment
    /// `a`–`b` to `gain · clamp(radius + ½ − distance, 0, 1)`.
    ///
    /// A round end is a half disc; a butt end stops square at the endpoint, antialiased over ½ px.
    mutating func addSegment(
        _ a: SIMD2<Double>, _ b: SIMD2<Double>, radius: Double, gain: Float, buttStart: Bool = false,
        buttEnd: Bool = false
    ) {
        let reach = radius + 0.5
        let d = b - a
        let lengthSquared = (d * d).sum()
        let length = lengthSquared.squareRoot()
        let minX = min(a.x, b.x) - reach, maxX = max(a.x, b.x) + reach
        let rowLo = max(y, Int((min(a.y, b.y) - reach - 0.5).rounded(.down)))
        let rowHi = min(y + height - 1, Int((max(a.y, b.y) + reach - 0.5).rounded(.up)))
        guard rowLo <= rowHi else { return }
        for row in rowLo...rowHi {
            let py = Double(row) + 0.5
            var lo = minX, hi = maxX
            if abs(d.y) > 1e-9 {
                let centre = a.x + (py - a.y) * d.x / d.y
                let half = reach * length / abs(d.y)
                lo = max(lo, centre - half)
                hi = min(hi, centre + half)
            }
            let columnLo = max(x, Int((lo - 0.5).rounded(.down)))
            let columnHi = min(x + width - 1, Int((hi - 0.5).rounded(.up)))
            guard columnLo <= columnHi else { continue }
            for column in columnLo...columnHi {
                let p = SIMD2(Double(column) + 0.5, py)
                let along = length > 0 ? ((p - a) * d).sum() / length : 0
                var ends = 1.0
                if buttStart { ends = min(ends, max(along + 0.5, 0)) }
                if buttEnd { ends = min(ends, max(length - along + 0.5, 0)) }
                guard ends > 0 else { continue }
                // Past a butt end the distance is the lateral one; the end factor does the rest.
                let unclamped = length > 0 ? along / length : 0
                let pastButt = (unclamped < 0 && buttStart) || (unclamped > 1 && buttEnd)
                let t = pastButt ? unclamped : min(max(unclamped, 0), 1)
                let e = p - (a + t * d)
                let distance = (e * e).sum().squareRoot()
                let c = min(max(reach - distance, 0), 1) * ends
                if c > 0 { raise(column: column, row: row, to: gain * Float(c)) }
            }
        }
    }
}
