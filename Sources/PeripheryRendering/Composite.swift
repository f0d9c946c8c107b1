import Foundation
import PeripheryCore
import PeripheryGeometry

/// The composite picture: the camera frame with its overlay on the left at the frame's own aspect
/// and full height, the world view filling the rest, a small HUD box (speed, observed count) over the
/// world view's top-left corner and an optional caption line (for instance an "untrained weights"
/// warning) across the bottom.
///
/// The layout deviates from the reference's split view (visualization §10.3), whose 2 : 1 camera
/// pane sat over a mostly empty HUD; see `SplitLayout` for the rule. `pictureSize` gives the size
/// with no empty region for a frame's aspect; any other size still works, the camera pane taking at
/// most about two thirds of the width (letterboxed vertically inside its pane when that cap applies).
public struct Composite: Sendable {
    /// Draws the camera pane.
    public var overlay: CameraOverlay
    /// Draws the world pane.
    public var world: WorldView

    /// Creates a composite from its two painters.
    public init(overlay: CameraOverlay, world: WorldView) {
        self.overlay = overlay
        self.world = world
    }

    /// Width of the world pane in the pictures `pictureSize` picks, as a fraction of the body height
    /// (the world view's framing fills a roughly square pane well).
    static let worldFraction = 0.95

    /// Font scale for a picture: 1 below 700 px high, 2 up to 1050, ….
    static func textScale(height: Int) -> Int { max(1, Int((Double(height) / 520).rounded())) }

    /// Rows of the caption strip at a font scale.
    static func captionHeight(scale: Int) -> Int { BitmapFont.glyphHeight * scale + 8 * scale }

    /// The picture size that `render` fills without empty regions for frames of
    /// `frameWidth × frameHeight`: `height` rows (caption strip included), the camera pane at the
    /// frame's aspect and full body height, the world pane `0.95 ·` the body height wide (wider only
    /// for frames wider than 2 : 1, so that the camera pane stays within two thirds of the width).
    /// Both sides are rounded up to even numbers: H.264 in yuv420p needs them, and `VideoWriter`
    /// would otherwise drop the last column or row.
    ///
    /// - Parameters:
    ///   - frameWidth: width of the camera frames.
    ///   - frameHeight: height of the camera frames.
    ///   - height: picture height; 540 by default.
    ///   - hasCaption: whether a caption strip is drawn (it takes rows from the body).
    public static func pictureSize(
        frameWidth: Int, frameHeight: Int, height: Int = 540, hasCaption: Bool = false
    ) -> (width: Int, height: Int) {
        let rows = max(2, height + height % 2)
        let strip = hasCaption ? min(captionHeight(scale: textScale(height: rows)), rows) : 0
        let body = Double(rows - strip)
        let aspect = frameWidth > 0 && frameHeight > 0 ? Double(frameWidth) / Double(frameHeight) : SplitLayout.fallbackAspect
        let camera = (body * aspect).rounded()
        let fraction = SplitLayout.maximumCameraFraction
        // `SplitLayout` caps the camera pane at `round(fraction · width)`; a world pane of at least
        // `round(camera · (1 − fraction) / fraction)` keeps `fraction · width ≥ camera − fraction / 2`, under the cap.
        let world = max((worldFraction * body).rounded(), (camera * (1 - fraction) / fraction).rounded())
        let width = Int(camera + world)
        return (width + width % 2, rows)
    }

    /// Draws one frame of the composite.
    ///
    /// - Parameters:
    ///   - frame: the source camera frame.
    ///   - vehicles: the tracks, in the current ego frame.
    ///   - egoSpeed: ego speed over ground, m/s.
    ///   - caption: a line drawn across the bottom in the vision accent colour, or `nil`.
    ///   - width: picture width (`pictureSize` gives one with no empty region).
    ///   - height: picture height.
    public func render(
        frame: RGBImage, vehicles: [TrackedVehicle], egoSpeed: Double = 0, caption: String? = nil, width: Int,
        height: Int
    ) -> RGBImage {
        let scale = Composite.textScale(height: height)
        let captionHeight = caption == nil ? 0 : Composite.captionHeight(scale: scale)
        let pad = 6 * scale
        let speed = String(format: "%.0f km/h", egoSpeed.isFinite ? egoSpeed * 3.6 : 0)
        let observed = "\(vehicles.filter(\.observed).count) OBSERVED"
        let speedSize = BitmapFont.size(of: speed, scale: 2 * scale)
        let observedSize = BitmapFont.size(of: observed, scale: scale)
        let gap = 5 * scale
        let hudSize = SIMD2(
            max(speedSize.width, observedSize.width) + 2 * pad, speedSize.height + gap + observedSize.height + 2 * pad)
        let aspect = frame.height > 0 ? Double(frame.width) / Double(frame.height) : SplitLayout.fallbackAspect
        let layout = SplitLayout(
            width: width, height: height, cameraAspect: aspect, captionHeight: captionHeight, hudSize: hudSize,
            hudMargin: 8 * scale)
        var canvas = Canvas(width: width, height: height, background: Palette.splitBackground)

        if !layout.picture.isEmpty {
            let pane = overlay.render(
                frame: frame, vehicles: vehicles, width: layout.picture.width, height: layout.picture.height)
            canvas.paste(pane, at: layout.picture)
        }
        if !layout.world.isEmpty {
            let pane = world.render(
                vehicles, egoSpeed: egoSpeed, width: layout.world.width, height: layout.world.height)
            canvas.paste(pane, at: layout.world)
        }
        if !layout.hud.isEmpty {
            // Opaque, so that the text stays legible over whatever the world view draws there.
            let hud = layout.hud
            canvas.fillRect(x: hud.x, y: hud.y, width: hud.width, height: hud.height, colour: Palette.hudBackground)
            canvas.text(speed, at: SIMD2(hud.x + pad, hud.y + pad), scale: 2 * scale, colour: Palette.ink2)
            canvas.text(
                observed, at: SIMD2(hud.x + pad, hud.y + pad + speedSize.height + gap), scale: scale,
                colour: Palette.ink3)
        }
        if let caption, !layout.caption.isEmpty {
            let strip = layout.caption
            canvas.fillRect(
                x: strip.x, y: strip.y, width: strip.width, height: strip.height, colour: Palette.hudBackground)
            canvas.text(
                caption, at: SIMD2(strip.x + 4 * scale, strip.y + 4 * scale), scale: scale, colour: Palette.vision)
        }
        return canvas.image
    }
}
