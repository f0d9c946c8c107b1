import Foundation
import PeripheryCore

/// One optical-flow vector: where a point was in the first frame and how far it moved by the second,
/// pixels of the working image.
package struct FlowSample: Sendable, Hashable {
    /// Position in the first frame.
    package var position: SIMD2<Double>
    /// Displacement to the second frame.
    package var flow: SIMD2<Double>

    /// Creates a sample.
    package init(position: SIMD2<Double>, flow: SIMD2<Double>) {
        self.position = position
        self.flow = flow
    }
}

/// The focus of expansion of a flow field: the image point that straight-ahead travel streams away
/// from (`docs/reference/calibration-from-motion.md#91-pitch-and-yaw-from-the-focus-of-expansion`).
///
/// The field is first de-rotated with the gyro (`derotated`), then each vector votes for a line
/// through its point along its direction; RANSAC over pairs of lines (200 iterations, 2 px, the
/// reference's xorshift seed) finds the point most lines pass near, and least squares over the
/// winner's inliers refines it. A field that converges on the point instead of leaving it
/// (an overtaking vehicle filling the view, or reversing) is refused.
/// Why a frame pair gave no focus of expansion (`MountCalibrator.Outcome.rejected`).
public enum FocusOfExpansionFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// Too few usable flow vectors to start (`count` of the `needed`).
    case tooFewVectors(count: Int, needed: Int)
    /// No candidate point gathered enough inlier lines.
    case noConsensus(bestInliers: Int)
    /// The flow converges on the candidate: contracting, not expanding.
    case contracting(expandingShare: Double)

    public var description: String {
        switch self {
        case .tooFewVectors(let count, let needed): "\(count) usable flow vectors, \(needed) needed"
        case .noConsensus(let best): "no consensus (best candidate had \(best) inliers)"
        case .contracting(let share): "contracting flow (\(Int((share * 100).rounded())) % expanding)"
        }
    }
}

package struct FocusOfExpansion: Sendable, Hashable {
    /// RANSAC iterations.
    package var iterations = 200
    /// Distance of an inlier line from the candidate, pixels.
    package var inlierThreshold = 2.0
    /// Fewest inliers for an estimate.
    package var minimumInliers = 30
    /// Share of inliers that must stream away from the estimate.
    package var minimumExpandingShare = 0.6

    /// A default estimator (the reference constants).
    package init() {}

    /// An estimate: the point, its inlier count and the share of inliers moving away from it.
    package struct Estimate: Sendable, Hashable {
        /// The focus of expansion, pixels of the working image.
        package var point: SIMD2<Double>
        package var inliers: Int
        package var expandingShare: Double
    }

    /// Why a pair gave no estimate.
    package typealias Failure = FocusOfExpansionFailure

    /// Rotational flow removed: for each sample at `(x, y)` from the principal point and a rotation
    /// `θ = ω_cam · dt` about the camera's (right, down, forward) axes,
    /// `u_rot = θx·x·y/fx − θy·(fx + x²/fx) + θz·y`, `v_rot = θx·(fy + y²/fy) − θy·x·y/fy − θz·x`.
    static func derotated(
        _ samples: [FlowSample], rotation theta: SIMD3<Double>, fx: Double, fy: Double, cx: Double, cy: Double
    ) -> [FlowSample] {
        samples.map { s in
            let x = s.position.x - cx, y = s.position.y - cy
            let u = theta.x * x * y / fx - theta.y * (fx + x * x / fx) + theta.z * y
            let v = theta.x * (fy + y * y / fy) - theta.y * x * y / fy - theta.z * x
            return FlowSample(position: s.position, flow: s.flow - SIMD2(u, v))
        }
    }

    /// The focus of expansion of `samples`, searched within four focal lengths of the principal point.
    package func estimate(_ samples: [FlowSample], fx: Double, fy: Double, cx: Double, cy: Double) -> Result<Estimate, Failure> {
        // Lines n·p = offset through each point along its flow; zero vectors carry no direction.
        var normals: [SIMD2<Double>] = [], offsets: [Double] = [], kept: [FlowSample] = []
        for s in samples {
            let length = (s.flow * s.flow).sum().squareRoot()
            guard length > 1e-6, length.isFinite, s.position.x.isFinite, s.position.y.isFinite else { continue }
            let n = SIMD2(-s.flow.y, s.flow.x) / length
            normals.append(n)
            offsets.append((n * s.position).sum())
            kept.append(s)
        }
        let needed = 3 * minimumInliers
        guard kept.count > needed else { return .failure(.tooFewVectors(count: kept.count, needed: needed + 1)) }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Int(state % UInt64(kept.count))
        }
        func votes(_ c: SIMD2<Double>) -> Int {
            var count = 0
            for i in normals.indices where abs((normals[i] * c).sum() - offsets[i]) < inlierThreshold { count += 1 }
            return count
        }
        var best: SIMD2<Double>?, bestVotes = 0
        for _ in 0..<iterations {
            let a = next(), b = next()
            if a == b { continue }
            let na = normals[a], nb = normals[b]
            let det = na.x * nb.y - na.y * nb.x
            if abs(det) <= 0.05 { continue }
            let c = SIMD2((offsets[a] * nb.y - na.y * offsets[b]) / det, (na.x * offsets[b] - offsets[a] * nb.x) / det)
            if abs(c.x - cx) >= 4 * fx || abs(c.y - cy) >= 4 * fy { continue }
            let v = votes(c)
            if v > bestVotes {
                bestVotes = v
                best = c
            }
        }
        guard var point = best, bestVotes >= minimumInliers else { return .failure(.noConsensus(bestInliers: bestVotes)) }
        // Least squares over the winner's inliers: (Σ n nᵀ) c = Σ n·offset.
        var m = SIMD3<Double>.zero, r = SIMD2<Double>.zero, inliers: [Int] = []
        for i in normals.indices where abs((normals[i] * point).sum() - offsets[i]) < inlierThreshold {
            let n = normals[i]
            m += SIMD3(n.x * n.x, n.x * n.y, n.y * n.y)
            r += n * offsets[i]
            inliers.append(i)
        }
        let det = m.x * m.z - m.y * m.y
        if inliers.count >= minimumInliers, abs(det) > 1e-9 {
            let refit = SIMD2((m.z * r.x - m.y * r.y) / det, (m.x * r.y - m.y * r.x) / det)
            if refit.x.isFinite && refit.y.isFinite { point = refit }
        }
        let expanding = inliers.filter { ((kept[$0].position - point) * kept[$0].flow).sum() > 0 }.count
        let share = inliers.isEmpty ? 0 : Double(expanding) / Double(inliers.count)
        guard share >= minimumExpandingShare else { return .failure(.contracting(expandingShare: share)) }
        return .success(Estimate(point: point, inliers: inliers.count, expandingShare: share))
    }
}
