import PeripheryCore
import PeripheryGeometry

/// Which points a self-overlapping polygon covers.
public enum FillRule: Sendable, Hashable {
    /// Inside where the winding number is not zero (HTML canvas default).
    case nonZero
    /// Inside where a ray crosses the outline an odd number of times.
    case evenOdd
}

extension Canvas {
    /// Fills a polygon (implicitly closed) with antialiased edges.
    public mutating func fill(polygon: [SIMD2<Double>], colour: Colour, rule: FillRule = .nonZero) {
        fill(rings: [polygon], colour: colour, rule: rule)
    }

    /// Fills several closed rings as one shape, so that holes and overlaps follow `rule`.
    ///
    /// Scanline fill with 4 sub-scanlines per row and exact horizontal coverage; rings with a
    /// non-finite vertex are skipped.
    public mutating func fill(rings: [[SIMD2<Double>]], colour: Colour, rule: FillRule = .nonZero) {
        guard colour.alpha > 0 else { return }
        let usable = rings.filter { $0.count >= 3 && $0.allSatisfy { $0.x.isFinite && $0.y.isFinite } }
        let all = usable.joined()
        guard let minX = all.map(\.x).min(), let maxX = all.map(\.x).max(),
            let minY = all.map(\.y).min(), let maxY = all.map(\.y).max(),
            var mask = CoverageMask(
                minX: minX, minY: minY, maxX: maxX, maxY: maxY, canvasWidth: width, canvasHeight: height)
        else { return }
        mask.addRings(usable, rule: rule)
        composite(mask, colour: colour)
    }
}

extension CoverageMask {
    /// Sub-scanlines per pixel row.
    static let polygonSamples = 4

    /// Adds the coverage of the rings' interior (coverage accumulates; callers use a fresh mask).
    mutating func addRings(_ rings: [[SIMD2<Double>]], rule: FillRule) {
        struct Edge {
            var a: SIMD2<Double>
            var b: SIMD2<Double>
            var direction: Int
        }
        var edges: [Edge] = []
        for ring in rings {
            for (i, a) in ring.enumerated() {
                let b = ring[(i + 1) % ring.count]
                if a.y != b.y { edges.append(Edge(a: a, b: b, direction: b.y > a.y ? 1 : -1)) }
            }
        }
        guard !edges.isEmpty else { return }
        let samples = CoverageMask.polygonSamples
        let weight = 1 / Double(samples)
        let left = Double(x), right = Double(x + width)
        var row = [Double](repeating: 0, count: width)
        var crossings: [(x: Double, direction: Int)] = []
        for r in 0..<height {
            for i in row.indices { row[i] = 0 }
            for s in 0..<samples {
                let sy = Double(y + r) + (Double(s) + 0.5) * weight
                crossings.removeAll(keepingCapacity: true)
                for e in edges where min(e.a.y, e.b.y) <= sy && sy < max(e.a.y, e.b.y) {
                    crossings.append((e.a.x + (sy - e.a.y) * (e.b.x - e.a.x) / (e.b.y - e.a.y), e.direction))
                }
                crossings.sort { $0.x < $1.x }
                var winding = 0
                var spanStart = 0.0
                for c in crossings {
                    let wasInside = rule == .nonZero ? winding != 0 : winding % 2 != 0
                    winding += c.direction
                    let isInside = rule == .nonZero ? winding != 0 : winding % 2 != 0
                    if !wasInside && isInside {
                        spanStart = c.x
                    } else if wasInside && !isInside {
                        let xa = max(spanStart, left), xb = min(c.x, right)
                        guard xa < xb else { continue }
                        let first = Int(xa.rounded(.down)), last = Int(xb.rounded(.up)) - 1
                        if first == last {
                            row[first - x] += (xb - xa) * weight
                            continue
                        }
                        row[first - x] += (Double(first + 1) - xa) * weight
                        row[last - x] += (xb - Double(last)) * weight
                        if first + 1 < last {
                            for i in (first + 1 - x)..<(last - x) { row[i] += weight }
                        }
                    }
                }
            }
            for i in 0..<width where row[i] > 0 {
                values[r * width + i] = min(1, values[r * width + i] + Float(row[i]))
            }
        }
    }
}
