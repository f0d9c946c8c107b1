import PeripheryCore
import PeripheryGeometry

/// Where the panes of the split view go (visualization §10.3): the camera pane at the top left,
/// `max(0.38 · W, 260)` wide with aspect 2 : 1, the HUD under it, the world view on the right and
/// an optional caption strip across the bottom.
struct SplitLayout: Sendable, Hashable {
    /// The camera pane.
    var camera: PixelRect
    /// The HUD under the camera pane (what is left of the left column).
    var hud: PixelRect
    /// The world view.
    var world: PixelRect
    /// The caption strip across the bottom; empty when there is no caption.
    var caption: PixelRect

    /// Narrowest camera pane, pixels.
    static let minimumCameraWidth = 260
    /// Camera pane width as a fraction of the picture width.
    static let cameraFraction = 0.38
    /// Camera pane width : height.
    static let cameraAspect = 2.0

    /// Lays out a `width × height` picture with a caption strip `captionHeight` pixels high (0 for none).
    init(width: Int, height: Int, captionHeight: Int = 0) {
        let strip = min(max(captionHeight, 0), height)
        let body = height - strip
        let fraction = Int((SplitLayout.cameraFraction * Double(width)).rounded())
        let cameraWidth = min(width, max(fraction, SplitLayout.minimumCameraWidth))
        let cameraHeight = min(body, Int((Double(cameraWidth) / SplitLayout.cameraAspect).rounded()))
        camera = PixelRect(x: 0, y: 0, width: cameraWidth, height: cameraHeight)
        hud = PixelRect(x: 0, y: cameraHeight, width: cameraWidth, height: body - cameraHeight)
        world = PixelRect(x: cameraWidth, y: 0, width: width - cameraWidth, height: body)
        caption = PixelRect(x: 0, y: body, width: width, height: strip)
    }
}
