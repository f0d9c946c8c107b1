import PeripheryCore
import PeripheryGeometry

/// Where the panes of the composite go: the camera pane on the left at the camera frame's own aspect
/// and the full body height, the world view over all the remaining width at full height, the HUD as a
/// small box over the world pane's top-left corner and an optional caption strip across the bottom.
///
/// This deviates from the reference's split view (visualization §10.3: a 2 : 1 camera pane at the
/// top left, `max(0.38 · W, 260)` wide, a HUD under it and the world view on the right). That layout
/// left about half of the left column under the camera as a nearly empty HUD and cropped every frame
/// that is not 2 : 1; here every body pixel belongs to the camera or the world pane.
///
/// The rule for a `width × height` picture, body height `B = height − caption`:
/// - the camera pane is `round(B · aspect)` wide, but at most `round(maximumCameraFraction · width)`
///   so that the world view keeps about a third of a picture too narrow for the frame;
/// - only when that cap applies is the frame letterboxed: `picture` is then the frame's rectangle,
///   centred vertically in the camera pane, and the bands above and below it stay empty;
/// - the world pane takes every column right of the camera pane, at full body height.
///
/// `Composite.pictureSize` picks sizes where the cap never applies.
struct SplitLayout: Sendable, Hashable {
    /// The camera pane: the left column, full body height.
    var camera: PixelRect
    /// Where the frame is drawn inside `camera`: all of it, or a vertically centred band when the
    /// frame is letterboxed.
    var picture: PixelRect
    /// The world view: every column right of the camera pane, full body height.
    var world: PixelRect
    /// The HUD box, over the world pane's top-left corner; empty when no size is asked for.
    var hud: PixelRect
    /// The caption strip across the bottom; empty when there is no caption.
    var caption: PixelRect

    /// Widest camera pane as a fraction of the picture width (about two thirds, which a 2 : 1 frame
    /// beside a square world pane just reaches).
    static let maximumCameraFraction = 2.0 / 3.0
    /// Camera aspect used when the frame's is unknown (an empty frame): the reference's 2 : 1.
    static let fallbackAspect = 2.0

    /// Lays out a `width × height` picture.
    ///
    /// - Parameters:
    ///   - cameraAspect: the camera frame's width / height.
    ///   - captionHeight: rows of the caption strip, 0 for none.
    ///   - hudSize: width and height of the HUD box (clipped to the world pane); zero for none.
    ///   - hudMargin: gap between the HUD box and the world pane's top and left edges.
    init(
        width: Int, height: Int, cameraAspect: Double, captionHeight: Int = 0, hudSize: SIMD2<Int> = .zero,
        hudMargin: Int = 8
    ) {
        let width = max(width, 0), height = max(height, 0)
        let strip = min(max(captionHeight, 0), height)
        let body = height - strip
        let aspect = cameraAspect.isFinite && cameraAspect > 0 ? cameraAspect : SplitLayout.fallbackAspect
        let natural = (Double(body) * aspect).rounded()
        let cap = (SplitLayout.maximumCameraFraction * Double(width)).rounded()
        let cameraWidth = Int(min(natural, cap, Double(width)))
        camera = PixelRect(x: 0, y: 0, width: cameraWidth, height: body)
        if Double(cameraWidth) < natural {
            // Capped: the frame keeps its aspect at the pane's width and is centred vertically.
            let rows = min(body, Int((Double(cameraWidth) / aspect).rounded()))
            picture = PixelRect(x: 0, y: (body - rows) / 2, width: cameraWidth, height: rows)
        } else {
            picture = camera
        }
        world = PixelRect(x: cameraWidth, y: 0, width: width - cameraWidth, height: body)
        let margin = max(hudMargin, 0)
        hud = PixelRect(
            x: world.x + margin, y: world.y + margin,
            width: max(0, min(hudSize.x, world.width - 2 * margin)), height: max(0, min(hudSize.y, body - 2 * margin)))
        caption = PixelRect(x: 0, y: body, width: width, height: strip)
    }
}
