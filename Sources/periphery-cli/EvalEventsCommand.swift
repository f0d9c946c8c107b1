import Foundation
import Periphery

/// `periphery eval-events`: the safety events of scripted drives against their truth
/// (docs/guides/events.md#evaluation).
enum EvalEventsCommand: Command {
    static let name = "eval-events"
    static let summary = "Evaluate the safety events on scripted drives (NHTSA's warning tests, false warnings, TTC error)."
    static let help = """
        USAGE: periphery eval-events --data DIR [DIR ...] [--precision fp32|int8] [--weights W] [--json OUT.json]
                                     [--frames OUT.jsonl] [--events FILE] [--body-pitch]

        Runs each drive written by `periphery synth --sequence --scenario` as `periphery run DIR` does (its
        frames, camera and motion.csv; a fresh engine per drive) and compares the safety events with its
        truth.json. Prints per drive the first forward-collision warning on the scripted lead (matched
        to a track by the lead's labelled position) with the true TTC at its start, per NHTSA test
        (lvs, lvd, lvm; the same parameters) whether 5 of 7 trials warned at or above the required
        TTC (2.1, 2.4, 2.0 s), the false warnings per hour over `free` drives, the `cut-in` drives
        whose cut-in event came within 1 s of the lead's true entry into the path, and the error of
        the lead's TTC (where the true TTC < 4 s) and headway: median and 90th percentile.

        OPTIONS:
          --data DIR [DIR ...]   the drives (each needs truth.json with its scenario)
          --json OUT.json        also write the report as JSON
          --frames OUT.jsonl     write one JSON line per frame: our in-path lead beside the true one
                                 ("lead", "true_lead", "is_true_lead") and the forward-collision reports
          --events FILE          safety-event settings to evaluate, as `periphery run --events` takes them
          --body-pitch           follow the body's pitch from motion.csv, as `periphery run --body-pitch`
          --weights W            weights file (default: Weights/safety40-synthetic.safetensors)
          --threads T            worker threads (default: all cores)
        \(Defaults.precisionHelp)
          --help                 show this help
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(
            arguments, options: ["data", "json", "frames", "events", "weights", "threads", "precision", "int8-kernel"], flags: ["body-pitch"])
        let directories = [try args.required("data")] + args.positional
        // Every truth first, so that a bad drive fails before any is run.
        let truths = try directories.map { try ScenarioTruth(driveDirectory: $0) }
        let events = try args.value("events").map { try SafetyEventConfiguration(contentsOfFile: $0) } ?? SafetyEventConfiguration()
        let weights = try Defaults.loadWeights(try Defaults.weightsPath(args))
        let (threads, precision, kernel) = (try Defaults.threads(args), try Defaults.precision(args), try Defaults.int8Kernel(args))
        let stop = StopRequest()
        StopSignals.install(stop)
        var frameLines: [String] = []
        var evaluation = SafetyEventEvaluation(egoFrontMetres: events.egoFrontMetres)
        for (directory, truth) in zip(directories, truths) {
            // A fresh engine per drive, as each `periphery run` has.
            let engine = try PerceptionEngine(weights: weights, threads: threads, precision: precision, int8Kernel: kernel)
            try engine.configureEvents(events)
            var options = FrameInput.Options()
            options.bodyPitch = args.flag("body-pitch")
            let input = try FrameInput(directory, options: options)
            var opened = try input.open(for: engine, stop: stop, report: { printError("warning: \($0)") })
            let collector = ObservationCollector()
            try PerceptionSession(engine: engine, setup: input.setup, outputs: [collector], stop: stop).run(&opened.source)
            if stop.isRequested { throw CLIError("stopped during \(directory); no report") }
            let comparisons = try evaluation.add(drive: directory, truth: truth, observations: collector.observations)
            if args.value("frames") != nil { frameLines += try comparisons.map { try JSONOutput.line($0) + "\n" } }
            printError(progress(evaluation.report.drives.last))
        }
        let report = evaluation.report
        print(report.description)
        if let path = args.value("frames") { try OutputFile.write(Data(frameLines.joined().utf8), to: path) }
        if let path = args.value("json") { try OutputFile.write(Data((try JSONOutput.line(report) + "\n").utf8), to: path) }
        if weights.provenance.training == .untrained { printError("note: untrained test weights - these numbers measure nothing") }
        return 0
    }

    /// One drive's line on standard error, as it finishes.
    private static func progress(_ drive: SafetyEventEvaluationReport.Drive?) -> String {
        guard let drive else { return "" }
        let warning = drive.warning.map { w in
            "warning at \(String(format: "%.1f", w.time)) s, true TTC " + (w.trueTimeToCollision.map { String(format: "%.2f s", $0) } ?? "none")
        }
        return "\(drive.drive): \(drive.scenario.kind.rawValue), \(drive.frames) frames, \(warning ?? "no warning on the lead")"
            + (drive.otherWarnings > 0 ? ", \(drive.otherWarnings) other warnings" : "")
    }
}

/// Keeps what the evaluation reads of each processed frame: the assessment and the tracks.
private final class ObservationCollector: PerceptionOutput {
    private(set) var observations: [SafetyEventObservation] = []

    func write(_ processed: ProcessedFrame) throws {
        observations.append(SafetyEventObservation(assessment: processed.result.safety, tracks: processed.result.tracks))
    }

    func finish(_ summary: RunSummary) throws {}
}
