import PeripheryCore
import PeripheryGeometry

extension Canvas {
    /// Paints a picture through a mapping, opaque, into the pixels of `clip`.
    ///
    /// Enlarging samples bilinearly; shrinking averages the source pixels whose centres fall in each
    /// view pixel's footprint (a box filter), so a downscaled frame does not alias.
    public mutating func draw(_ source: RGBImage, mapping: ViewMapping, clip: PixelRect) {
        let area = clip.intersection(PixelRect(x: 0, y: 0, width: width, height: height))
        guard !area.isEmpty, source.width > 0, source.height > 0, mapping.scale > 0, mapping.scale.isFinite
        else { return }
        let footprint = 1 / mapping.scale
        for row in area.y..<(area.y + area.height) {
            for column in area.x..<(area.x + area.width) {
                let s = mapping.source(SIMD2(Double(column) + 0.5, Double(row) + 0.5))
                let value =
                    footprint > 1
                    ? Canvas.boxSample(source, centre: s, footprint: footprint)
                    : Canvas.bilinearSample(source, at: s)
                guard let value else { continue }
                let i = (row * width + column) * 3
                image.pixels[i] = UInt8(min(max(value.x.rounded(), 0), 255))
                image.pixels[i + 1] = UInt8(min(max(value.y.rounded(), 0), 255))
                image.pixels[i + 2] = UInt8(min(max(value.z.rounded(), 0), 255))
            }
        }
    }

    /// Mean of the pixels whose centres lie within `footprint/2` of `centre` (at least the nearest),
    /// or `nil` if `centre` is outside the picture.
    static func boxSample(_ image: RGBImage, centre: SIMD2<Double>, footprint: Double) -> SIMD3<Double>? {
        guard centre.x >= 0, centre.y >= 0, centre.x < Double(image.width), centre.y < Double(image.height)
        else { return nil }
        let half = footprint / 2
        let x0 = max(0, Int((centre.x - half - 0.5).rounded(.up)))
        let x1 = min(image.width - 1, max(x0, Int((centre.x + half - 0.5).rounded(.down))))
        let y0 = max(0, Int((centre.y - half - 0.5).rounded(.up)))
        let y1 = min(image.height - 1, max(y0, Int((centre.y + half - 0.5).rounded(.down))))
        var sum = SIMD3<Double>.zero
        for y in y0...y1 {
            for x in x0...x1 {
                let i = (y * image.width + x) * 3
                sum += SIMD3(Double(image.pixels[i]), Double(image.pixels[i + 1]), Double(image.pixels[i + 2]))
            }
        }
        return sum / Double((x1 - x0 + 1) * (y1 - y0 + 1))
    }

    /// Bilinear sample at a continuous position (pixel centres at half-integers, edges clamped), or
    /// `nil` if the position is outside the picture.
    static func bilinearSample(_ image: RGBImage, at p: SIMD2<Double>) -> SIMD3<Double>? {
        guard p.x >= 0, p.y >= 0, p.x < Double(image.width), p.y < Double(image.height) else { return nil }
        let fx = p.x - 0.5, fy = p.y - 0.5
        let x0 = Int(fx.rounded(.down)), y0 = Int(fy.rounded(.down))
        let tx = fx - Double(x0), ty = fy - Double(y0)
        func at(_ x: Int, _ y: Int) -> SIMD3<Double> {
            let cx = min(max(x, 0), image.width - 1), cy = min(max(y, 0), image.height - 1)
            let i = (cy * image.width + cx) * 3
            return SIMD3(Double(image.pixels[i]), Double(image.pixels[i + 1]), Double(image.pixels[i + 2]))
        }
        let top = at(x0, y0) * (1 - tx) + at(x0 + 1, y0) * tx
        let bottom = at(x0, y0 + 1) * (1 - tx) + at(x0 + 1, y0 + 1) * tx
        return top * (1 - ty) + bottom * ty
    }

    /// Copies a picture so that its top-left pixel lands at `rect`'s, clipped to `rect` and the canvas.
    mutating func paste(_ picture: RGBImage, at rect: PixelRect) {
        let area = rect.intersection(PixelRect(x: 0, y: 0, width: width, height: height))
            .intersection(PixelRect(x: rect.x, y: rect.y, width: picture.width, height: picture.height))
        guard !area.isEmpty else { return }
        for row in area.y..<(area.y + area.height) {
            let src = ((row - rect.y) * picture.width + (area.x - rect.x)) * 3
            let dst = (row * width + area.x) * 3
            let count = area.width * 3
            image.pixels.replaceSubrange(dst..<(dst + count), with: picture.pixels[src..<(src + count)])
        }
    }
}
