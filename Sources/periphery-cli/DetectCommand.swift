import Foundation
import Periphery

/// `periphery detect`: one camera frame in, detections and pictures out.
enum DetectCommand: Command {
    static let name = "detect"
    static let summary = "Detect vehicles in one camera frame (PNG/JPEG, or a video's frame); print JSON, draw pictures."
    static let help = """
        USAGE: periphery detect IMAGE|VIDEO --calibration C.json [--frame N | --time S] [--weights W] [--threshold T]
                                [--nms-radius R] [--reject-implausible] [--json OUT.json] [--overlay O.png] [--bev B.png]

        Runs the whole pipeline on IMAGE: focal-matched crop, resize, letterbox and normalisation, the
        Safety40 network, decode. Prints a JSON array of detections {score, label, class, x, y, z,
        length, width, height, yaw} (vehicle frame, metres, radians) to stdout, or to OUT.json.
        --overlay draws the boxes on the frame, --bev the 2.5D bird's-eye view. A file that is not a PNG
        or JPEG is read as a video (docs/guides/video.md): its first frame, or the one --frame or --time names.

        OPTIONS:
          --calibration C.json   camera and mount; its frame size must be the image's
          --frame N              of a VIDEO: the Nth frame (from 0)
          --time S               of a VIDEO: the first frame shown at least S seconds after the first
          --weights W            weights file (default: Weights/safety40-synthetic.safetensors)
          --threshold T          score threshold in [0, 1] (default 0.50)
          --nms-radius R         circular NMS radius in metres (default 2.0)
          --reject-implausible   drop boxes whose size is implausible for their class
          --json OUT.json        write the detections there instead of stdout
          --overlay O.png        camera frame with boxes and ground guides
          --bev B.png            bird's-eye view
          --threads T            worker threads (default: all cores)
        \(Defaults.precisionHelp)
          --help                 show this help
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(
            arguments,
            options: ["calibration", "weights", "threshold", "nms-radius", "json", "overlay", "bev", "threads", "precision", "int8-kernel", "frame", "time"],
            flags: ["reject-implausible"])
        guard args.positional.count == 1 else { throw CLIError("give exactly one IMAGE") }
        let imagePath = args.positional[0]
        let setup = try CalibrationFile.load(path: try args.required("calibration"))
        let image = try readFrame(imagePath, args: args)
        guard image.width == setup.intrinsics.width, image.height == setup.intrinsics.height else {
            throw CLIError("\(imagePath) is \(image.width)x\(image.height) but the calibration describes \(setup.intrinsics.width)x\(setup.intrinsics.height)")
        }
        warnIfFocalMismatched(CameraCalibration(setup))
        let weights = try Defaults.loadWeights(try Defaults.weightsPath(args))
        let engine = try PerceptionEngine(
            weights: weights, threads: try Defaults.threads(args),
            settings: DecodeSettings(
                scoreThreshold: Float(try args.number("threshold", default: 0.5, in: 0...1)),
                nmsRadius: try args.number("nms-radius", default: 2.0, in: 0...1000),
                rejectImplausible: args.flag("reject-implausible")),
            precision: try Defaults.precision(args), int8Kernel: try Defaults.int8Kernel(args))
        let result = try engine.process(
            PerceptionFrame(
                pixels: try FramePixels(image), timestamp: 0, intrinsics: setup.intrinsics, pose: setup.pose))

        let json = try JSONOutput.array(result.detections.map(DetectionRecord.init)) + "\n"
        if let out = args.value("json") {
            try OutputFile.write(Data(json.utf8), to: out)
            printError("\(result.detections.count) detections -> \(out)")
        } else {
            try OutputFile.writeStandardOutput(Data(json.utf8))
        }
        // Drawn as observed boxes with ids in score order: one frame has no tracks.
        let vehicles = result.detections.enumerated().map { TrackedVehicle(detection: $1, id: $0 + 1) }
        let caption = weights.provenance.caption
        if let out = args.value("overlay") {
            let overlay = CameraOverlay(calibration: result.calibration).render(on: image, vehicles: vehicles)
            try ImageFile.writePNG(captioned(overlay, caption), to: out)
            printError("overlay -> \(out)")
        }
        if let out = args.value("bev") {
            let view = WorldView(networkFocal: result.calibration.crop.achievedFocal).render(vehicles, width: 960, height: 540)
            try ImageFile.writePNG(captioned(view, caption), to: out)
            printError("bird's-eye view -> \(out)")
        }
        return 0
    }

    /// `picture` with `caption` across its top, if there is one.
    static func captioned(_ picture: RGBImage, _ caption: String?) -> RGBImage {
        guard let caption else { return picture }
        var canvas = Canvas(picture)
        canvas.caption(caption)
        return canvas.image
    }

    /// The picture at `path`, or a video's frame.
    static func readFrame(_ path: String, args: Arguments) throws -> RGBImage {
        let isPicture = ImageFile.pictureExtensions.contains(URL(fileURLWithPath: path).pathExtension.lowercased())
        guard !isPicture || args.value("frame") != nil || args.value("time") != nil else { return try ImageFile.read(path: path) }
        let index = try args.value("frame").map { _ in Int(try args.number("frame", default: 0, in: 0...1e9)) }
        let seconds = try args.value("time").map { _ in try args.number("time", default: 0, in: 0...1e7) }
        if index != nil, seconds != nil { throw CLIError("give --frame or --time, not both") }
        return try VideoFrameSource.frame(in: path, index: index, seconds: seconds).image
    }
}
