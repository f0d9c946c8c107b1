import Foundation
import PeripheryCore
import PeripheryGeometry
import PeripheryIO

/// Renders synthetic scenes by casting one ray per pixel against the road plane and every box.
///
/// The output is deterministic: the same scene, camera and options always give the same bytes.
public struct SceneRenderer: Sendable, Hashable {
    /// Rendering options.
    public struct Options: Sendable, Hashable {
        /// Amplitude of the world-fixed texture noise, relative to the surface colour.
        public var textureNoise: Double
        /// Standard deviation of the per-pixel sensor noise, 8-bit levels.
        public var sensorNoise: Double
        /// Whether to jitter exposure (±15 %) and white balance (±6 % per channel) from the seed.
        public var photometricJitter: Bool
        /// Mixed with the scene seed to seed noise and jitter.
        public var noiseSeed: UInt64
        /// Smallest number of visible pixels for a label to count as visible.
        public var minimumVisiblePixels: Int
        /// Distance at which the haze reaches about 63 %, metres.
        public var hazeDistance: Double
        /// Standard deviation of a Gaussian blur applied to the finished picture (defocus, motion),
        /// pixels; 0 for none. Labels are unaffected.
        public var blurSigma: Double = 0

        /// Creates options; the defaults give mild noise and jitter.
        public init(
            textureNoise: Double = 0.06, sensorNoise: Double = 2.0, photometricJitter: Bool = true,
            noiseSeed: UInt64 = 0, minimumVisiblePixels: Int = LabelledFrame.minimumViewPixels, hazeDistance: Double = 400
        ) {
            self.textureNoise = textureNoise
            self.sensorNoise = sensorNoise
            self.photometricJitter = photometricJitter
            self.noiseSeed = noiseSeed
            self.minimumVisiblePixels = minimumVisiblePixels
            self.hazeDistance = hazeDistance
        }

        /// No noise and no jitter.
        static let clean = Options(textureNoise: 0, sensorNoise: 0, photometricJitter: false)
    }

    /// The options in use.
    public var options: Options

    /// Creates a renderer.
    public init(options: Options = Options()) { self.options = options }

    /// Renders a scene through a camera and labels its vehicles.
    public func render(_ scene: SyntheticScene, intrinsics: CameraIntrinsics, pose: MountPose) -> SyntheticFrame {
        if let appearance = scene.appearance {
            return renderStructured(scene, appearance: appearance, intrinsics: intrinsics, pose: pose)
        }
        let camera = RayCamera(intrinsics: intrinsics, pose: pose)
        let width = intrinsics.width, height = intrinsics.height
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        var ids = [Int32](repeating: -1, count: width * height)
        let seed = SyntheticRandom.mix(scene.seed ^ SyntheticRandom.mix(options.noiseSeed &+ 0x5EED))
        // A drive's textures must not change from frame to frame; its sensor noise must.
        let textureSeed = scene.placement.map { SyntheticRandom.mix($0.textureSeed) } ?? seed
        let gain = photometricGain(seed: seed)
        let labeller = SceneLabeller(camera: camera, minimumVisiblePixels: options.minimumVisiblePixels)
        let geometry = SceneGeometry(scene, labeller: labeller)
        for row in 0..<height {
            let candidates = geometry.candidates(row: row)
            for column in 0..<width {
                let d = camera.direction(column, row)
                let hit = geometry.trace(from: camera.centre, direction: d, column: column, candidates: candidates)
                let index = row * width + column
                ids[index] = hit.vehicle
                let colour = shade(hit, origin: camera.centre, direction: d, scene: scene, shadows: geometry.shadows, textureSeed: textureSeed)
                write(colour * gain * 255, noiseSeed: seed, at: index, into: &pixels)
            }
        }
        if options.blurSigma > 0 { SceneRenderer.blur(&pixels, width: width, height: height, sigma: options.blurSigma) }
        let image = RGBImage(width: width, height: height, pixels: pixels) ?? RGBImage(width: width, height: height)
        let labels = labeller.labels(scene, vehicleIDs: ids)
        return SyntheticFrame(image: image, vehicleIDs: ids, labels: labels)
    }

    /// The frame's colour gain: a brightness and white-balance draw when jitter is on, else 1.
    private func photometricGain(seed: UInt64) -> SIMD3<Double> {
        guard options.photometricJitter else { return SIMD3(repeating: 1) }
        var rng = SyntheticRandom(seed: seed)
        return SIMD3(repeating: rng.uniform(0.85, 1.15)) * SIMD3(rng.uniform(0.94, 1.06), 1, rng.uniform(0.94, 1.06))
    }

    /// The colour a ray sees: the box it hit, else the ground, else the sky, hazed with distance.
    private func shade(
        _ hit: RayHit, origin: SIMD3<Double>, direction d: SIMD3<Double>, scene: SyntheticScene, shadows: [ShadowCaster],
        textureSeed: UInt64
    ) -> SIMD3<Double> {
        var colour: SIMD3<Double>
        if let box = hit.box, let info = hit.info {
            colour = shadeBox(box, hit: info, point: origin + info.t * d, scene: scene, seed: textureSeed)
        } else if hit.t.isFinite {
            colour = shadeGround(origin + hit.t * d, scene: scene, shadows: shadows, seed: textureSeed)
        } else {
            colour = sky(d, scene: scene)
        }
        if hit.t.isFinite {
            let haze = 1 - exp(-hit.t * (d * d).sum().squareRoot() / options.hazeDistance)
            colour = colour * (1 - haze) + scene.skyHorizon * haze
        }
        return colour
    }

    /// Adds the sensor noise of pixel `index` to `value` (0…255 scale) and stores it as bytes.
    private func write(_ value: SIMD3<Double>, noiseSeed seed: UInt64, at index: Int, into pixels: inout [UInt8]) {
        var value = value
        if options.sensorNoise > 0 {
            let h = SyntheticRandom.hash(seed, index, 7)
            for channel in 0..<3 {
                let bits = h >> UInt64(channel * 21)
                let a = Double(bits & 0x7F) / 127, b = Double((bits >> 7) & 0x7F) / 127
                let c = Double((bits >> 14) & 0x7F) / 127
                value[channel] += (a + b + c - 1.5) * 2 * options.sensorNoise
            }
        }
        for channel in 0..<3 {
            pixels[index * 3 + channel] = UInt8(max(0, min(255, value[channel].rounded())))
        }
    }

    /// Separable Gaussian blur of interleaved RGB8 in place, edges clamped.
    static func blur(_ pixels: inout [UInt8], width: Int, height: Int, sigma: Double) {
        let radius = max(1, Int((3 * sigma).rounded(.up)))
        var taps = (-radius...radius).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = taps.reduce(0, +)
        taps = taps.map { $0 / total }
        var plane = pixels.map(Double.init), temp = plane
        for (stride, count, lines, lineStride) in [(3, width, height, width * 3), (width * 3, height, width, 3)] {
            for line in 0..<lines {
                for i in 0..<count {
                    for c in 0..<3 {
                        var sum = 0.0
                        for (k, tap) in taps.enumerated() {
                            let j = min(max(i + k - radius, 0), count - 1)
                            sum += tap * plane[line * lineStride + j * stride + c]
                        }
                        temp[line * lineStride + i * stride + c] = sum
                    }
                }
            }
            swap(&plane, &temp)
        }
        for i in pixels.indices { pixels[i] = UInt8(max(0, min(255, plane[i].rounded()))) }
    }

    /// Lambert shading of a box face, with glass bands and texture noise.
    func shadeBox(_ box: SyntheticBox, hit: BoxHit, point: SIMD3<Double>, scene: SyntheticScene, seed: UInt64)
        -> SIMD3<Double>
    {
        let n = box.normal(of: hit)
        let lambert = 0.38 + 0.62 * max(0, (n * scene.sunDirection).sum())
        var base = box.colour
        if let band = box.glassBand, hit.axis != 2, band.contains(point.z) {
            base = SIMD3(0.07, 0.09, 0.12) + 0.25 * scene.skyHorizon * (n.z > 0.5 ? 1 : 0.6)
        } else if !box.isRubber, options.textureNoise > 0 {
            let point = scene.placement?.world(point) ?? point
            let h = SyntheticRandom.hash(
                seed, Int((point.x * 10).rounded(.down)) &+ Int((point.z * 10).rounded(.down)) &* 7919,
                Int((point.y * 10).rounded(.down)))
            base *= 1 + options.textureNoise * 0.5 * (SyntheticRandom.unit(h) - 0.5)
        }
        return base * lambert
    }

    /// The road plane's colour at a point, with texture and vehicle contact shadows.
    func shadeGround(_ vehicleFrame: SIMD3<Double>, scene: SyntheticScene, shadows: [ShadowCaster], seed: UInt64) -> SIMD3<Double> {
        var base: SIMD3<Double>
        let road: SIMD2<Double>
        var p = vehicleFrame
        if let placement = scene.placement {
            p = placement.world(p)
            road = placement.centreline.roadCoordinates(of: SIMD2(p.x, p.y), window: placement.window)
        } else {
            road = SIMD2(p.x, p.y)
        }
        switch scene.road.surface(x: road.x, y: road.y) {
        case .asphalt: base = scene.asphalt
        case .marking: base = scene.paint
        case .verge: base = scene.verge
        }
        if options.textureNoise > 0 {
            let fine = SyntheticRandom.unit(SyntheticRandom.hash(seed, Int((p.x * 20).rounded(.down)), Int((p.y * 20).rounded(.down))))
            let coarse = SyntheticRandom.unit(SyntheticRandom.hash(seed &+ 1, Int((p.x * 0.5).rounded(.down)), Int((p.y * 1).rounded(.down))))
            base *= 1 + options.textureNoise * ((fine - 0.5) + 0.6 * (coarse - 0.5))
        }
        var light = 0.38 + 0.62 * max(0, scene.sunDirection.z)
        for caster in shadows { light *= caster.attenuation(at: SIMD2(vehicleFrame.x, vehicleFrame.y)) }
        return base * light
    }

    /// Sky gradient from horizon to zenith, with a sun glow.
    func sky(_ d: SIMD3<Double>, scene: SyntheticScene) -> SIMD3<Double> {
        let unit = d / (d * d).sum().squareRoot()
        let e = min(1, max(0, unit.z * 3))
        var colour = scene.skyHorizon * (1 - e) + scene.skyTop * e
        let glow = max(0, (unit * scene.sunDirection).sum())
        colour += SIMD3(repeating: 0.35 * pow(glow, 64))
        return colour
    }
}

/// A projected box's pixel rectangle, grown by one pixel on every side.
struct ScreenRect: Sendable {
    let minX: Double, minY: Double, maxX: Double, maxY: Double

    init(_ r: SIMD4<Double>) {
        minX = r.x - 1
        minY = r.y - 1
        maxX = r.z + 1
        maxY = r.w + 1
    }

    @inline(__always) func coversRow(_ v: Double) -> Bool { v >= minY && v <= maxY }
    @inline(__always) func coversColumn(_ u: Double) -> Bool { u >= minX && u <= maxX }
}

/// A vehicle's soft contact shadow on the road: its footprint, grown slightly and pushed away
/// from the sun.
struct ShadowCaster: Sendable {
    let centre: SIMD2<Double>
    let axis: SIMD2<Double>
    let half: SIMD2<Double>

    init(_ vehicle: SyntheticVehicle, sun: SIMD3<Double>) {
        let shift = -SIMD2(sun.x, sun.y) / max(sun.z, 0.3) * min(vehicle.size.z, 2.0) * 0.25
        centre = SIMD2(vehicle.x, vehicle.y) + shift
        axis = SIMD2(cos(vehicle.yaw), sin(vehicle.yaw))
        half = SIMD2(vehicle.size.x / 2 + 0.15, vehicle.size.y / 2 + 0.15)
    }

    /// Light factor at a ground point: 0.45 well inside, rising to 1 over 0.3 m outside.
    @inline(__always)
    func attenuation(at p: SIMD2<Double>) -> Double {
        let r = p - centre
        let along = abs(r.x * axis.x + r.y * axis.y) - half.x
        let across = abs(-r.x * axis.y + r.y * axis.x) - half.y
        let outside = max(along, across)
        if outside >= 0.3 { return 1 }
        if outside <= 0 { return 0.45 }
        return 0.45 + 0.55 * outside / 0.3
    }
}

/// Pixel rays of a pinhole camera in the vehicle frame, the exact inverse of
/// `CameraCalibration.sourcePoint`.
struct RayCamera: Sendable {
    let intrinsics: CameraIntrinsics
    let centre: SIMD3<Double>
    /// `(S·R)ᵀ`: image-axis directions to vehicle directions.
    let imageToVehicle: Matrix3
    /// `K·S·R`: vehicle directions to homogeneous pixels.
    let vehicleToPixel: Matrix3

    init(intrinsics: CameraIntrinsics, pose: MountPose) {
        self.intrinsics = intrinsics
        centre = pose.cameraCentre
        let sr = CoordinateFrames.sensorToImageAxes * pose.vehicleToSensorRotation
        imageToVehicle = sr.transposed
        vehicleToPixel = intrinsics.matrix * sr
    }

    /// The (unnormalised) vehicle-frame direction through the centre of pixel (column, row).
    @inline(__always)
    func direction(_ column: Int, _ row: Int) -> SIMD3<Double> {
        let yn = (Double(row) + 0.5 - intrinsics.cy) / intrinsics.fy
        let xn = (Double(column) + 0.5 - intrinsics.cx - intrinsics.skew * yn) / intrinsics.fx
        return imageToVehicle * SIMD3(xn, yn, 1)
    }

    /// Homogeneous pixel of a vehicle point (z is the depth along the optical axis).
    func homogeneous(_ p: SIMD3<Double>) -> SIMD3<Double> { vehicleToPixel * (p - centre) }
}
