import Foundation
import PeripheryCore
import PeripheryGeometry

/// The world view's virtual camera (visualization §10.2): it looks along +x at a point `aim`
/// metres ahead and 0.9 m up, from `distance` metres back along a line tilted `tilt` down from the
/// horizontal, with a 26° vertical field of view.
public struct WorldCamera: Sendable, Hashable {
    /// View width in pixels.
    public var width: Int
    /// View height in pixels.
    public var height: Int
    /// Downward tilt, radians.
    public var tilt: Double
    /// Forward position of the aim point, metres.
    public var aim: Double
    /// Distance from the aim point back to the camera, metres.
    public var distance: Double

    /// Vertical field of view, radians (26°).
    static let verticalFieldOfView = 26.0 * Double.pi / 180
    /// Height of the aim point, metres.
    static let targetHeight = 0.9
    /// Points at or nearer than this depth are not projected, metres.
    static let minimumDepth = 0.5

    /// Creates a camera.
    public init(width: Int, height: Int, tilt: Double, aim: Double, distance: Double) {
        self.width = width
        self.height = height
        self.tilt = tilt
        self.aim = aim
        self.distance = distance
    }

    /// Focal length in pixels, `H / (2 · tan 13°)`.
    public var focal: Double { Double(height) / (2 * tan(WorldCamera.verticalFieldOfView / 2)) }

    /// The camera centre: `(aim − D·cos θ, 0, 0.9 + D·sin θ)`.
    public var position: SIMD3<Double> {
        SIMD3(aim - distance * cos(tilt), 0, WorldCamera.targetHeight + distance * sin(tilt))
    }

    /// Depth of a world point along the viewing direction, `(x − cx)·cos θ − (z − cz)·sin θ`.
    public func depth(_ p: SIMD3<Double>) -> Double {
        let c = position
        return (p.x - c.x) * cos(tilt) - (p.z - c.z) * sin(tilt)
    }

    /// The view pixel of a world point, or `nil` when its depth is not above `minimumDepth`.
    public func project(_ p: SIMD3<Double>) -> SIMD2<Double>? {
        let d = depth(p)
        guard d > WorldCamera.minimumDepth else { return nil }
        let c = position
        let k = focal / d
        let up = (p.x - c.x) * sin(tilt) + (p.z - c.z) * cos(tilt)
        return SIMD2(Double(width) / 2 - p.y * k, Double(height) / 2 - up * k)
    }

    /// A polygon cut to the part in front of the near depth (Sutherland–Hodgman), projected.
    func projectPolygon(_ polygon: [SIMD3<Double>]) -> [SIMD2<Double>] {
        let near = WorldCamera.minimumDepth + 1e-6
        var kept: [SIMD3<Double>] = []
        for (i, a) in polygon.enumerated() {
            let b = polygon[(i + 1) % polygon.count]
            let da = depth(a), db = depth(b)
            if da >= near { kept.append(a) }
            if (da >= near) != (db >= near) { kept.append(a + (b - a) * ((near - da) / (db - da))) }
        }
        return kept.compactMap(project)
    }

    /// A polyline cut where it passes the near depth, projected; unbroken runs stay one path.
    func projectPolyline(_ points: [SIMD3<Double>]) -> [[SIMD2<Double>]] {
        let near = WorldCamera.minimumDepth + 1e-6
        var paths: [[SIMD2<Double>]] = []
        var current: [SIMD2<Double>] = []
        for (a, b) in zip(points, points.dropFirst()) {
            let da = depth(a), db = depth(b)
            guard da >= near || db >= near else { continue }
            let p = da >= near ? a : a + (b - a) * ((near - da) / (db - da))
            let q = db >= near ? b : a + (b - a) * ((near - da) / (db - da))
            guard let start = project(p), let end = project(q) else { continue }
            if da < near || current.isEmpty {
                if current.count > 1 { paths.append(current) }
                current = [start]
            }
            current.append(end)
            if db < near {
                paths.append(current)
                current = []
            }
        }
        if current.count > 1 { paths.append(current) }
        return paths
    }
}
