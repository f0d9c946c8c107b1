import Foundation

/// The same-family box overlap test the tracker applies to detections and to tracks
/// (`docs/reference/tracker.md#84-step-order` steps 1 and 10).
enum OverlapSuppression {
    /// A box and its class label; only its ground-plane footprint is tested.
    struct Box: Sendable {
        var box: VehicleBox
        var label: Int
    }

    /// Overlap family of a label: 3 → 1, 2 → 2, everything else (the four-wheeled classes) → 0.
    static func family(_ label: Int) -> Int {
        switch label {
        case 3: 1
        case 2: 2
        default: 0
        }
    }

    /// Which boxes survive, by input index: boxes are visited in `order` and one is dropped when it
    /// overlaps an already kept box of the same family. Boxes are scaled by `shrink` first.
    static func survivors(_ boxes: [Box], order: [Int], shrink: Double) -> [Bool] {
        precondition(order.count == boxes.count, "OverlapSuppression: order must cover every box")
        var keep = [Bool](repeating: false, count: boxes.count)
        var kept: [(corners: [SIMD2<Double>], family: Int)] = []
        for index in order {
            let box = boxes[index]
            let c = corners(box, shrink: shrink)
            let f = family(box.label)
            if kept.contains(where: { $0.family == f && overlaps(c, $0.corners) }) { continue }
            kept.append((c, f))
            keep[index] = true
        }
        return keep
    }

    /// Corners of the rectangle, local `(±l/2, ±w/2)` in the order (+,+), (+,−), (−,−), (−,+),
    /// rotated by yaw and moved to the centre.
    static func corners(_ labelled: Box, shrink: Double) -> [SIMD2<Double>] {
        let box = labelled.box
        let length = box.length * shrink, width = box.width * shrink
        let c = cos(box.yaw), s = sin(box.yaw)
        return [(0.5, 0.5), (0.5, -0.5), (-0.5, -0.5), (-0.5, 0.5)].map { (u, v) in
            let lx = u * length, ly = v * width
            return SIMD2(box.x + lx * c - ly * s, box.y + lx * s + ly * c)
        }
    }

    /// Separating-axis test on both quads' edge normals. Touching counts as overlap: only a strict
    /// gap (`maxA < minB` or `maxB < minA`) on some axis separates them.
    static func overlaps(_ a: [SIMD2<Double>], _ b: [SIMD2<Double>]) -> Bool {
        for quad in [a, b] {
            for i in quad.indices {
                let edge = quad[(i + 1) % quad.count] - quad[i]
                let axis = SIMD2(-edge.y, edge.x)
                let (minA, maxA) = extent(a, on: axis)
                let (minB, maxB) = extent(b, on: axis)
                if maxA < minB || maxB < minA { return false }
            }
        }
        return true
    }

    /// Smallest and largest projection of the points on an axis.
    private static func extent(_ points: [SIMD2<Double>], on axis: SIMD2<Double>) -> (Double, Double) {
        var lo = Double.infinity, hi = -Double.infinity
        for p in points {
            let d = p.x * axis.x + p.y * axis.y
            lo = min(lo, d)
            hi = max(hi, d)
        }
        return (lo, hi)
    }
}
