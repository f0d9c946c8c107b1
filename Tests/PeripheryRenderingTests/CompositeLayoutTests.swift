import Foundation
import PeripheryTestSupport
import Testing

@testable import PeripheryCore
@testable import PeripheryGeometry
@testable import PeripheryRendering

/// The composite's layout: the camera pane at the frame's aspect and full body height, the world view
/// over the rest of the width, the HUD over the world pane, nothing left empty.
struct CompositeLayoutTests {
    /// Frame sizes of the aspects checked: 16 : 9, 4 : 3, 2 : 1, portrait 9 : 16 and the golden comma
    /// camera (1164 × 874, about 4 : 3).
    static let frames = [(1920, 1080), (640, 480), (1024, 512), (1080, 1920), (1164, 874)]

    /// The layout `Composite.render` uses for a picture size, a frame size and whether it draws a caption.
    static func layout(width: Int, height: Int, frame: (Int, Int), caption: Bool) -> SplitLayout {
        let strip = caption ? Composite.captionHeight(scale: Composite.textScale(height: height)) : 0
        return SplitLayout(
            width: width, height: height, cameraAspect: Double(frame.0) / Double(frame.1), captionHeight: strip)
    }

    /// Why a layout does not tile its picture (every pixel in exactly one of the camera pane, the world
    /// pane and the caption strip; the caption strip below the body; the frame's rectangle inside the
    /// camera pane), or `nil` when it does.
    static func tilingFault(_ layout: SplitLayout, width: Int, height: Int) -> String? {
        let panes = [layout.camera, layout.world, layout.caption]
        for y in 0..<height {
            for x in 0..<width {
                let count = panes.filter { $0.contains(x: x, y: y) }.count
                if count != 1 { return "pixel (\(x), \(y)) is in \(count) panes" }
            }
        }
        if !layout.caption.isEmpty, layout.caption.y != layout.camera.height || layout.caption.y != layout.world.height {
            return "the caption strip does not start under the body"
        }
        if layout.picture.intersection(layout.camera) != layout.picture { return "the frame overflows its pane" }
        return nil
    }

    /// Pixels of a picture's body (above `bodyHeight`) left in a background colour, the split view's
    /// or the HUD's: what no pane paints.
    static func emptyPixels(_ image: RGBImage, bodyHeight: Int) -> Int {
        let empty: Set<SIMD3<UInt8>> = [Palette.splitBackground.rgb8, Palette.hudBackground.rgb8]
        var count = 0
        for y in 0..<bodyHeight {
            for x in 0..<image.width where empty.contains(image[x, y]) { count += 1 }
        }
        return count
    }

    @Test func pictureSizes() {
        // 16 : 9 at 540: camera 960, world round(0.95 · 540) = 513, 1473 rounded up to even.
        #expect(Composite.pictureSize(frameWidth: 1920, frameHeight: 1080) == (1474, 540))
        // 4 : 3: camera 720 + 513.
        #expect(Composite.pictureSize(frameWidth: 640, frameHeight: 480) == (1234, 540))
        // 2 : 1: the camera pane (1080) may take two thirds of the width, so the world pane is 540.
        #expect(Composite.pictureSize(frameWidth: 1024, frameHeight: 512) == (1620, 540))
        // A caption takes its 15 rows from the body: camera round(525 · 16 / 9) = 933, world 499.
        #expect(Composite.pictureSize(frameWidth: 1920, frameHeight: 1080, hasCaption: true) == (1432, 540))
        // An odd height is rounded up to even; an empty frame falls back to 2 : 1.
        #expect(Composite.pictureSize(frameWidth: 640, frameHeight: 480, height: 401).height == 402)
        #expect(Composite.pictureSize(frameWidth: 0, frameHeight: 0) == (1620, 540))
    }

    /// At the size `pictureSize` picks, the camera pane has the frame's aspect at full body height, the
    /// world pane is about square and the two tile the body with no letterbox.
    @Test(arguments: CompositeLayoutTests.frames, [(540, false), (540, true), (720, false), (401, true)])
    func naturalSizeTilesTheBody(frame: (Int, Int), picture: (height: Int, caption: Bool)) {
        let size = Composite.pictureSize(
            frameWidth: frame.0, frameHeight: frame.1, height: picture.height, hasCaption: picture.caption)
        #expect(size.width % 2 == 0 && size.height % 2 == 0 && size.height >= picture.height)
        let layout = Self.layout(width: size.width, height: size.height, frame: frame, caption: picture.caption)
        #expect(Self.tilingFault(layout, width: size.width, height: size.height) == nil)
        let body = size.height - layout.caption.height
        let aspect = Double(frame.0) / Double(frame.1)
        #expect(layout.picture == layout.camera, "letterboxed at its own size")
        #expect(layout.camera.height == body && layout.world.height == body)
        #expect(abs(Double(layout.camera.width) - aspect * Double(body)) <= 1, "camera \(layout.camera)")
        let square = Double(layout.world.width) / Double(body)
        #expect(square >= 0.9 && square <= 1.01, "world \(layout.world)")
    }

    /// At any other size the panes still tile the body; the frame keeps its aspect, at full body height
    /// or, when its pane is capped at two thirds of the width, letterboxed and centred in its pane.
    @Test(
        arguments: CompositeLayoutTests.frames,
        [(1280, 540, 0), (1000, 600, 15), (800, 800, 0), (2000, 500, 0), (500, 900, 15), (641, 361, 0), (300, 20, 30)])
    func anySizeTilesTheBody(frame: (Int, Int), picture: (width: Int, height: Int, caption: Int)) {
        let aspect = Double(frame.0) / Double(frame.1)
        let layout = SplitLayout(
            width: picture.width, height: picture.height, cameraAspect: aspect, captionHeight: picture.caption)
        #expect(Self.tilingFault(layout, width: picture.width, height: picture.height) == nil)
        let body = max(0, picture.height - picture.caption)
        let cap = Int((2 * Double(picture.width) / 3).rounded())
        #expect(layout.camera.width <= cap && layout.world.width == picture.width - layout.camera.width)
        let shot = layout.picture
        if shot == layout.camera {
            #expect(shot.height == body)
            #expect(abs(Double(shot.width) - aspect * Double(shot.height)) <= 1, "frame \(shot)")
        } else {
            // Letterboxed: the pane is as wide as allowed, the frame as wide as the pane and centred.
            #expect(layout.camera.width == cap && shot.width == cap && shot.height < body)
            #expect(abs(Double(shot.height) - Double(shot.width) / aspect) <= 1, "frame \(shot)")
            let above = shot.y - layout.camera.y, below = layout.camera.height - shot.height - above
            #expect(abs(above - below) <= 1)
        }
    }

    /// The HUD box sits inside the world pane at its top-left corner, clipped to it.
    @Test func hudOverTheWorldPane() {
        let layout = SplitLayout(width: 1474, height: 540, cameraAspect: 16.0 / 9, hudSize: SIMD2(90, 40), hudMargin: 8)
        #expect(layout.hud == PixelRect(x: 968, y: 8, width: 90, height: 40))
        #expect(layout.hud.intersection(layout.world) == layout.hud && layout.hud.intersection(layout.camera).isEmpty)
        let narrow = SplitLayout(width: 100, height: 50, cameraAspect: 1, hudSize: SIMD2(90, 40), hudMargin: 8)
        #expect(narrow.hud.intersection(narrow.world) == narrow.hud && narrow.hud.width == narrow.world.width - 16)
        #expect(SplitLayout(width: 1474, height: 540, cameraAspect: 16.0 / 9).hud.isEmpty)
    }

    /// Rendered at the size `pictureSize` picks, under 2 % of the body is left in a background colour
    /// (the HUD box, about 0.3 %, counts against it). The reference's layout fails this by far: its
    /// HUD under the 2 : 1 camera pane was about 0.62 · H × 0.38 · W, some 21 % of a 1280 × 540 body.
    @Test(arguments: CompositeLayoutTests.frames, [false, true])
    func renderedCompositeHasNoEmptyRegion(frame size: (Int, Int), caption: Bool) throws {
        let calibration = try goldenCalibration()
        let frame = RGBImage(width: size.0, height: size.1, fill: SIMD3(200, 10, 10))
        let composite = Composite(overlay: CameraOverlay(calibration: calibration, showsGuides: false), world: WorldView())
        let picture = Composite.pictureSize(frameWidth: size.0, frameHeight: size.1, hasCaption: caption)
        let car = CameraOverlayTests.vehicle(x: 15, y: -1.2)
        let image = composite.render(
            frame: frame, vehicles: [car], egoSpeed: 12.5, caption: caption ? "UNTRAINED" : nil, width: picture.width,
            height: picture.height)
        #expect(image.width == picture.width && image.height == picture.height)
        let layout = Self.layout(width: picture.width, height: picture.height, frame: size, caption: caption)
        let body = picture.height - layout.caption.height
        let empty = Self.emptyPixels(image, bodyHeight: body)
        #expect(Double(empty) < 0.02 * Double(picture.width * body), "\(empty) empty pixels")
        // The frame reaches the camera pane's corners; the world view reaches the right edge.
        let red = SIMD3<UInt8>(200, 10, 10)
        #expect(image[0, 0] == red && image[layout.camera.width - 1, body - 1] == red)
        #expect((0..<body).allSatisfy { image[picture.width - 1, $0] != Palette.splitBackground.rgb8 })
        if caption {
            // The caption strip has vision-coloured text on the HUD background.
            let strip = (body..<picture.height).flatMap { y in (0..<200).map { image[$0, y] } }
            #expect(strip.contains(Palette.vision.rgb8) && strip.contains(Palette.hudBackground.rgb8))
        }
    }

    /// The empty-pixel measure sees letterbox bands: a 16 : 9 frame in the old fixed 1280 × 540 picture
    /// is capped at two thirds of the width and leaves 2 × 30 rows of its pane empty, about 7 % of the
    /// body. The HUD's speed is drawn in its box.
    @Test func letterboxedCompositeShowsItsBands() throws {
        let calibration = try goldenCalibration()
        let frame = RGBImage(width: 1920, height: 1080, fill: SIMD3(200, 10, 10))
        let composite = Composite(overlay: CameraOverlay(calibration: calibration, showsGuides: false), world: WorldView())
        let image = composite.render(frame: frame, vehicles: [], egoSpeed: 12.5, width: 1280, height: 540)
        let empty = Self.emptyPixels(image, bodyHeight: 540)
        #expect(Double(empty) > 0.05 * 1280 * 540, "\(empty) empty pixels")
        #expect(image[10, 10] == Palette.splitBackground.rgb8 && image[10, 270] == SIMD3(200, 10, 10))
        let layout = SplitLayout(width: 1280, height: 540, cameraAspect: 16.0 / 9)
        #expect(layout.camera.width == 853 && layout.picture == PixelRect(x: 0, y: 30, width: 853, height: 480))
        // "45 km/h" in the HUD box over the world pane's top-left corner.
        let hud = (8..<60).flatMap { y in (861..<960).map { image[$0, y] } }
        #expect(hud.contains(Palette.ink2.rgb8) && hud.contains(Palette.hudBackground.rgb8))
    }
}
