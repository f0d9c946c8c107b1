import Foundation
import PeripheryCore
import PeripheryGeometry

/// A road's centreline in a flat world frame (x, y in metres, heading counter-clockwise from +x):
/// straight pieces and circular arcs joined tangentially, as road designers lay them out.
///
/// Positions along the road are the arc length `s` from the start and the signed lateral offset `d`
/// (positive left of the direction of travel). Before the first piece and after the last the road
/// continues straight.
package struct RoadCentreline: Sendable, Hashable {
    /// One piece: a straight (`curvature == 0`) or an arc of constant curvature (1/m, positive left).
    package struct Piece: Sendable, Hashable {
        /// Arc length at the start of the piece.
        package var start: Double
        /// Length of the piece, metres.
        package var length: Double
        /// Curvature, 1/m (positive turns left).
        package var curvature: Double
        /// World position of the piece's start.
        package var origin: SIMD2<Double>
        /// Heading at the piece's start, radians.
        package var heading: Double
    }

    /// The pieces in order of arc length.
    package let pieces: [Piece]

    /// Lays out pieces of the given lengths and curvatures from `origin`, heading `heading`.
    ///
    /// - Precondition: at least one piece, every length positive.
    package init(_ layout: [(length: Double, curvature: Double)], origin: SIMD2<Double> = .zero, heading: Double = 0) {
        precondition(!layout.isEmpty && layout.allSatisfy { $0.length > 0 }, "a centreline needs pieces of positive length")
        var pieces: [Piece] = []
        var s = 0.0, p = origin, h = heading
        for (length, curvature) in layout {
            let piece = Piece(start: s, length: length, curvature: curvature, origin: p, heading: h)
            pieces.append(piece)
            (p, h) = RoadCentreline.advance(piece, by: length)
            s += length
        }
        self.pieces = pieces
    }

    /// Total length of the pieces.
    package var length: Double { pieces.last.map { $0.start + $0.length } ?? 0 }

    /// Position and heading of the centreline at arc length `s`.
    package func pose(at s: Double) -> (position: SIMD2<Double>, heading: Double) {
        let piece = self.piece(at: s)
        let u = s - piece.start
        // Outside the laid-out range the road runs straight on.
        if u < 0 || u > piece.length {
            let (p, h) = RoadCentreline.advance(piece, by: u < 0 ? 0 : piece.length)
            let extra = u < 0 ? u : u - piece.length
            return (p + extra * SIMD2(cos(h), sin(h)), h)
        }
        return RoadCentreline.advance(piece, by: u)
    }

    /// Curvature at arc length `s` (0 beyond the ends).
    func curvature(at s: Double) -> Double {
        let piece = self.piece(at: s)
        let u = s - piece.start
        return u < 0 || u > piece.length ? 0 : piece.curvature
    }

    /// World point at arc length `s` and lateral offset `d`.
    package func point(s: Double, d: Double) -> SIMD2<Double> {
        let (p, h) = pose(at: s)
        return p + d * SIMD2(-sin(h), cos(h))
    }

    /// Road coordinates `(s, d)` of a world point: the piece whose span it falls beside, nearest
    /// laterally, among the pieces overlapping `window` of arc length.
    func roadCoordinates(of point: SIMD2<Double>, window: ClosedRange<Double>) -> SIMD2<Double> {
        var best = SIMD2<Double>(.nan, .infinity)
        for (i, piece) in pieces.enumerated() where piece.start <= window.upperBound && piece.start + piece.length >= window.lowerBound {
            let local = RoadCentreline.local(point, in: piece)
            // The first and last pieces extend the road straight beyond its ends.
            let before = i == 0 ? -Double.infinity : -0.5, after = i == pieces.count - 1 ? Double.infinity : piece.length + 0.5
            guard local.x >= before, local.x <= after, abs(local.y) < abs(best.y) else { continue }
            best = SIMD2(piece.start + local.x, local.y)
        }
        return best
    }

    /// `(along, lateral)` of a point relative to a piece's start.
    static func local(_ point: SIMD2<Double>, in piece: Piece) -> SIMD2<Double> {
        let t = SIMD2(cos(piece.heading), sin(piece.heading)), n = SIMD2(-t.y, t.x)
        let a = point - piece.origin
        let k = piece.curvature
        if k == 0 || a.x * t.x + a.y * t.y < 0 {
            return SIMD2((a * t).sum(), (a * n).sum())
        }
        let centre = piece.origin + n / k
        let r = point - centre
        let radius = (r * r).sum().squareRoot()
        // The heading of the tangent at the point's angle about the centre.
        let heading = atan2(r.y, r.x) + (k > 0 ? .pi / 2 : -.pi / 2)
        let turn = RoadCentreline.wrapped(heading - piece.heading)
        return SIMD2(turn / k, 1 / k - (k > 0 ? radius : -radius))
    }

    /// An angle wrapped to [−π, π).
    static func wrapped(_ angle: Double) -> Double { angle - 2 * .pi * ((angle + .pi) / (2 * .pi)).rounded(.down) }

    /// Pose after running `u` metres along a piece from its start.
    static func advance(_ piece: Piece, by u: Double) -> (SIMD2<Double>, Double) {
        let k = piece.curvature, h0 = piece.heading
        if k == 0 { return (piece.origin + u * SIMD2(cos(h0), sin(h0)), h0) }
        let h = h0 + k * u
        return (piece.origin + SIMD2(sin(h) - sin(h0), cos(h0) - cos(h)) / k, h)
    }

    /// The piece that holds `s` (the first or last one beyond the ends).
    func piece(at s: Double) -> Piece {
        var low = 0, high = pieces.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if pieces[mid].start <= s { low = mid } else { high = mid - 1 }
        }
        return pieces[low]
    }
}
