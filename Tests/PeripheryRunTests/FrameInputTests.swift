import Foundation
import PeripheryCore
import PeripheryGeometry
import PeripheryIO
import PeripheryInference
import PeripheryTestSupport
import Testing

@testable import PeripheryRun

/// The one input opener, on inputs made for each case: the references are the files themselves
/// (which frames a folder holds, the numbers written into a calibration, the size `ffmpeg` encoded)
/// and the rules of `docs/guides/live.md` and `periphery run --help` restated here, with every
/// message in full, because the CLI, the C API and Python must all print exactly these.
@Suite(.serialized) struct FrameInputTests {
    let drive = repositoryPath("Tests/cli/drive")
    /// `Tests/cli/drive/calibration.json`'s camera, as the file writes it.
    let driveCamera = PixelSize(width: 320, height: 200)

    /// A folder with `clip.mp4` (`size`, 4 frames) and, when `calibrated`, the drive's calibration beside it.
    func videoFolder(_ name: String, size: String = "320x200", calibrated: Bool) throws -> (folder: String, clip: String) {
        let folder = try scratchFolder(name)
        let clip = folder + "/clip.mp4"
        try VideoTestClips.make(clip, size: size, frames: 4, codec: ["-c:v", "libx264", "-pix_fmt", "yuv420p"])
        if calibrated {
            try FileManager.default.copyItem(atPath: drive + "/calibration.json", toPath: folder + "/" + FrameInput.calibrationFileName)
        }
        return (folder, clip)
    }

    func engine() throws -> PerceptionEngine {
        try PerceptionEngine(weights: try Safety40Weights(path: repositoryPath("Weights/safety40-random-init.safetensors")), threads: 1)
    }

    /// The error `body` throws, which must be a `FrameInputError`.
    func failure(_ body: () throws -> Void) throws -> FrameInputError {
        do {
            try body()
        } catch let error as FrameInputError {
            return error
        }
        Issue.record("no FrameInputError")
        throw FrameInputError.notFound(path: "(nothing thrown)")
    }

    @Test func aDriveIsItsFramesWithTheCalibrationInIt() throws {
        let input = try FrameInput(drive)
        let pictures = try FileManager.default.contentsOfDirectory(atPath: drive).filter { $0.hasSuffix(".png") }.sorted()
        #expect(input.kind == .drive && input.folder == drive && input.name == drive)
        #expect(input.files == pictures.map { drive + "/" + $0 } && pictures.count == 6)
        #expect(input.calibrationPath == drive + "/calibration.json")
        let setup = try #require(input.setup)
        #expect(setup.intrinsics.size == driveCamera && setup.intrinsics.fx == 240 && abs(setup.pose.pitch - -2 * .pi / 180) < 1e-12)
    }

    @Test func aDrivesFramesMayBeInImages() throws {
        let folder = try scratchFolder("input-images")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/images", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: drive + "/000003.png", toPath: folder + "/images/b.png")
        try FileManager.default.copyItem(atPath: drive + "/000001.png", toPath: folder + "/images/a.jpeg.png")
        let input = try FrameInput(folder)
        #expect(input.files == [folder + "/images/a.jpeg.png", folder + "/images/b.png"] && input.setup == nil)
    }

    @Test func badPathsAreNamed() throws {
        let empty = try scratchFolder("input-empty")
        defer { try? FileManager.default.removeItem(atPath: empty) }
        try Data("x".utf8).write(to: URL(fileURLWithPath: empty + "/notes.txt"))
        #expect(try failure { _ = try FrameInput("/nonexistent/x") }.description == "/nonexistent/x: no such file or directory")
        #expect(try failure { _ = try FrameInput(empty) }.description == "\(empty): no PNG or JPEG frames (at its top level or in images/)")
    }

    @Test func aVideoFindsTheCalibrationBesideItOrSaysWhereItLooked() throws {
        let (folder, clip) = try videoFolder("input-video", calibrated: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let missing = try failure { _ = try FrameInput(clip) }
        #expect(missing == .needsCalibration(input: clip, kind: .video, looked: folder + "/calibration.json"))
        #expect(missing.description == "\(clip): a video file needs a calibration: none given, and there is no \(folder)/calibration.json")
        var options = FrameInput.Options()
        options.calibration = .file(drive + "/calibration.json")
        let given = try FrameInput(clip, options: options)
        #expect(given.kind == .video && given.folder == folder && given.files == [clip] && given.calibrationPath == drive + "/calibration.json")
        try FileManager.default.copyItem(atPath: drive + "/calibration.json", toPath: folder + "/calibration.json")
        let found = try FrameInput(clip)
        #expect(found.calibrationPath == folder + "/calibration.json" && found.setup?.intrinsics.size == driveCamera)
        options = FrameInput.Options()
        options.realtime = true
        #expect(try FrameInput(clip, options: options).kind == .realtimeVideo)
    }

    @Test func liveSourcesNeedACalibrationAndHideTheirPassword() throws {
        let url = "rtsp://user:secret@127.0.0.1:8554/cam"
        let error = try failure { _ = try FrameInput(url) }
        #expect(error.description == "rtsp://user:***@127.0.0.1:8554/cam: a stream needs a calibration: none given")
        #expect(try failure { _ = try FrameInput("/dev/video7") }.description == "/dev/video7: a camera needs a calibration: none given")
        var options = FrameInput.Options()
        options.calibration = .setup(try CalibrationFile.load(path: drive + "/calibration.json"))
        let stream = try FrameInput("udp://127.0.0.1:9", options: options)
        #expect(stream.kind == .stream && stream.kind.isLive && stream.folder == nil && stream.files.isEmpty && stream.calibrationPath == nil)
    }

    @Test func optionsMustSuitTheInput() throws {
        let (folder, clip) = try videoFolder("input-options", calibrated: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        func message(_ input: String, _ change: (inout FrameInput.Options) -> Void) throws -> String {
            var options = FrameInput.Options()
            options.calibration = .file(drive + "/calibration.json")
            change(&options)
            return try failure { _ = try FrameInput(input, options: options) }.description
        }
        #expect(try message(clip) { $0.autoPitch = true } == "\(clip): auto-pitch is for a drive directory, not a video file")
        #expect(try message(drive) { $0.realtime = true } == "\(drive): realtime is for a video file, not a drive directory")
        #expect(try message("udp://127.0.0.1:9") { $0.live.videoSize = "640x480" } == "udp://127.0.0.1:9: video-size is for a camera, not a stream")
        #expect(try message(drive) { $0.start = 2 } == "\(drive): start is for a video file, not a drive directory")
        #expect(try message(drive) { $0.duration = 2 } == "\(drive): duration is for a video file or a live source, not a drive directory")
        #expect(try message(clip) { $0.fps = 0 } == "\(clip): fps: 0.0 is outside 0.1 ... 1000")
        #expect(try message(clip) { $0.every = 0 } == "\(clip): every: 0 is below 1")
    }

    @Test func rawFramesMustBeTheCalibrationsSize() throws {
        var options = FrameInput.Options()
        #expect(
            try failure { _ = try FrameInput(standardInput: driveCamera, options: options) }.description
                == "standard input: a stream of raw frames needs a calibration: none given")
        options.calibration = .file(drive + "/calibration.json")
        let mismatch = try failure { _ = try FrameInput(standardInput: PixelSize(width: 100, height: 100), options: options) }
        #expect(mismatch.description == "standard input: frames are 100x100, the calibration's 320x200")
        let input = try FrameInput(standardInput: driveCamera, options: options)
        #expect(input.kind == .raw && input.folder == nil)
    }

    @Test func aVideoOfAnotherSizeFailsWhenOpened() throws {
        let (folder, clip) = try videoFolder("input-size", size: "96x64", calibrated: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let input = try FrameInput(clip)
        let error = try failure { _ = try input.open(for: try engine(), stop: StopRequest(), report: { _ in }) }
        #expect(error.description == "\(clip): frames are 96x64, the calibration's 320x200")
    }

    @Test func openingAVideoGivesItsFramesAndRate() throws {
        let (folder, clip) = try videoFolder("input-open", calibrated: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var opened = try FrameInput(clip).open(for: try engine(), stop: StopRequest(), report: { _ in })
        var count = 0
        while try opened.source.next() != nil { count += 1 }
        #expect(count == 4 && opened.fps == 10 && opened.expectedCount == 4 && opened.wallClockLimit == nil)
    }

    @Test func aDrivesSkippedRowsAreReported() throws {
        let folder = try scratchFolder("input-rows")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for name in ["000000.png", "000001.png", "calibration.json", "location.csv"] {
            try FileManager.default.copyItem(atPath: drive + "/" + name, toPath: folder + "/" + name)
        }
        let motion = try String(contentsOfFile: drive + "/motion.csv", encoding: .utf8).split(separator: "\n")
        try (motion[0..<2].joined(separator: "\n") + "\nnot-a-time,1,2\n").write(toFile: folder + "/motion.csv", atomically: true, encoding: .utf8)
        let heard = Heard()
        let engine = try engine()
        var options = FrameInput.Options()
        options.autoPitch = true
        let opened = try FrameInput(folder, options: options).open(for: engine, stop: StopRequest(), report: { heard.add($0) })
        #expect(heard.lines == ["\(folder)/motion.csv:3: t, gravity or rotation rate missing or not finite, skipped"])
        #expect(opened.source.count == 2 && opened.fps == 10 && engine.mountCalibrator != nil)
        // Opened again without auto-pitch, the same engine loses the calibrator.
        _ = try FrameInput(folder).open(for: engine, stop: StopRequest(), report: { _ in })
        #expect(engine.mountCalibrator == nil)
    }

    @Test func autoPitchNeedsTheDrivesMotion() throws {
        let folder = try scratchFolder("input-nomotion")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.copyItem(atPath: drive + "/000000.png", toPath: folder + "/000000.png")
        var options = FrameInput.Options()
        options.autoPitch = true
        let input = try FrameInput(folder, options: options)
        let error = try failure { _ = try input.open(for: try engine(), stop: StopRequest(), report: { _ in }) }
        #expect(error.description == "\(folder): auto-pitch needs motion.csv and location.csv")
    }
}

/// Reports gathered from the opener.
private final class Heard: @unchecked Sendable {
    private let lock = NSLock()
    private var gathered: [String] = []
    var lines: [String] { lock.withLock { gathered } }
    func add(_ line: String) { lock.withLock { gathered.append(line) } }
}
