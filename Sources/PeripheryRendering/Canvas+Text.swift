import PeripheryCore
import PeripheryGeometry

/// Where a line of text sits horizontally relative to its anchor point.
public enum TextAlignment: Sendable, Hashable {
    /// The anchor is the left edge.
    case left
    /// The anchor is the centre.
    case centre
    /// The anchor is the right edge.
    case right
}

extension Canvas {
    /// Draws one line of `BitmapFont` text, each font pixel a `scale × scale` square.
    ///
    /// - Parameters:
    ///   - text: the line; characters outside printable ASCII are drawn as `?`.
    ///   - anchor: the top of the text, at its left edge, centre or right edge per `alignment`.
    ///   - scale: the side of one font pixel, in canvas pixels.
    ///   - colour: the text's colour.
    ///   - alignment: which edge or the centre of the text sits at `anchor`.
    ///   - halo: an optional 1-px outline colour that keeps the text legible on busy pictures.
    public mutating func text(
        _ text: String, at anchor: SIMD2<Int>, scale: Int = 1, colour: Colour, alignment: TextAlignment = .left,
        halo: Colour? = nil
    ) {
        let s = max(scale, 1)
        let size = BitmapFont.size(of: text, scale: s)
        guard size.width > 0 else { return }
        let left =
            switch alignment {
            case .left: anchor.x
            case .centre: anchor.x - size.width / 2
            case .right: anchor.x - size.width
            }
        let top = anchor.y
        guard
            var glyphs = CoverageMask(
                minX: Double(left - 1), minY: Double(top - 1), maxX: Double(left + size.width),
                maxY: Double(top + size.height), canvasWidth: width, canvasHeight: height)
        else { return }
        for (index, character) in text.enumerated() {
            let rows = BitmapFont.rows(for: character)
            let x0 = left + index * BitmapFont.advance * s
            for (r, bits) in rows.enumerated() where bits != 0 {
                for c in 0..<BitmapFont.glyphWidth where bits & (1 << UInt8(BitmapFont.glyphWidth - 1 - c)) != 0 {
                    for dy in 0..<s {
                        for dx in 0..<s { glyphs.raise(column: x0 + c * s + dx, row: top + r * s + dy, to: 1) }
                    }
                }
            }
        }
        if let halo {
            var outline = glyphs
            for row in 0..<glyphs.height {
                for column in 0..<glyphs.width where glyphs.values[row * glyphs.width + column] > 0 {
                    for dy in -1...1 {
                        for dx in -1...1 {
                            outline.raise(column: glyphs.x + column + dx, row: glyphs.y + row + dy, to: 1)
                        }
                    }
                }
            }
            composite(outline, colour: halo)
        }
        composite(glyphs, colour: colour)
    }
}
