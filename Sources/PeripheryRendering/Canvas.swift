import PeripheryCore
import PeripheryGeometry

/// An `RGBImage` being drawn on: every primitive blends a `Colour` into it with coverage-based
/// antialiasing (straight alpha, `dst + (src − dst) · alpha · coverage`, in 8-bit sRGB like an HTML
/// canvas).
public struct Canvas: Sendable {
    /// The picture drawn so far.
    public var image: RGBImage

    /// Starts drawing on a picture.
    public init(_ image: RGBImage) {
        self.image = image
    }

    /// Starts drawing on a new picture filled with `background` (its opacity ignored).
    public init(width: Int, height: Int, background: Colour) {
        image = RGBImage(width: width, height: height, fill: background.rgb8)
    }

    /// Width in pixels.
    public var width: Int { image.width }
    /// Height in pixels.
    public var height: Int { image.height }

    /// Blends `colour` into one pixel at `coverage` (0…1) of its opacity; outside pixels are ignored.
    mutating func blend(x: Int, y: Int, colour: Colour, coverage: Double = 1) {
        guard x >= 0, y >= 0, x < width, y < height else { return }
        let a = min(max(colour.alpha * coverage, 0), 1)
        guard a > 0 else { return }
        let i = (y * width + x) * 3
        image.pixels[i] = Canvas.mix(image.pixels[i], colour.red, a)
        image.pixels[i + 1] = Canvas.mix(image.pixels[i + 1], colour.green, a)
        image.pixels[i + 2] = Canvas.mix(image.pixels[i + 2], colour.blue, a)
    }

    /// Blends `colour` over the pixel rectangle `[x, x + width) × [y, y + height)`, clipped.
    mutating func fillRect(x: Int, y: Int, width w: Int, height h: Int, colour: Colour) {
        let x0 = max(x, 0), y0 = max(y, 0)
        let x1 = min(x + w, width), y1 = min(y + h, height)
        guard x0 < x1, y0 < y1 else { return }
        for row in y0..<y1 {
            for column in x0..<x1 { blend(x: column, y: row, colour: colour) }
        }
    }

    /// Blends `colour` over the whole picture.
    public mutating func fill(_ colour: Colour) {
        fillRect(x: 0, y: 0, width: width, height: height, colour: colour)
    }

    /// Blends `colour` through a coverage mask.
    mutating func composite(_ mask: CoverageMask, colour: Colour) {
        let alpha = min(max(colour.alpha, 0), 1)
        guard alpha > 0, mask.x >= 0, mask.y >= 0, mask.x + mask.width <= width, mask.y + mask.height <= height
        else { return }
        let canvasWidth = width
        let (red, green, blue) = (colour.red, colour.green, colour.blue)
        image.pixels.withUnsafeMutableBufferPointer { pixels in
            mask.values.withUnsafeBufferPointer { values in
                for row in 0..<mask.height {
                    let base = ((mask.y + row) * canvasWidth + mask.x) * 3
                    let maskRow = row * mask.width
                    for column in 0..<mask.width {
                        let c = values[maskRow + column]
                        guard c > 0 else { continue }
                        let a = alpha * Double(min(c, 1))
                        let i = base + column * 3
                        pixels[i] = Canvas.mix(pixels[i], red, a)
                        pixels[i + 1] = Canvas.mix(pixels[i + 1], green, a)
                        pixels[i + 2] = Canvas.mix(pixels[i + 2], blue, a)
                    }
                }
            }
        }
    }

    @inline(__always)
    static func mix(_ dst: UInt8, _ src: Double, _ a: Double) -> UInt8 {
        let s = min(max(src, 0), 1) * 255
        let d = Double(dst)
        return UInt8(min(max(d + (s - d) * a, 0), 255).rounded())
    }
}
