import Dispatch
import PeripheryCore
import PeripheryGeometry

/// What `periphery bench` measures: `Detector.detect` on a fixed synthetic input (uniform in
/// [−2, 2], fixed seed) with the reference calibration, per stage and optionally per layer, and
/// the preprocessing of one camera's frames on its own. Percentiles use index round((n−1)·p) of
/// the sorted times (`docs/results/benchmarks.md`).
package enum DetectorBenchmark {
    /// Median and 95th percentile of one stage, milliseconds.
    package struct Spread: Codable, Sendable, Equatable {
        package var medianMs: Double
        package var p95Ms: Double

        enum CodingKeys: String, CodingKey { case medianMs = "median_ms", p95Ms = "p95_ms" }

        /// The spread of `values`, rounded to microseconds.
        package init(_ values: [Double]) {
            medianMs = DetectorBenchmark.rounded(DetectorBenchmark.percentile(values, 0.5))
            p95Ms = DetectorBenchmark.rounded(DetectorBenchmark.percentile(values, 0.95))
        }
    }

    /// The preprocessing of one frame size and crop, timed alone.
    package struct Preprocessing: Codable, Sendable, Equatable {
        package var medianMs: Double
        package var p95Ms: Double
        /// `WxH` of the frames, and the crop as `WxH to WxH`.
        package var frame: String
        package var crop: String

        enum CodingKeys: String, CodingKey { case medianMs = "median_ms", p95Ms = "p95_ms", frame, crop }
    }

    /// One layer's median time, its rate and its share of the median frame.
    package struct Layer: Codable, Sendable, Equatable {
        package var name: String
        package var medianMs: Double
        package var gflopsPerSecond: Double
        package var share: Double

        enum CodingKeys: String, CodingKey { case name, medianMs = "median_ms", gflopsPerSecond = "gflop_per_s", share }
    }

    /// A whole benchmark, as `periphery bench --json` prints it.
    package struct Report: Codable, Sendable, Equatable {
        /// The whole frame (the four stages), milliseconds.
        package var medianMs: Double
        package var p95Ms: Double
        package var fps: Double
        package var frames: Int
        package var warmup: Int
        /// backbone, gather, head, decode.
        package var stages: [String: Spread]
        package var preprocess: Preprocessing?
        package var threads: Int
        package var blasCore: String
        package var precision: String
        package var kernel: String
        /// Per layer, when asked for.
        package var layers: [Layer]?

        enum CodingKeys: String, CodingKey {
            case medianMs = "median_ms", p95Ms = "p95_ms", fps, frames, warmup, stages, preprocess, threads
            case blasCore = "blas_core", precision, kernel, layers
        }

        init(detector: Detector, timings: [DetectorTimings], layers: [[LayerTiming]], frames: Int, warmup: Int, seconds: Double) {
            let total = Spread(timings.map(\.total))
            medianMs = total.medianMs
            p95Ms = total.p95Ms
            fps = DetectorBenchmark.rounded(Double(frames) / seconds)
            self.frames = frames
            self.warmup = warmup
            let stagePaths: [(String, KeyPath<DetectorTimings, Double>)] = [
                ("backbone", \.backbone), ("gather", \.gather), ("head", \.head), ("decode", \.decode),
            ]
            stages = Dictionary(uniqueKeysWithValues: stagePaths.map { name, path in (name, Spread(timings.map { $0[keyPath: path] })) })
            threads = detector.threads
            blasCore = detector.blas.coreName
            precision = "\(detector.precision)"
            kernel = detector.kernel.description
            let frameMs = DetectorBenchmark.percentile(timings.map(\.total), 0.5)
            self.layers = layers.first.map { first in
                first.indices.map { i in
                    let ms = DetectorBenchmark.percentile(layers.map { $0[i].milliseconds }, 0.5)
                    return Layer(
                        name: first[i].name, medianMs: ms, gflopsPerSecond: ms > 0 ? Double(first[i].flops) / ms / 1e6 : 0,
                        share: ms / frameMs)
                }
            }
        }
    }

    /// Times `frames` detections after `warmup` discarded ones, per layer too when `layers`.
    package static func run(_ detector: Detector, frames: Int, warmup: Int, layers profileLayers: Bool) throws -> Report {
        let lut = ProjectionLUT(calibration: CameraCalibration(try referenceSetup()))
        var state: UInt64 = 20_260_831
        let image = (0..<(3 * Safety40.inputHeight * Safety40.inputWidth)).map { _ in
            Float(next(&state) >> 40) / Float(1 << 24) * 4 - 2
        }
        for _ in 0..<warmup { _ = try detector.detect(image: image, lut: lut) }
        detector.profilesLayers = profileLayers
        defer { detector.profilesLayers = false }
        var layers: [[LayerTiming]] = []
        var timings: [DetectorTimings] = []
        timings.reserveCapacity(frames)
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<frames {
            timings.append(try detector.detect(image: image, lut: lut).timings)
            if profileLayers { layers.append(detector.layerTimings) }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return Report(detector: detector, timings: timings, layers: layers, frames: frames, warmup: warmup, seconds: seconds)
    }

    /// Per-frame times of `Preprocessor.process` on random frames of `setup`'s size with its crop.
    package static func preprocessing(setup: CameraSetup, threads: Int, frames: Int, warmup: Int) throws -> Preprocessing {
        let k = setup.intrinsics
        let crop = CameraCalibration(setup).crop
        var state: UInt64 = 20_261_202
        let bytes = (0..<(k.width * k.height * 3)).map { _ in UInt8(truncatingIfNeeded: next(&state) >> 56) }
        let pixels = try FramePixels(width: k.width, height: k.height, rowStride: k.width * 3, format: .rgb8, bytes: bytes)
        let preprocessor = Preprocessor(threads: threads)
        for _ in 0..<warmup { preprocessor.process(pixels, crop: crop) }
        let milliseconds = (0..<frames).map { _ -> Double in
            let start = DispatchTime.now().uptimeNanoseconds
            preprocessor.process(pixels, crop: crop)
            return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        }
        let spread = Spread(milliseconds)
        return Preprocessing(
            medianMs: spread.medianMs, p95Ms: spread.p95Ms, frame: "\(k.width)x\(k.height)",
            crop: "\(crop.width)x\(crop.height) to \(crop.scaledWidth)x\(crop.scaledHeight)")
    }

    /// The reference calibration the benchmark runs with: comma K, pitch −3.659°, height 1.20 m,
    /// 1.65 m forward.
    static func referenceSetup() throws -> CameraSetup {
        CameraSetup(
            intrinsics: try CameraIntrinsics(fx: 910, fy: 910, cx: 582, cy: 437, width: 1164, height: 874),
            pose: .fallback)
    }

    static func percentile(_ values: [Double], _ p: Double) -> Double {
        let sorted = values.sorted()
        return sorted[Int((Double(sorted.count - 1) * p).rounded())]
    }

    static func rounded(_ x: Double) -> Double { (x * 1000).rounded() / 1000 }

    /// The fixed-seed inputs: one step of a 64-bit linear congruential generator.
    static func next(_ state: inout UInt64) -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state
    }
}
