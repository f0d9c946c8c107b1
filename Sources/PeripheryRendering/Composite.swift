import Foundation
import PeripheryCore
import PeripheryGeometry

/// The split view: the camera frame with its overlay on the left, the HUD under it, the world view
/// on the right and an optional caption line (for instance an "untrained weights" warning) across
/// the bottom.
public struct Composite: Sendable {
    /// Draws the camera pane.
    public var overlay: CameraOverlay
    /// Draws the world pane.
    public var world: WorldView

    /// Creates a split view from its two painters.
    public init(overlay: CameraOverlay, world: WorldView) {
        self.overlay = overlay
        self.world = world
    }

    /// Font scale for a picture: 1 below 700 px high, 2 up to 1050, ….
    static func textScale(height: Int) -> Int { max(1, Int((Double(height) / 520).rounded())) }

    /// Draws one frame of the split view.
    ///
    /// - Parameters:
    ///   - frame: the source camera frame.
    ///   - vehicles: the tracks, in the current ego frame.
    ///   - egoSpeed: ego speed over ground, m/s.
    ///   - caption: a line drawn across the bottom in the vision accent colour, or `nil`.
    ///   - width: picture width.
    ///   - height: picture height.
    public func render(
        frame: RGBImage, vehicles: [TrackedVehicle], egoSpeed: Double = 0, caption: String? = nil, width: Int,
        height: Int
    ) -> RGBImage {
        let scale = Composite.textScale(height: height)
        let captionHeight = caption == nil ? 0 : BitmapFont.glyphHeight * scale + 8 * scale
        let layout = SplitLayout(width: width, height: height, captionHeight: captionHeight)
        var canvas = Canvas(width: width, height: height, background: Palette.splitBackground)

        if !layout.camera.isEmpty {
            let pane = overlay.render(
                frame: frame, vehicles: vehicles, width: layout.camera.width, height: layout.camera.height)
            canvas.paste(pane, at: layout.camera)
        }
        if !layout.world.isEmpty {
            let pane = world.render(
                vehicles, egoSpeed: egoSpeed, width: layout.world.width, height: layout.world.height)
            canvas.paste(pane, at: layout.world)
        }
        if !layout.hud.isEmpty {
            let hud = layout.hud
            canvas.fillRect(x: hud.x, y: hud.y, width: hud.width, height: hud.height, colour: Palette.hudBackground)
            let pad = 8 * scale
            let speed = String(format: "%.0f km/h", egoSpeed.isFinite ? egoSpeed * 3.6 : 0)
            canvas.text(speed, at: SIMD2(hud.x + pad, hud.y + pad), scale: 2 * scale, colour: Palette.ink2)
            let observed = vehicles.filter(\.observed).count
            canvas.text(
                "\(observed) OBSERVED", at: SIMD2(hud.x + pad, hud.y + pad + 22 * scale), scale: scale,
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
