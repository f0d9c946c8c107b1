import PeripheryCore
import PeripheryGeometry

/// A uniform scale and shift from one picture's pixel coordinates into another's:
/// `view = offset + scale · source`.
public struct ViewMapping: Sendable, Hashable {
    /// View pixels per source pixel.
    public var scale: Double
    /// View position of the source origin.
    public var offset: SIMD2<Double>

    /// Creates a mapping.
    public init(scale: Double, offset: SIMD2<Double>) {
        self.scale = scale
        self.offset = offset
    }

    /// Source and view coordinates are the same.
    public static let identity = ViewMapping(scale: 1, offset: .zero)

    /// The reference's aspect fill (visualization §10.3): `scale = max(Wv/Ws, Hv/Hs)`, centred on
    /// the view rectangle, so the source covers it and overflows on one axis.
    static func aspectFill(sourceWidth: Int, sourceHeight: Int, view: PixelRect) -> ViewMapping {
        guard sourceWidth > 0, sourceHeight > 0 else {
            return ViewMapping(scale: 1, offset: SIMD2(Double(view.x), Double(view.y)))
        }
        let scale = max(Double(view.width) / Double(sourceWidth), Double(view.height) / Double(sourceHeight))
        let offset = SIMD2(
            Double(view.x) + (Double(view.width) - scale * Double(sourceWidth)) / 2,
            Double(view.y) + (Double(view.height) - scale * Double(sourceHeight)) / 2)
        return ViewMapping(scale: scale, offset: offset)
    }

    /// The view position of a source point.
    public func view(_ source: SIMD2<Double>) -> SIMD2<Double> { offset + scale * source }

    /// The source position of a view point.
    public func source(_ view: SIMD2<Double>) -> SIMD2<Double> { (view - offset) / scale }
}
