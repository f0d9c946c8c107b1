import Periphery

/// Pictures the `detect` and `run` commands draw.
enum FrameRendering {
    /// Caption drawn on pictures made with untrained weights.
    static let untrainedCaption = "UNTRAINED TEST WEIGHTS - boxes are not real vehicles"

    /// The camera frame with boxes and ground guides, captioned when the weights are untrained.
    static func overlay(frame: RGBImage, calibration: CameraCalibration, vehicles: [TrackedVehicle], untrained: Bool) -> RGBImage {
        let drawn = CameraOverlay(calibration: calibration).render(on: frame, vehicles: vehicles)
        return untrained ? captioned(drawn) : drawn
    }

    /// The 2.5D bird's-eye view, captioned when the weights are untrained.
    static func birdsEye(calibration: CameraCalibration, vehicles: [TrackedVehicle], untrained: Bool) -> RGBImage {
        let view = WorldView(networkFocal: calibration.crop.achievedFocal).render(vehicles, width: 960, height: 540)
        return untrained ? captioned(view) : view
    }

    /// The untrained-weights caption across the top of a picture.
    static func captioned(_ picture: RGBImage) -> RGBImage {
        var canvas = Canvas(picture)
        let scale = max(1, picture.height / 270)
        canvas.text(
            untrainedCaption, at: SIMD2(picture.width / 2, 4 * scale), scale: scale, colour: Colour(hex: 0xFFD24A),
            alignment: .centre, halo: Colour(hex: 0x000000))
        return canvas.image
    }
}
