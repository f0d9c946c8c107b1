import PeripheryCore

/// The source-image rectangle that, resized into the network input, gives the trained focal length,
/// and the letterbox that fits it into 512 × 256.
///
/// Apparent size is f·W/d, so a network trained at focal 565.6 reads ranges wrong on any other
/// focal (comma frames naively resized to 512 give focal 400: every vehicle 1.41× too far). The
/// crop is chosen so that the resized crop has the trained focal; when the frame is too narrow for
/// that, the whole frame is used and `rangeScale` reports the error.
public struct FocalMatchedCrop: Sendable, Hashable {
    /// Left edge of the crop in source pixels.
    public let x: Int
    /// Top edge of the crop in source pixels.
    public let y: Int
    /// Crop width in source pixels.
    public let width: Int
    /// Crop height in source pixels.
    public let height: Int
    /// Uniform scale from crop pixels to network pixels, `min(512/width, 256/height)`.
    public let resize: Double
    /// Width of the resized crop in network pixels.
    public let scaledWidth: Int
    /// Height of the resized crop in network pixels.
    public let scaledHeight: Int
    /// Left padding of the letterbox, network pixels.
    public let offsetX: Int
    /// Top padding of the letterbox, network pixels.
    public let offsetY: Int
    /// Focal length the network sees, `fx · resize`.
    public let achievedFocal: Double
    /// The focal the crop aimed for.
    public let targetFocal: Double

    /// Computes the crop for a camera (reference `focalMatchedCrop`; rounding half away from zero).
    ///
    /// - Parameters:
    ///   - k: the source camera.
    ///   - targetFocal: the trained focal in network pixels.
    ///   - networkWidth: network input width.
    ///   - networkHeight: network input height.
    public init(
        intrinsics k: CameraIntrinsics, targetFocal: Double = Safety40.trainedFocal,
        networkWidth: Int = Safety40.inputWidth, networkHeight: Int = Safety40.inputHeight
    ) {
        let scale = targetFocal / k.fx
        // Clamped before the conversion to Int, which traps beyond Int.max: any finite positive
        // focal length gives a crop, however absurd (found by fuzzing, fx = 2.4e62).
        func side(_ network: Int, _ frame: Int) -> Int {
            Int(min(max((Double(network) / scale).rounded(), 1), Double(frame)))
        }
        let cropW = side(networkWidth, k.width)
        let cropH = side(networkHeight, k.height)
        let x0 = Int((k.cx - Double(cropW) / 2).rounded())
        let y0 = Int((k.cy - Double(cropH) / 2).rounded())
        x = min(max(x0, 0), k.width - cropW)
        y = min(max(y0, 0), k.height - cropH)
        width = cropW
        height = cropH
        resize = min(Double(networkWidth) / Double(cropW), Double(networkHeight) / Double(cropH))
        scaledWidth = Int((Double(cropW) * resize).rounded())
        scaledHeight = Int((Double(cropH) * resize).rounded())
        offsetX = (networkWidth - scaledWidth) / 2
        offsetY = (networkHeight - scaledHeight) / 2
        achievedFocal = k.fx * resize
        self.targetFocal = targetFocal
    }

    /// Whether the achieved focal is within 1 px of the target.
    public var isFocalMatched: Bool { abs(achievedFocal - targetFocal) < Safety40.focalMatchTolerance }

    /// Factor by which every range the network reports is scaled, `achieved / target` (1 when matched).
    ///
    /// A network trained at focal f₀ that sees focal f reads a vehicle at distance d as d·f₀/f, so
    /// true ranges are the reported ones times this factor.
    public var rangeScale: Double { achievedFocal / targetFocal }
}
