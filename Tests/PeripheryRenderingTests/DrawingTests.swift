import Foundation
import Testing

@testable import PeripheryCore
@testable import PeripheryGeometry
@testable import PeripheryRendering

/// Canvas primitives: blending, antialiased and dashed lines, polygon fill rules, the bitmap font.
struct DrawingTests {
    static let white = Colour(red: 1, green: 1, blue: 1)
    static let red = Colour(red: 1, green: 0, blue: 0)

    @Test func blendMixesByOpacity() {
        var canvas = Canvas(width: 2, height: 1, background: Colour(red: 0, green: 0, blue: 0))
        canvas.blend(x: 0, y: 0, colour: Colour(red: 1, green: 0.5, blue: 0, alpha: 0.5))
        canvas.blend(x: 1, y: 0, colour: Self.white, coverage: 0.25)
        #expect(canvas.image[0, 0] == SIMD3(128, 64, 0))
        #expect(canvas.image[1, 0] == SIMD3(64, 64, 64))
        // Outside pixels and zero opacity are ignored.
        canvas.blend(x: 5, y: 0, colour: Self.white)
        canvas.blend(x: 0, y: 0, colour: Self.white.opacity(0))
        #expect(canvas.image[0, 0] == SIMD3(128, 64, 0))
    }

    @Test func colourConversions() {
        #expect(Colour(hex: 0xE8A33D).rgb8 == SIMD3(0xE8, 0xA3, 0x3D))
        #expect(Palette.moving.rgb8 == SIMD3(0xE8, 0xA3, 0x3D))
        #expect(Palette.parked.rgb8 == SIMD3(0x94, 0xA2, 0xB0))
        #expect(Palette.unknown.rgb8 == SIMD3(0x6B, 0x78, 0x85))
        #expect(Palette.colour(for: .moving) == Palette.moving)
        #expect(abs(Palette.visionSoft.alpha - 0.16) < 1e-12)
        #expect(abs(Colour(hex: 0).opacity(0.5).opacity(0.5).alpha - 0.25) < 1e-12)
    }

    @Test func horizontalLineCoverage() {
        // A 2 px line along y = 5 (between rows 4 and 5) covers those rows fully and nothing beyond.
        var canvas = Canvas(width: 20, height: 10, background: Colour(red: 0, green: 0, blue: 0))
        canvas.strokeLine(from: SIMD2(2, 5), to: SIMD2(18, 5), colour: Self.white, style: .solid(2))
        #expect(canvas.image[10, 4] == SIMD3(255, 255, 255))
        #expect(canvas.image[10, 5] == SIMD3(255, 255, 255))
        #expect(canvas.image[10, 3] == SIMD3(0, 0, 0))
        #expect(canvas.image[10, 6] == SIMD3(0, 0, 0))
        // Round caps reach 1 px past the ends, not more.
        #expect(canvas.image[0, 5] == SIMD3(0, 0, 0))
        #expect(canvas.image[19, 5] == SIMD3(0, 0, 0))
    }

    @Test func diagonalLineIsAntialiased() {
        var canvas = Canvas(width: 20, height: 20, background: Colour(red: 0, green: 0, blue: 0))
        canvas.strokeLine(from: SIMD2(2, 3), to: SIMD2(17, 11), colour: Self.white, style: .solid(1))
        // Total ink across each column ≈ the line's vertical thickness 1/cos α = 17/15 px.
        for column in 5...14 {
            let ink = (0..<20).reduce(0.0) { $0 + Double(canvas.image[column, $1].x) / 255 }
            #expect(abs(ink - 17.0 / 15) < 0.2, "column \(column): \(ink)")
        }
        // Some pixels are partially covered.
        let partial = (0..<20).flatMap { y in (0..<20).map { x in canvas.image[x, y].x } }.filter { $0 > 0 && $0 < 255 }
        #expect(partial.count > 10)
    }

    @Test func translucentPolylineIsBlendedOnce() {
        // A closed, self-touching translucent polyline is no darker where its segments overlap.
        var canvas = Canvas(width: 30, height: 30, background: Colour(red: 0, green: 0, blue: 0))
        canvas.stroke(
            [SIMD2(5, 5), SIMD2(25, 5), SIMD2(25, 25), SIMD2(5, 25)], closed: true, colour: Self.white.opacity(0.5),
            style: .solid(3))
        #expect(canvas.image[25, 5] == SIMD3(128, 128, 128))
        #expect(canvas.image[15, 5] == SIMD3(128, 128, 128))
        #expect(canvas.image[15, 15] == SIMD3(0, 0, 0))
    }

    @Test func dashedLineFollowsPattern() {
        // Dashes [5, 4] along row 10 from x = 0: on 0–5, off 5–9, on 9–14, off 14–18, ….
        var canvas = Canvas(width: 40, height: 20, background: Colour(red: 0, green: 0, blue: 0))
        canvas.strokeLine(from: SIMD2(0, 10.5), to: SIMD2(40, 10.5), colour: Self.white, style: .dashed(1, [5, 4]))
        for x in [1, 2, 3, 10, 11, 12, 19, 20, 21, 28, 29, 30] { #expect(canvas.image[x, 10].x == 255, "x \(x)") }
        for x in [7, 16, 25, 34] { #expect(canvas.image[x, 10].x == 0, "x \(x)") }
        // The pattern runs on across a corner: 3 px before the corner and 2 after make the first dash.
        var corner = Canvas(width: 40, height: 40, background: Colour(red: 0, green: 0, blue: 0))
        corner.stroke(
            [SIMD2(10.5, 10.5), SIMD2(13.5, 10.5), SIMD2(13.5, 30.5)], colour: Self.white, style: .dashed(1, [5, 4]))
        #expect(corner.image[13, 11].x == 255)
        #expect(corner.image[13, 15].x == 0)
        #expect(corner.image[13, 18].x == 255)
    }

    @Test func dashHelpersMatchCanvasSemantics() {
        // An odd pattern repeats; an invalid one draws solid.
        #expect(StrokeStyle.dashed(1, [3]).dash == [3])
        var odd = Canvas(width: 20, height: 3, background: Colour(red: 0, green: 0, blue: 0))
        odd.strokeLine(from: SIMD2(0, 1.5), to: SIMD2(20, 1.5), colour: Self.white, style: .dashed(1, [3]))
        #expect(odd.image[1, 1].x == 255 && odd.image[4, 1].x == 0 && odd.image[7, 1].x == 255)
        var invalid = Canvas(width: 20, height: 3, background: Colour(red: 0, green: 0, blue: 0))
        invalid.strokeLine(from: SIMD2(0, 1.5), to: SIMD2(20, 1.5), colour: Self.white, style: .dashed(1, [0, -1]))
        #expect((1...18).allSatisfy { invalid.image[$0, 1].x == 255 })
    }

    @Test func longOffscreenLineIsClipped() {
        // A line with far-away endpoints still draws the visible part, quickly.
        var canvas = Canvas(width: 50, height: 50, background: Colour(red: 0, green: 0, blue: 0))
        canvas.strokeLine(from: SIMD2(-1e7, 25), to: SIMD2(1e7, 25), colour: Self.white, style: .dashed(2, [5, 4]))
        let lit = (0..<50).filter { canvas.image[$0, 24].x == 255 }.count
        #expect(lit > 20 && lit < 40)
    }

    @Test func polygonFillCoversInterior() {
        var canvas = Canvas(width: 20, height: 20, background: Colour(red: 0, green: 0, blue: 0))
        canvas.fill(polygon: [SIMD2(4, 4), SIMD2(14, 4), SIMD2(14, 12), SIMD2(4, 12)], colour: Self.red)
        #expect(canvas.image[4, 4] == SIMD3(255, 0, 0))
        #expect(canvas.image[13, 11] == SIMD3(255, 0, 0))
        #expect(canvas.image[14, 11] == SIMD3(0, 0, 0))
        #expect(canvas.image[3, 8] == SIMD3(0, 0, 0))
        // Half-pixel edges give half coverage.
        var half = Canvas(width: 10, height: 10, background: Colour(red: 0, green: 0, blue: 0))
        half.fill(polygon: [SIMD2(2.5, 2), SIMD2(7.5, 2), SIMD2(7.5, 8), SIMD2(2.5, 8)], colour: Self.white)
        #expect(half.image[2, 5].x == 128)
        #expect(half.image[5, 5].x == 255)
        #expect(half.image[7, 5].x == 128)
        // Alpha: a 40 % red fill over grey.
        var alpha = Canvas(width: 4, height: 4, background: Colour(red: 0.5, green: 0.5, blue: 0.5))
        alpha.fill(polygon: [SIMD2(0, 0), SIMD2(4, 0), SIMD2(4, 4), SIMD2(0, 4)], colour: Self.red.opacity(0.4))
        #expect(alpha.image[1, 1] == SIMD3(179, 77, 77))
    }

    @Test func triangleAreaMatchesInk() {
        var canvas = Canvas(width: 40, height: 40, background: Colour(red: 0, green: 0, blue: 0))
        canvas.fill(polygon: [SIMD2(3.3, 5.1), SIMD2(35.7, 9.8), SIMD2(12.2, 33.4)], colour: Self.white)
        let ink = stride(from: 0, to: canvas.image.pixels.count, by: 3)
            .reduce(0.0) { $0 + Double(canvas.image.pixels[$1]) / 255 }
        let ab = SIMD2(35.7 - 3.3, 9.8 - 5.1), ac = SIMD2(12.2 - 3.3, 33.4 - 5.1)
        let area: Double = abs(ab.x * ac.y - ab.y * ac.x) / 2
        #expect(abs(ink - area) < 0.01 * area)
    }

    @Test func fillRules() {
        // A pentagram: the centre pentagon is inside for non-zero, outside for even-odd.
        let star = (0..<5).map { i -> SIMD2<Double> in
            let a = -Double.pi / 2 + Double(i) * 4 * Double.pi / 5
            return SIMD2(20 + 18 * cos(a), 20 + 18 * sin(a))
        }
        var nonZero = Canvas(width: 40, height: 40, background: Colour(red: 0, green: 0, blue: 0))
        nonZero.fill(polygon: star, colour: Self.white, rule: .nonZero)
        var evenOdd = Canvas(width: 40, height: 40, background: Colour(red: 0, green: 0, blue: 0))
        evenOdd.fill(polygon: star, colour: Self.white, rule: .evenOdd)
        #expect(nonZero.image[20, 21].x == 255)
        #expect(evenOdd.image[20, 21].x == 0)
        // A point of the star is inside for both.
        #expect(nonZero.image[20, 5].x == 255 && evenOdd.image[20, 5].x == 255)
        // A ring with a hole.
        var ring = Canvas(width: 20, height: 20, background: Colour(red: 0, green: 0, blue: 0))
        ring.fill(
            rings: [
                [SIMD2(2, 2), SIMD2(18, 2), SIMD2(18, 18), SIMD2(2, 18)],
                [SIMD2(6, 6), SIMD2(14, 6), SIMD2(14, 14), SIMD2(6, 14)],
            ],
            colour: Self.white, rule: .evenOdd)
        #expect(ring.image[3, 10].x == 255 && ring.image[10, 10].x == 0)
    }

    @Test func glyphBits() {
        // 'A': apex row .###., crossbar row #####, legs #...#.
        #expect(BitmapFont.rows(for: "A") == [0b01110, 0b10001, 0b10001, 0b11111, 0b10001, 0b10001, 0b10001])
        #expect(BitmapFont.isSet("A", column: 0, row: 3) && BitmapFont.isSet("A", column: 4, row: 3))
        #expect(!BitmapFont.isSet("A", column: 0, row: 0) && BitmapFont.isSet("A", column: 2, row: 0))
        #expect(BitmapFont.rows(for: " ").allSatisfy { $0 == 0 })
        #expect(BitmapFont.rows(for: "é") == BitmapFont.rows(for: "?"))
        // Every printable glyph fits in five columns; all but space have ink; no two are equal.
        let glyphs = (32..<127).map { BitmapFont.rows(for: Character(UnicodeScalar(UInt8($0)))) }
        #expect(glyphs.allSatisfy { $0.count == 7 && $0.allSatisfy { $0 < 32 } })
        #expect(glyphs.dropFirst().allSatisfy { $0.contains { $0 != 0 } })
        #expect(Set(glyphs).count == glyphs.count)
        #expect(BitmapFont.size(of: "#12", scale: 2) == (34, 14))
    }

    @Test func textRendersGlyphPixels() {
        var canvas = Canvas(width: 30, height: 20, background: Colour(red: 0, green: 0, blue: 0))
        canvas.text("H1", at: SIMD2(2, 3), scale: 2, colour: Self.white)
        // 'H' column 0 is set on every row: pixels (2…3, 3…16) lit.
        for y in 3..<17 { #expect(canvas.image[2, y].x == 255 && canvas.image[3, y].x == 255) }
        // 'H' columns 1–3 are only set on the bar, row 3 → pixels y 9…10.
        #expect(canvas.image[5, 3].x == 0 && canvas.image[5, 9].x == 255 && canvas.image[7, 10].x == 255)
        // '1' starts at x = 2 + 12: its stem is column 2 → x 18…19, set on all rows.
        #expect(canvas.image[18, 5].x == 255 && canvas.image[19, 14].x == 255)
        // Nothing below the glyph box.
        #expect((0..<30).allSatisfy { canvas.image[$0, 17].x == 0 })
        // Centred and right alignment move the text.
        var centred = Canvas(width: 30, height: 10, background: Colour(red: 0, green: 0, blue: 0))
        centred.text("I", at: SIMD2(15, 0), colour: Self.white, alignment: .centre)
        #expect(centred.image[15, 1].x == 255 && centred.image[14, 1].x == 0)
        var halo = Canvas(width: 20, height: 12, background: Colour(red: 0, green: 0, blue: 0))
        halo.text("|", at: SIMD2(5, 2), colour: Self.white, halo: Self.red)
        #expect(halo.image[7, 4] == SIMD3(255, 255, 255) && halo.image[6, 4] == SIMD3(255, 0, 0))
        #expect(halo.image[5, 4].x == 0)
    }

    @Test func imageDrawingResamples() throws {
        // A 4 × 2 checker of black/white columns shrunk 2× averages pairs to grey.
        var source = RGBImage(width: 4, height: 2)
        for y in 0..<2 { for x in 0..<4 where x % 2 == 0 { source[x, y] = SIMD3(255, 255, 255) } }
        var canvas = Canvas(width: 2, height: 1, background: Colour(red: 1, green: 0, blue: 0))
        canvas.draw(
            source, mapping: ViewMapping(scale: 0.5, offset: .zero), clip: PixelRect(x: 0, y: 0, width: 2, height: 1))
        #expect(canvas.image[0, 0] == SIMD3(128, 128, 128))
        // Aspect fill of 400 × 200 into 100 × 100: scale 0.5, centred horizontally.
        let fill = ViewMapping.aspectFill(
            sourceWidth: 400, sourceHeight: 200, view: PixelRect(x: 10, y: 0, width: 100, height: 100))
        #expect(fill.scale == 0.5 && fill.offset == SIMD2(-40, 0))
        #expect(fill.source(fill.view(SIMD2(123, 45))) == SIMD2(123, 45))
        // Paste copies exactly, clipped.
        var target = Canvas(width: 3, height: 3, background: Colour(red: 0, green: 0, blue: 0))
        target.paste(source, at: PixelRect(x: 1, y: 1, width: 4, height: 2))
        #expect(target.image[1, 1] == SIMD3(255, 255, 255) && target.image[2, 1] == SIMD3(0, 0, 0))
        #expect(target.image[0, 0] == SIMD3(0, 0, 0))
    }
}
