import Foundation
import PeripheryCore

/// A grey image of float intensities (0–255), row-major.
package struct GreyImage: Sendable, Hashable {
    /// Size in pixels, and the intensities row by row.
    package let width: Int
    package let height: Int
    package var pixels: [Float]

    /// A black image.
    package init(width: Int, height: Int) {
        precondition(width > 0 && height > 0, "empty grey image")
        self.width = width
        self.height = height
        pixels = [Float](repeating: 0, count: width * height)
    }

    /// The luma of `image` scaled to `width` pixels wide (height in proportion, rounded): each
    /// output pixel is the mean of the source pixels its footprint covers (box filter), so
    /// downscaling does not alias.
    package init(_ image: RGBImage, width: Int) {
        self.init(
            bytes: image.pixels, width: image.width, height: image.height, rowStride: image.width * 3,
            bytesPerPixel: 3, channels: (0, 1, 2), outputWidth: width)
    }

    /// The luma of interleaved 8-bit pixels (`channels`: byte offsets of red, green and blue in a
    /// pixel) scaled to `outputWidth` pixels wide, as `init(_:width:)` does.
    package init(
        bytes: [UInt8], width sourceWidth: Int, height sourceHeight: Int, rowStride: Int, bytesPerPixel: Int,
        channels: (red: Int, green: Int, blue: Int), outputWidth width: Int
    ) {
        precondition(bytes.count >= (sourceHeight - 1) * rowStride + sourceWidth * bytesPerPixel, "pixel buffer too small")
        let height = max(1, Int((Double(sourceHeight) * Double(width) / Double(sourceWidth)).rounded()))
        self.init(width: width, height: height)
        let sx = Double(sourceWidth) / Double(width), sy = Double(sourceHeight) / Double(height)
        bytes.withUnsafeBufferPointer { src in
            for y in 0..<height {
                let y0 = Int(Double(y) * sy), y1 = max(y0 + 1, min(sourceHeight, Int(Double(y + 1) * sy)))
                for x in 0..<width {
                    let x0 = Int(Double(x) * sx), x1 = max(x0 + 1, min(sourceWidth, Int(Double(x + 1) * sx)))
                    var sum: Float = 0
                    for yy in y0..<y1 {
                        var i = yy * rowStride + x0 * bytesPerPixel
                        for _ in x0..<x1 {
                            sum +=
                                0.299 * Float(src[i + channels.red]) + 0.587 * Float(src[i + channels.green])
                                + 0.114 * Float(src[i + channels.blue])
                            i += bytesPerPixel
                        }
                    }
                    pixels[y * width + x] = sum / Float((y1 - y0) * (x1 - x0))
                }
            }
        }
    }

    /// Half the size, each pixel the mean of a 2 × 2 block (odd edges dropped).
    func halved() -> GreyImage {
        var out = GreyImage(width: max(1, width / 2), height: max(1, height / 2))
        for y in 0..<out.height {
            for x in 0..<out.width {
                let i = 2 * y * width + 2 * x
                out.pixels[y * out.width + x] = 0.25 * (pixels[i] + pixels[i + 1] + pixels[i + width] + pixels[i + width + 1])
            }
        }
        return out
    }
}

/// An image pyramid with the central-difference gradients of every level, built once per frame
/// and used both as the first and as the second image of a pair.
package struct GreyPyramid: Sendable {
    /// Level 0 is the full image; each next level is half the size.
    package let levels: [GreyImage]
    let gradientX: [[Float]]
    let gradientY: [[Float]]

    /// Builds `count` levels from `base`.
    package init(_ base: GreyImage, levels count: Int = 3) {
        var levels = [base]
        while levels.count < count, let last = levels.last, last.width >= 16, last.height >= 16 { levels.append(last.halved()) }
        self.levels = levels
        gradientX = levels.map { level in
            var g = [Float](repeating: 0, count: level.pixels.count)
            for y in 0..<level.height {
                for x in 1..<max(1, level.width - 1) {
                    let i = y * level.width + x
                    g[i] = 0.5 * (level.pixels[i + 1] - level.pixels[i - 1])
                }
            }
            return g
        }
        gradientY = levels.map { level in
            var g = [Float](repeating: 0, count: level.pixels.count)
            for y in 1..<max(1, level.height - 1) {
                for x in 0..<level.width {
                    let i = y * level.width + x
                    g[i] = 0.5 * (level.pixels[i + level.width] - level.pixels[i - level.width])
                }
            }
            return g
        }
    }
}

/// Sparse pyramidal Lucas–Kanade optical flow on a regular grid, with a forward–backward check.
///
/// For each grid point the displacement minimising the squared intensity difference over a
/// `(2·halfWindow + 1)²` window is found coarse to fine (Gauss–Newton, bilinear sampling); it is
/// kept only when tracking the end point back lands within `forwardBackwardLimit` of the start,
/// the window has texture in both directions (structure tensor's smaller eigenvalue), and the
/// vector is at least `minimumFlow` long. Scratch is allocated once per call, never per point.
package struct SparseOpticalFlow: Sendable, Hashable {
    /// Grid spacing, pixels.
    package var gridStride = 4
    /// Half the side of the matching window, pixels.
    package var halfWindow = 4
    /// Gauss–Newton steps per level at most.
    package var iterations = 10
    /// Largest forward–backward round-trip error kept, pixels.
    package var forwardBackwardLimit = 0.5
    /// Shortest vector kept, pixels (the reference's 1.5).
    package var minimumFlow = 1.5
    /// Smallest eigenvalue of the window's structure tensor per pixel, grey levels².
    package var minimumTexture: Float = 4

    /// The default tracker.
    package init() {}

    /// Flow from `first` to `second` (same size) at the grid points.
    ///
    /// Positions are image coordinates in the convention of `CameraIntrinsics` — pixel (i, j)
    /// covers [i, i + 1) × [j, j + 1), its centre at (i + 0.5, j + 0.5) — so that they meet the
    /// principal point as the camera model does; the half pixel, left out, would tilt the focus of
    /// expansion by 0.5/f (0.07° at f = 400).
    package func flow(from first: GreyPyramid, to second: GreyPyramid) -> [FlowSample] {
        let base = first.levels[0]
        precondition(base.width == second.levels[0].width && base.height == second.levels[0].height, "frames differ in size")
        var samples: [FlowSample] = []
        var scratch = Scratch(side: 2 * halfWindow + 1)
        let margin = halfWindow + 1
        for y in stride(from: margin, to: base.height - margin, by: gridStride) {
            for x in stride(from: margin, to: base.width - margin, by: gridStride) {
                let p = SIMD2(Double(x), Double(y))
                guard let forward = track(p, from: first, to: second, scratch: &scratch) else { continue }
                let length = (forward * forward).sum().squareRoot()
                guard length >= minimumFlow, let back = track(p + forward, from: second, to: first, guess: -forward, scratch: &scratch) else { continue }
                let error = forward + back
                guard (error * error).sum().squareRoot() <= forwardBackwardLimit else { continue }
                samples.append(FlowSample(position: p + 0.5, flow: forward))
            }
        }
        return samples
    }

    /// The displacement of point `p` (level-0 pixels) from `a` to `b`, or nil where the window is
    /// textureless, leaves the image or does not settle.
    func track(
        _ p: SIMD2<Double>, from a: GreyPyramid, to b: GreyPyramid, guess: SIMD2<Double> = .zero, scratch: inout Scratch
    ) -> SIMD2<Double>? {
        let levels = min(a.levels.count, b.levels.count)
        var d = guess / Double(1 << (levels - 1))
        let side = 2 * halfWindow + 1
        for level in stride(from: levels - 1, through: 0, by: -1) {
            let scale = Double(1 << level)
            let image = a.levels[level], target = b.levels[level]
            let q = p / scale
            let h = Double(halfWindow)
            guard q.x - h >= 0, q.y - h >= 0, q.x + h <= Double(image.width - 1), q.y + h <= Double(image.height - 1) else { return nil }
            // Template and gradients at the (integer at level 0, else interpolated) window of `a`.
            var sxx: Float = 0, sxy: Float = 0, syy: Float = 0
            var k = 0
            for wy in -halfWindow...halfWindow {
                for wx in -halfWindow...halfWindow {
                    let sx = q.x + Double(wx), sy = q.y + Double(wy)
                    scratch.template[k] = SparseOpticalFlow.sample(image.pixels, image.width, sx, sy)
                    scratch.gx[k] = SparseOpticalFlow.sample(a.gradientX[level], image.width, sx, sy)
                    scratch.gy[k] = SparseOpticalFlow.sample(a.gradientY[level], image.width, sx, sy)
                    sxx += scratch.gx[k] * scratch.gx[k]
                    sxy += scratch.gx[k] * scratch.gy[k]
                    syy += scratch.gy[k] * scratch.gy[k]
                    k += 1
                }
            }
            let n = Float(side * side)
            let det = sxx * syy - sxy * sxy
            let minEigen = ((sxx + syy) - ((sxx - syy) * (sxx - syy) + 4 * sxy * sxy).squareRoot()) / (2 * n)
            guard det > 1e-6, minEigen >= minimumTexture else { return nil }
            for _ in 0..<iterations {
                let c = q + d
                guard c.x - h >= 0, c.y - h >= 0, c.x + h <= Double(target.width - 1), c.y + h <= Double(target.height - 1) else { return nil }
                var bx: Float = 0, by: Float = 0
                k = 0
                for wy in -halfWindow...halfWindow {
                    for wx in -halfWindow...halfWindow {
                        let diff = SparseOpticalFlow.sample(target.pixels, target.width, c.x + Double(wx), c.y + Double(wy)) - scratch.template[k]
                        bx += diff * scratch.gx[k]
                        by += diff * scratch.gy[k]
                        k += 1
                    }
                }
                let step = SIMD2(Double((-syy * bx + sxy * by) / det), Double((sxy * bx - sxx * by) / det))
                d += step
                if (step * step).sum() < 1e-4 { break }
            }
            if level > 0 { d *= 2 }
        }
        return d.x.isFinite && d.y.isFinite ? d : nil
    }

    /// The window's template and gradients, reused across the points of one call.
    struct Scratch {
        var template: [Float], gx: [Float], gy: [Float]

        init(side: Int) {
            template = [Float](repeating: 0, count: side * side)
            gx = template
            gy = template
        }
    }

    /// Bilinear sample of a row-major plane; the caller keeps (x, y) inside.
    @inline(__always)
    static func sample(_ plane: [Float], _ width: Int, _ x: Double, _ y: Double) -> Float {
        let x0 = Int(x), y0 = Int(y)
        let fx = Float(x - Double(x0)), fy = Float(y - Double(y0))
        let i = y0 * width + x0
        let x1 = fx > 0 ? 1 : 0, y1 = fy > 0 ? width : 0
        let top = plane[i] + fx * (plane[i + x1] - plane[i])
        let bottom = plane[i + y1] + fx * (plane[i + y1 + x1] - plane[i + y1])
        return top + fy * (bottom - top)
    }
}
