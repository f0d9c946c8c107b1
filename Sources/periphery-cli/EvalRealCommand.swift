import Foundation
import Periphery

/// `periphery eval-real`: the detector on the hand-labelled real frames, scored in the picture.
enum EvalRealCommand: Command {
    static let name = "eval-real"
    static let summary = "Score detection on the hand-labelled real frames (image boxes): precision, recall, F1 per camera."
    static let help = """
        USAGE: periphery eval-real [--data DIR] [--weights W] [--precision P] [--threshold T] [--iou U] [--json]
                                   [--matches OUT.jsonl]

        Runs the detector on every frame of a real-frame set (default Tests/real: hand-drawn image
        boxes, a calibration per camera; Tests/real/README.md) and scores it in the picture
        (docs/guides/evaluation.md#real-frames): each detection's 3-D box is projected through the
        frame's calibration (the rectangle around its 8 corners, clipped to the frame); detections
        by descending score take the unmatched labelled box of largest IoU, at least U. A label
        counts if it is not don't care, its ground contact is within 40 m and the detector's grid,
        and at most half of it lies outside the detector's view; a detection on a label that does
        not count, or unmatched beyond 40 m, is neither true nor false. Prints a table per camera:
        frames, vehicles that count, precision, recall, F1, false boxes per frame.

        OPTIONS:
          --data DIR          the set's folder, with labels/, frames/ and cameras/ (default: Tests/real)
          --weights W         weights file (default: Weights/safety40-synthetic.safetensors)
          --threshold T       operating point (default 0.60, the display threshold)
          --iou U             smallest IoU of a match (default 0.4)
          --json              print one JSON object instead of the table
          --matches OUT.jsonl write each frame's outcome, one JSON line per frame: "frame", "camera",
                              "matched" ([detection, label, IoU]), "false_positives", "ignored" (detection
                              indices), "missed" (label indices), "detections" (score and projected box)
          --threads T         worker threads (default: all cores)
        \(Defaults.precisionHelp)
          --help              show this help
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(
            arguments, options: ["data", "weights", "threshold", "iou", "threads", "matches", "precision", "int8-kernel"], flags: ["json"])
        try args.expectNoPositional()
        let set = try RealFrameSet(path: args.value("data") ?? "Tests/real")
        let threshold = Float(try args.number("threshold", default: 0.6, in: 0...1))
        let matcher = ImageBoxMatcher(iouThreshold: try args.number("iou", default: ImageBoxMatcher.defaultIoU, in: 0.01...1), scoreThreshold: threshold)
        let weights = try Defaults.loadWeights(try Defaults.weightsPath(args))
        let engine = try Defaults.evaluationEngine(args, weights: weights, threshold: threshold)
        var report = ImageBoxReport()
        var lines: [String] = []
        for file in set.labelFiles {
            let frame = try set.read(file)
            let image = try ImageFile.read(path: frame.imagePath)
            guard image.width == frame.setup.intrinsics.width, image.height == frame.setup.intrinsics.height else {
                throw CLIError(
                    "\(frame.imagePath) is \(image.width)x\(image.height), its calibration \(frame.setup.intrinsics.width)x\(frame.setup.intrinsics.height)")
            }
            engine.reset()
            let result = try engine.process(
                PerceptionFrame(pixels: try FramePixels(image), timestamp: 0, intrinsics: frame.setup.intrinsics, pose: frame.setup.pose))
            let calibration = CameraCalibration(frame.setup)
            let candidates = frame.candidates(result.detections, calibration: calibration)
            let outcome = matcher.match(candidates: candidates, truth: frame.truth(calibration: calibration))
            report.add(outcome, group: frame.camera)
            lines.append(try JSONOutput.line(MatchLine(frame: frame, outcome: outcome, candidates: candidates)))
        }
        if let path = args.value("matches") { try OutputFile.write(Data(lines.map { $0 + "\n" }.joined().utf8), to: path) }
        print(args.flag("json") ? report.json : report.description)
        if weights.provenance.training == .untrained { printError("note: untrained test weights - these numbers measure nothing") }
        return 0
    }

    /// One `--matches` line: indices into the frame's detections (in the engine's order) and labels (file order).
    struct MatchLine: Encodable {
        var frame: String
        var camera: String
        var matched: [[Double]]
        var falsePositives: [Int]
        var ignored: [Int]
        var missed: [Int]
        var detections: [Candidate]

        /// A detection's score and projected, clipped rectangle [x0, y0, x1, y1].
        struct Candidate: Encodable {
            var score: Float
            var box: [Double]
            var inRange: Bool
        }

        init(frame: RealFrame, outcome: ImageBoxOutcome, candidates: [ImageBoxCandidate]) {
            self.frame = frame.name
            camera = frame.camera
            matched = outcome.pairs.map { [Double($0.candidate), Double($0.truth), $0.iou] }
            falsePositives = outcome.falsePositives
            ignored = outcome.ignored
            missed = outcome.missed
            detections = candidates.map {
                Candidate(score: $0.score, box: [$0.rectangle.x, $0.rectangle.y, $0.rectangle.z, $0.rectangle.w], inRange: $0.inRange)
            }
        }
    }
}
