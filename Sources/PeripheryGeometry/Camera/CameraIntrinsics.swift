import Foundation
import PeripheryCore

/// A pinhole camera: the 3×3 intrinsic matrix K in pixels and the frame size it belongs to.
public struct CameraIntrinsics: Sendable, Hashable {
    /// Horizontal focal length, pixels.
    public let fx: Double
    /// Vertical focal length, pixels.
    public let fy: Double
    /// Principal point x, pixels from the left edge.
    public let cx: Double
    /// Principal point y, pixels from the top edge.
    public let cy: Double
    /// Skew `K[0,1]` (0 for every real camera here).
    public let skew: Double
    /// Frame width, pixels.
    public let width: Int
    /// Frame height, pixels.
    public let height: Int
    /// Frame size, pixels.
    public var size: PixelSize { PixelSize(width: width, height: height) }

    /// Creates intrinsics after checking them.
    ///
    /// - Throws: `CalibrationError` naming `fx`, `fy`, `cx`, `cy`, `skew`, `width` or `height` when a
    ///   value is non-finite, a focal length is not positive, the frame is empty or the principal
    ///   point lies outside the frame.
    public init(
        fx: Double, fy: Double, cx: Double, cy: Double, skew: Double = 0, width: Int, height: Int
    ) throws(CalibrationError) {
        try checkField(fx, "fx", in: 0 ... .infinity, open: true, allowed: "> 0")
        try checkField(fy, "fy", in: 0 ... .infinity, open: true, allowed: "> 0")
        try checkField(skew, "skew", allowed: "finite")
        guard width > 0 else { throw .outOfRange(field: "width", value: Double(width), allowed: "> 0") }
        guard height > 0 else { throw .outOfRange(field: "height", value: Double(height), allowed: "> 0") }
        try checkField(cx, "cx", in: 0...Double(width), allowed: "0 ... width \(width)")
        try checkField(cy, "cy", in: 0...Double(height), allowed: "0 ... height \(height)")
        self.fx = fx
        self.fy = fy
        self.cx = cx
        self.cy = cy
        self.skew = skew
        self.width = width
        self.height = height
    }

    /// Creates intrinsics from a row-major K; the last row must be (0, 0, 1) and `K[1,0]` zero.
    public init(K: Matrix3, width: Int, height: Int) throws(CalibrationError) {
        let expectedZero: [(Int, Int, String)] = [(1, 0, "K[1][0]"), (2, 0, "K[2][0]"), (2, 1, "K[2][1]")]
        for (r, c, name) in expectedZero where K[r, c] != 0 {
            throw .outOfRange(field: name, value: K[r, c], allowed: "0")
        }
        guard K[2, 2] == 1 else { throw .outOfRange(field: "K[2][2]", value: K[2, 2], allowed: "1") }
        try self.init(fx: K[0, 0], fy: K[1, 1], cx: K[0, 2], cy: K[1, 2], skew: K[0, 1], width: width, height: height)
    }

    /// The fallback when a camera reports no intrinsics: 60° horizontal field of view, centred.
    public static func fallback(width: Int, height: Int) throws(CalibrationError) -> CameraIntrinsics {
        let f = Double(width) / (2 * tan(30.0 * Double.pi / 180))
        return try CameraIntrinsics(fx: f, fy: f, cx: Double(width) / 2, cy: Double(height) / 2, width: width, height: height)
    }

    /// The 3×3 matrix K.
    public var matrix: Matrix3 {
        Matrix3(rows: SIMD3(fx, skew, cx), SIMD3(0, fy, cy), SIMD3(0, 0, 1))
    }
}
