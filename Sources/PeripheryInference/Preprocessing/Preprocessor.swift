import PeripheryCore
import PeripheryGeometry

/// Turns a camera frame into the network input: the normalised planar RGB float32 tensor
/// `[3, 256, 512]` of reference, `docs/reference/contract.md#6-preprocess`.
///
/// Steps, for a frame and its `FocalMatchedCrop`:
/// 1. crop `width × height` at (`x`, `y`) of the frame;
/// 2. resize it, aspect preserved, to `scaledWidth × scaledHeight` with an antialiased Lanczos-3
///    filter, separable, in 8 bits (see `ResampleTaps`: it matches Pillow's
///    `Image.resize((scaledWidth, scaledHeight), Image.Resampling.LANCZOS)` of the cropped RGB
///    image, which the tests check to within 0.5 grey levels);
/// 3. place it at (`offsetX`, `offsetY`) on a canvas filled with `ImageNormalization.mean`;
/// 4. normalise each channel, `(p − mean) / std` on 0–255 values, so the padding is exactly 0.
///
/// The reference resizes with `vImageScale_ARGB8888` and `kvImageHighQualityResampling`, a
/// Lanczos-type kernel whose exact form is not published; Lanczos-3 is the nearest documented one.
///
/// Crop rectangles touching the frame border are handled by clipping the filter to the crop (no
/// pixel outside it is read); a crop reaching outside the frame (a crop computed for another frame
/// size) reads the nearest frame pixel instead of failing.
///
/// The filter taps and scratch are built on the first frame of each geometry (crop size and scaled
/// size) and reused: later frames with the same geometry allocate nothing. The output buffer is
/// allocated once. One preprocessor per thread; it is not thread-safe (with `threads` > 1 it splits
/// each frame's resize over that many workers, with the same result).
public final class Preprocessor {
    /// Channels of the output, R, G, B.
    public static let channels = 3
    /// Output width, `Safety40.inputWidth`.
    public static let width = Safety40.inputWidth
    /// Output height, `Safety40.inputHeight`.
    public static let height = Safety40.inputHeight
    /// Floats in the output, `3 · 256 · 512`.
    public static let count = channels * height * width

    private let storage: UnsafeMutablePointer<Float>
    /// `(v − mean_c) / std_c` for v in 0 ... 255, channel-major, 3 × 256.
    private let lookup: UnsafeMutablePointer<Float>
    private var plan: ResamplePlan?
    /// Threads each resize is split over.
    public var threads: Int { pool?.workers ?? 1 }
    /// The workers of a split resize: the preprocessor's own, or a detector's that it shares.
    private let pool: WorkerPool?
    /// The output rectangle (offsetX, offsetY, scaledWidth, scaledHeight) last written; all else is 0.
    private var region: (x: Int, y: Int, width: Int, height: Int)?

    /// Creates a preprocessor; its output starts as all padding (zeros).
    ///
    /// - Parameter threads: threads each frame's resize is split over (1, the default: the
    ///   calling thread only).
    public convenience init(threads: Int = 1) {
        precondition(threads >= 1, "a preprocessor needs at least one thread")
        self.init(pool: threads > 1 ? WorkerPool(workers: threads) : nil)
    }

    /// A preprocessor that splits its resizes over `pool`, e.g. a detector's: the resize and the
    /// network run one after the other, so one set of workers serves both.
    init(pool: WorkerPool?) {
        self.pool = pool
        storage = .allocate(capacity: Preprocessor.count)
        storage.initialize(repeating: 0, count: Preprocessor.count)
        lookup = .allocate(capacity: 3 * 256)
        let mean = ImageNormalization.mean, std = ImageNormalization.std
        for c in 0..<3 {
            for v in 0..<256 { (lookup + c * 256 + v).initialize(to: (Float(v) - mean[c]) / std[c]) }
        }
    }

    deinit {
        storage.deallocate()
        lookup.deallocate()
    }

    /// The output of the last `process` call (all zeros before the first), `[3, 256, 512]` planar
    /// RGB. Valid only while the preprocessor lives; the next `process` call overwrites it.
    public var output: UnsafeBufferPointer<Float> { UnsafeBufferPointer(start: storage, count: Preprocessor.count) }

    /// A copy of `output`.
    public var tensor: [Float] { Array(output) }

    /// Preprocesses one frame.
    ///
    /// - Parameters:
    ///   - frame: the camera frame.
    ///   - crop: its focal-matched crop, computed for the 512 × 256 network input.
    /// - Returns: `output`, the normalised `[3, 256, 512]` tensor. The memory belongs to the
    ///   preprocessor: read it only while the preprocessor is alive (hold it in a stored property,
    ///   or use `withExtendedLifetime`) and before the next call; `tensor` copies it.
    /// - Precondition: the crop's letterbox lies inside 512 × 256 (true of every crop computed for
    ///   the Safety40 input size).
    @discardableResult
    public func process(_ frame: FramePixels, crop: FocalMatchedCrop) -> UnsafeBufferPointer<Float> {
        let w = Preprocessor.width, h = Preprocessor.height
        precondition(
            crop.scaledWidth > 0 && crop.scaledHeight > 0 && crop.offsetX >= 0 && crop.offsetY >= 0
                && crop.offsetX + crop.scaledWidth <= w && crop.offsetY + crop.scaledHeight <= h,
            "crop letterbox \(crop.scaledWidth)×\(crop.scaledHeight) at (\(crop.offsetX), \(crop.offsetY)) is not inside \(w)×\(h)")
        let plan = plan(for: crop)
        let target = (x: crop.offsetX, y: crop.offsetY, width: crop.scaledWidth, height: crop.scaledHeight)
        if let region, region != target {
            storage.update(repeating: 0, count: Preprocessor.count)
        }
        region = target
        frame.bytes.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            plan.run(
                frame: base, width: frame.width, height: frame.height, rowStride: frame.rowStride, format: frame.format,
                cropX: crop.x, cropY: crop.y, destination: storage + crop.offsetY * w + crop.offsetX, plane: w * h,
                rowPitch: w, lookup: lookup, pool: pool)
        }
        return output
    }

    /// The plan for this crop's geometry, built when it changes.
    private func plan(for crop: FocalMatchedCrop) -> ResamplePlan {
        if let plan,
            plan.matches(
                cropWidth: crop.width, cropHeight: crop.height, outWidth: crop.scaledWidth, outHeight: crop.scaledHeight)
        {
            return plan
        }
        let plan = ResamplePlan(
            cropWidth: crop.width, cropHeight: crop.height, outWidth: crop.scaledWidth, outHeight: crop.scaledHeight,
            threads: threads)
        self.plan = plan
        return plan
    }
}
