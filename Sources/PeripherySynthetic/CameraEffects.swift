import Foundation
import PeripheryCore
import PeripheryGeometry
import PeripheryIO

/// What a real camera does to the light before a frame reaches the network, as the structured world
/// renders it: the car's hood in view, sun glare, vignetting, motion blur, an unmodelled lens
/// distortion, exposure and contrast, sensor noise and JPEG compression.
///
/// The effects change the picture and, where they hide a vehicle (the hood) or move it (the lens),
/// the id buffer the labels are counted from; they never change the 3-D labels. The frame's
/// calibration stays the pinhole it was rendered with: `radialDistortion` is the error a user's
/// uncorrected lens leaves, which the network should tolerate.
public struct CameraEffects: Sendable, Hashable {
    /// Gain on the light before the tone curve; above 1 over-exposes (bright skies clip).
    public var exposure: Double = 1
    /// Slope of the tone curve at mid grey (1: linear).
    public var contrast: Double = 1
    /// Share of the light lost in the frame's corners (0: none).
    public var vignetting: Double = 0
    /// Strength of the halo around the sun and of the veil it lays over the frame (0: none).
    public var glare: Double = 0
    /// Length of the radial smear of forward motion at the frame's corner, pixels (0: none).
    public var motionBlur: Double = 0
    /// `k1` of OpenCV's radial model in normalised coordinates (negative: barrel), which the
    /// calibration does not carry.
    public var radialDistortion: Double = 0
    /// The ego car's hood across the bottom of the frame, if it is in view.
    public var hood: Hood?
    /// Standard deviation of the sensor noise at mid grey, 8-bit levels; it grows with the light.
    public var sensorNoise: Double = 2
    /// JPEG quality the frame is compressed with (1–100), or `nil` for none.
    public var jpegQuality: Int?

    /// The ego car's hood as the camera sees it.
    public struct Hood: Sendable, Hashable {
        /// Height of the hood's top edge above the frame's bottom at the centre, as a share of the
        /// frame height.
        public var height: Double
        /// How much lower the edge is at the frame's sides, as a share of the frame height.
        public var droop: Double
        /// Paint colour, linear RGB in 0…1.
        public var colour: SIMD3<Double>

        /// Creates a hood.
        public init(height: Double, droop: Double, colour: SIMD3<Double>) {
            self.height = height
            self.droop = droop
            self.colour = colour
        }
    }

    /// No effect but the default sensor noise.
    public init() {}

    /// The pinhole camera to render the scene through so that the lens has light to draw on: wider
    /// than `intrinsics` by the margin a barrel distortion pulls in from beyond the frame, with the
    /// same focal length and principal point.
    func renderingIntrinsics(for intrinsics: CameraIntrinsics) -> CameraIntrinsics {
        guard radialDistortion < 0 else { return intrinsics }
        let k = intrinsics
        let reach = max(k.cx, Double(k.width) - k.cx) / k.fx, rise = max(k.cy, Double(k.height) - k.cy) / k.fy
        let scale = 1 - radialDistortion * (reach * reach + rise * rise)
        let padX = Int(((scale - 1) * reach * k.fx).rounded(.up)) + 2, padY = Int(((scale - 1) * rise * k.fy).rounded(.up)) + 2
        return
            (try? CameraIntrinsics(
                fx: k.fx, fy: k.fy, cx: k.cx + Double(padX), cy: k.cy + Double(padY), width: k.width + 2 * padX, height: k.height + 2 * padY))
            ?? intrinsics
    }

    /// Turns scene light into the camera's picture, and the id buffer rendered with it into the
    /// frame's, for what the lens moves and the hood hides.
    ///
    /// - Parameters:
    ///   - light: linear light per pixel, row-major, through `rendered` (`renderingIntrinsics`).
    ///   - sunPixel: where the sun is in the frame's pixel coordinates (it may lie outside), if in
    ///     front of the camera.
    func develop(
        _ light: [SIMD3<Double>], ids: inout [Int32], rendered: CameraIntrinsics, intrinsics: CameraIntrinsics, sunPixel: SIMD2<Double>?,
        sky: SIMD3<Double>, seed: UInt64
    ) -> RGBImage {
        let width = intrinsics.width, height = intrinsics.height
        var light = light
        if radialDistortion != 0 || rendered != intrinsics {
            (light, ids) = throughLens(light, ids: ids, rendered: rendered, intrinsics: intrinsics)
        }
        if let hood { paint(hood, into: &light, ids: &ids, width: width, height: height, sky: sky) }
        let centre = SIMD2(intrinsics.cx, intrinsics.cy)
        let corner = (centre * centre).sum().squareRoot() + 1
        if glare > 0 || vignetting > 0 {
            let veil = SIMD3<Double>(repeating: 0.04 * glare)
            for row in 0..<height {
                for column in 0..<width {
                    let p = SIMD2(Double(column) + 0.5, Double(row) + 0.5)
                    var value = light[row * width + column]
                    if glare > 0, let sunPixel {
                        let r = p - sunPixel
                        let r2 = (r * r).sum() / (intrinsics.fx * intrinsics.fx)
                        value += SIMD3(1, 0.95, 0.85) * (glare * 0.03 / (r2 + 0.03)) + veil
                    }
                    if vignetting > 0 {
                        let r = p - centre
                        value *= 1 - vignetting * min(1, (r * r).sum() / (corner * corner))
                    }
                    light[row * width + column] = value
                }
            }
        }
        if motionBlur > 0 { light = smearRadially(light, width: width, height: height, centre: centre, corner: corner) }
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for index in 0..<(width * height) {
            let h = SyntheticRandom.hash(seed, index, 11)
            for channel in 0..<3 {
                var v = light[index][channel] * exposure
                v = 0.5 + (v - 0.5) * contrast
                let bits = h >> UInt64(channel * 21)
                let noise = (Double(bits & 0x7F) + Double((bits >> 7) & 0x7F) + Double((bits >> 14) & 0x7F)) / 127 - 1.5
                let level = v * 255 + noise * 2 * sensorNoise * (0.5 + max(0, min(1, v)).squareRoot())
                pixels[index * 3 + channel] = UInt8(max(0, min(255, level.rounded())))
            }
        }
        let image = RGBImage(width: width, height: height, pixels: pixels) ?? RGBImage(width: width, height: height)
        guard let quality = jpegQuality,
            let bytes = try? ImageFile.encodeJPEG(image, quality: quality),
            let compressed = try? ImageFile.decode(bytes, name: "synthetic frame")
        else { return image }
        return compressed
    }

    /// Paints the hood over the bottom of the frame: its paint, darker towards the lens, with the
    /// sky reflected near its edge; vehicles behind it are hidden.
    private func paint(
        _ hood: Hood, into light: inout [SIMD3<Double>], ids: inout [Int32], width: Int, height: Int, sky: SIMD3<Double>
    ) {
        let h = Double(height)
        for column in 0..<width {
            let x = (Double(column) + 0.5) / Double(width) * 2 - 1
            let top = h * (1 - hood.height + hood.droop * x * x)
            let first = max(0, Int(top.rounded(.up)))
            guard first < height else { continue }
            for row in first..<height {
                let depth = (Double(row) + 0.5 - top) / max(1, h * hood.height)
                let reflection = max(0, 0.35 - 0.5 * depth)
                light[row * width + column] = hood.colour * (0.75 - 0.3 * depth) + sky * reflection
                ids[row * width + column] = -1
            }
        }
    }

    /// Averages each pixel with five samples along the line towards the principal point, over a
    /// length that grows linearly from the centre to `motionBlur` at the corner.
    private func smearRadially(
        _ light: [SIMD3<Double>], width: Int, height: Int, centre: SIMD2<Double>, corner: Double
    ) -> [SIMD3<Double>] {
        var result = light
        let samples = 5
        for row in 0..<height {
            for column in 0..<width {
                let p = SIMD2(Double(column) + 0.5, Double(row) + 0.5)
                let r = p - centre
                let length = motionBlur * (r * r).sum().squareRoot() / corner
                guard length >= 0.5 else { continue }
                let step = r / max(1e-9, (r * r).sum().squareRoot()) * (length / Double(samples - 1))
                var sum = SIMD3<Double>.zero
                for k in 0..<samples {
                    let q = p - step * Double(k)
                    let x = min(width - 1, max(0, Int(q.x))), y = min(height - 1, max(0, Int(q.y)))
                    sum += light[y * width + x]
                }
                result[row * width + column] = sum / Double(samples)
            }
        }
        return result
    }

    /// Resamples the rendered light through the lens into the frame: each frame pixel shows the
    /// light of the pinhole pixel that the radial model puts there (bilinear), and the id of the
    /// nearest one.
    private func throughLens(
        _ source: [SIMD3<Double>], ids sourceIDs: [Int32], rendered r: CameraIntrinsics, intrinsics k: CameraIntrinsics
    ) -> ([SIMD3<Double>], [Int32]) {
        let width = k.width, height = k.height, sourceWidth = r.width
        var light = [SIMD3<Double>](repeating: .zero, count: width * height)
        var ids = [Int32](repeating: -1, count: width * height)
        for row in 0..<height {
            for column in 0..<width {
                let xd = (Double(column) + 0.5 - k.cx) / k.fx, yd = (Double(row) + 0.5 - k.cy) / k.fy
                // First-order inverse of xd = xu (1 + k1 ru²).
                let scale = 1 - radialDistortion * (xd * xd + yd * yd)
                let u: Double = xd * scale * r.fx + r.cx - 0.5
                let v: Double = yd * scale * r.fy + r.cy - 0.5
                guard u >= 0, v >= 0, u <= Double(sourceWidth - 1), v <= Double(r.height - 1) else { continue }
                let x0 = Int(u), y0 = Int(v), x1 = min(sourceWidth - 1, x0 + 1), y1 = min(r.height - 1, y0 + 1)
                let fx = u - Double(x0), fy = v - Double(y0)
                let a: SIMD3<Double> = source[y0 * sourceWidth + x0], b: SIMD3<Double> = source[y0 * sourceWidth + x1]
                let c: SIMD3<Double> = source[y1 * sourceWidth + x0], d: SIMD3<Double> = source[y1 * sourceWidth + x1]
                let top: SIMD3<Double> = a * (1 - fx) + b * fx
                let bottom: SIMD3<Double> = c * (1 - fx) + d * fx
                light[row * width + column] = top * (1 - fy) + bottom * fy
                ids[row * width + column] = sourceIDs[Int(v.rounded()) * sourceWidth + Int(u.rounded())]
            }
        }
        return (light, ids)
    }
}
