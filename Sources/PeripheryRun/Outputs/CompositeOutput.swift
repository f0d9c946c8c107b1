import Foundation
import PeripheryCore
import PeripheryIO
import PeripheryInference
import PeripheryRendering

/// The camera with its overlay beside the 2.5D bird's-eye view, per processed frame: as numbered
/// PNG pictures in a folder, as an H.264 MP4 at the frames' own times, or both.
///
/// Pictures are 540 rows high and as wide as the first frame's aspect needs for the camera pane at
/// full height beside a roughly square world pane (`Composite.pictureSize`; without a caption
/// 1,474 × 540 for a 16 : 9 frame, 1,234 × 540 for 4 : 3). That size then holds for the whole run,
/// as a video needs; a later frame of another aspect is fitted into it by `Composite.render`'s rule.
public final class CompositeOutput: PerceptionOutput {
    /// Where the pictures go (`NNNNNN.png`), if anywhere.
    public let pictures: String?
    /// The video, if any.
    public let videoPath: String?
    private let fps: Double
    private let caption: String?
    private var video: VideoWriter?
    /// The picture size, decided by the first frame.
    private var size: (width: Int, height: Int)?

    /// Height of every picture, pixels.
    static let pictureHeight = 540

    /// Composites into `pictures` and/or `video` (nominal `fps`), `caption` across the bottom of each
    /// (the weights' `WeightsProvenance.caption`: the untrained-weights warning).
    public init(pictures: String? = nil, video: String? = nil, fps: Double, caption: String? = nil) {
        self.pictures = pictures
        videoPath = video
        self.fps = fps
        self.caption = caption
    }

    /// Frames in the video so far.
    public var videoFrames: Int { video?.frames ?? 0 }

    public func write(_ processed: ProcessedFrame) throws {
        let calibration = processed.result.calibration
        let image = processed.frame.image
        let size =
            size
            ?? Composite.pictureSize(
                frameWidth: image.width, frameHeight: image.height, height: CompositeOutput.pictureHeight, hasCaption: caption != nil)
        self.size = size
        let picture = Composite(overlay: CameraOverlay(calibration: calibration), world: WorldView(networkFocal: calibration.crop.achievedFocal))
            .render(
                frame: image, vehicles: processed.result.tracks, egoSpeed: processed.ego?.speed ?? 0, caption: caption,
                width: size.width, height: size.height)
        if let pictures { try ImageFile.writePNG(picture, to: String(format: "%@/%06d.png", pictures, processed.index)) }
        if let videoPath {
            if video == nil { video = try VideoWriter(path: videoPath, width: picture.width, height: picture.height, fps: fps) }
            try video?.append(picture, at: processed.frame.timestamp)
        }
    }

    public func finish(_ summary: RunSummary) throws {
        try video?.finish()
    }
}
