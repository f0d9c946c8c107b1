import PeripheryCore
import PeripheryGeometry

/// A straight-alpha sRGB colour with components in 0…1, the value every drawing call paints with.
public struct Colour: Sendable, Hashable {
    /// Red, 0…1.
    public var red: Double
    /// Green, 0…1.
    public var green: Double
    /// Blue, 0…1.
    public var blue: Double
    /// Opacity, 0 (invisible) … 1 (opaque).
    public var alpha: Double

    /// Creates a colour from components in 0…1 (clamped when drawn).
    public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// Creates an opaque colour from `0xRRGGBB`.
    public init(hex: UInt32) {
        self.init(
            red: Double((hex >> 16) & 0xFF) / 255, green: Double((hex >> 8) & 0xFF) / 255,
            blue: Double(hex & 0xFF) / 255)
    }

    /// The same colour with its opacity multiplied by `factor` (CSS `globalAlpha`).
    func opacity(_ factor: Double) -> Colour {
        Colour(red: red, green: green, blue: blue, alpha: alpha * factor)
    }

    /// The colour as 8-bit RGB, ignoring opacity (components clamped, rounded).
    public var rgb8: SIMD3<UInt8> {
        SIMD3(Colour.byte(red), Colour.byte(green), Colour.byte(blue))
    }

    /// Creates an opaque colour from 8-bit RGB.
    public init(rgb8: SIMD3<UInt8>) {
        self.init(red: Double(rgb8.x) / 255, green: Double(rgb8.y) / 255, blue: Double(rgb8.z) / 255)
    }

    static func byte(_ component: Double) -> UInt8 {
        guard component.isFinite else { return 0 }
        return UInt8((min(max(component, 0), 1) * 255).rounded())
    }
}
