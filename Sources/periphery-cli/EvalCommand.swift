import Foundation
import Periphery

/// `periphery eval`: the detection table of docs/guides/evaluation.md over a labelled dataset.
enum EvalCommand: Command {
    static let name = "eval"
    static let summary = "Evaluate detection on a labelled dataset (precision, recall, F1, centre and yaw error)."
    static let help = """
        USAGE: periphery eval --data DIR [--layout L] [--split S] [--mount-height M] [--mount-pitch DEG] [--strict]
                              [--weights W] [--threshold T] [--pitch DEG] [--pitch-bias DEG] [--pitch-jitter DEG] [--json]
                              [--matches OUT.jsonl]

        Runs the detector on every frame of a labelled dataset (written by `periphery synth`, or KITTI
        3D object, or Cityscapes 3D) and matches its
        detections with the labels by the project's rule (`docs/guides/evaluation.md`: region 0-40 m x ±10 m,
        vehicles only, predictions by descending score take the nearest unmatched truth closer than
        2.0 m). Labelled vehicles outside the network's crop are "don't care": a prediction near
        one is not a false positive and missing one is not a miss, and so are labels that are not a
        Safety40 class; detections inside a KITTI DontCare region are left out. Prints precision,
        recall, F1, median centre error, median yaw error, precision and
        recall inside 10 m, contact error and the frame count.

        OPTIONS:
        \(DatasetArguments.help)
          --weights W         weights file (default: Weights/safety40-synthetic.safetensors)
          --threshold T       operating point (default 0.60, the display threshold)
          --pitch DEG         detect with this mount pitch on every frame instead of the frame's own
                              (a fixed calibration: e.g. the fallback, or an estimate)
          --pitch-bias DEG    add this to every frame's mount pitch (pitch sensitivity)
          --pitch-jitter DEG  add zero-mean Gaussian noise of this σ to each frame's pitch (fixed seed)
          --json              print one JSON object instead of the table
          --matches OUT.jsonl write each frame's matches, one JSON line per frame: "frame",
                              "matched" ([prediction, truth] pairs), "false_positives", "missed"
          --threads T         worker threads (default: all cores)
        \(Defaults.precisionHelp)
          --help              show this help
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(
            arguments,
            options: DatasetArguments.options.union([
                "weights", "threshold", "pitch", "pitch-bias", "pitch-jitter", "threads", "matches", "precision", "int8-kernel",
            ]),
            flags: DatasetArguments.flags.union(["json"]))
        try args.expectNoPositional()
        let dataset = try DatasetArguments.open(args)
        let threshold = Float(try args.number("threshold", default: 0.6, in: 0...1))
        let bias = try args.number("pitch-bias", default: 0, in: -10...10) * .pi / 180
        let fixedPitch: Double? = args.value("pitch") == nil ? nil : try args.number("pitch", default: 0, in: -25...25) * .pi / 180
        let jitter = try args.number("pitch-jitter", default: 0, in: 0...10) * .pi / 180
        var random = SyntheticRandom(seed: 20_260_831)
        let weights = try Defaults.loadWeights(try Defaults.weightsPath(args))
        let engine = try Defaults.evaluationEngine(args, weights: weights, threshold: threshold)
        var evaluation = DetectionEvaluation(matcher: DetectionMatcher(scoreThreshold: threshold))
        let matchPath = args.value("matches")
        var matchLines: [String] = []
        var index = 0
        _ = try DatasetArguments.forEachFrame(dataset, strict: args.flag("strict")) { frame in
            var pose = frame.setup.pose
            if let fixedPitch { pose.pitch = fixedPitch }
            let normal = random.normal()
            pose.pitch += bias + jitter * normal
            engine.reset()
            let result = try engine.process(
                PerceptionFrame(
                    pixels: try FramePixels(frame.image), timestamp: Double(index), intrinsics: frame.setup.intrinsics, pose: pose))
            let match = evaluation.add(predictions: frame.removingIgnored(result.detections), truth: frame.truth)
            if matchPath != nil { matchLines.append(try JSONOutput.line(MatchLine(frame: frame.name, match))) }
            index += 1
        }
        if let matchPath {
            try OutputFile.write(Data(matchLines.map { $0 + "\n" }.joined().utf8), to: matchPath)
        }
        print(args.flag("json") ? evaluation.report.json : evaluation.report.description)
        if weights.provenance.training == .untrained { printError("note: untrained test weights - these numbers measure nothing") }
        return 0
    }

    /// One `--matches` line: the frame's pairs (detection, label), false positives and misses
    /// (vehicle frame, metres, radians).
    struct MatchLine: Encodable {
        var frame: String
        var matched: [[Box]]
        var falsePositives: [Detection]
        var missed: [GroundTruthBox]

        /// A detection or a label, for the pairs.
        enum Box: Encodable {
            case detection(Detection), label(GroundTruthBox)

            func encode(to encoder: any Encoder) throws {
                switch self {
                case .detection(let d): try d.encode(to: encoder)
                case .label(let b): try b.encode(to: encoder)
                }
            }
        }

        init(frame: String, _ match: MatchOutcome) {
            self.frame = frame
            matched = match.pairs.map { [.detection($0.prediction), .label($0.groundTruth)] }
            falsePositives = match.unmatchedPredictions
            missed = match.unmatchedGroundTruth
        }
    }
}
