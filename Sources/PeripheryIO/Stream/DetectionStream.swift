import Foundation
import PeripheryCore

/// Why a detection stream cannot be read.
public enum DetectionStreamError: Error, Equatable, CustomStringConvertible {
    /// The file cannot be read or is too large.
    case unreadable(path: String, cause: FileReadError)
    /// The file is not UTF-8 text.
    case notUTF8(path: String)
    /// A line breaks the format: `location` is `path:line`.
    case invalidLine(location: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let cause): "\(path): \(cause)"
        case .notUTF8(let path): "\(path): not UTF-8"
        case .invalidLine(let location, let reason): "\(location): \(reason)"
        }
    }
}

/// Reader of the JSON-lines detection streams that `periphery track` replays.
///
/// Each line: `{"t": s, "ego": {"dx", "dy", "dyaw", "dt"}, "detections": [{score, label, x, y, z,
/// length, width, height, yaw}, ...]}`, `ego` optional. Every number must be finite; the limits
/// below are checked before a line is parsed or a frame's detections are built, so that a hostile
/// file costs neither unbounded memory nor a tracker step of unbounded work.
public enum DetectionStream {
    /// Largest accepted file, bytes.
    public static let maxFileSize = 1 << 30
    /// Longest accepted line, bytes.
    static let maxLineLength = 4 << 20
    /// Most detections accepted on one line (the decoder's own output is bounded far below this).
    static let maxDetectionsPerFrame = 1_000
    /// Largest accepted |coordinate| or box dimension, metres: far beyond any camera's range, so
    /// that the tracker's arithmetic stays finite.
    static let maxMagnitude = 1.0e4

    /// Reads every non-empty line of `path`.
    ///
    /// - Throws: `DetectionStreamError` naming the file, or the line and field at fault.
    public static func read(path: String) throws(DetectionStreamError) -> [TrackerInput] {
        switch FileBytes.read(path: path, limit: maxFileSize) {
        case .success(let data): return try parse(data, path: path)
        case .failure(let failure): throw .unreadable(path: path, cause: failure)
        }
    }

    /// Parses a whole stream held in memory; `path` stands for the file in errors.
    ///
    /// - Throws: `DetectionStreamError` as `read(path:)`.
    public static func parse(_ data: Data, path: String) throws(DetectionStreamError) -> [TrackerInput] {
        guard data.count <= maxFileSize else {
            throw .unreadable(path: path, cause: .tooLarge(size: data.count, limit: maxFileSize))
        }
        guard let text = String(data: data, encoding: .utf8) else { throw .notUTF8(path: path) }
        var frames: [TrackerInput] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.hasSuffix("\r") ? line.dropLast() : line
            guard !trimmed.isEmpty else { continue }
            frames.append(try parseLine(trimmed, at: "\(path):\(index + 1)"))
        }
        return frames
    }

    /// Parses one line; `location` (`path:line`) names it in errors.
    ///
    /// - Throws: `DetectionStreamError.invalidLine` naming the field at fault.
    static func parseLine(_ line: Substring, at location: String) throws(DetectionStreamError) -> TrackerInput {
        func fail(_ reason: String) -> DetectionStreamError { .invalidLine(location: location, reason: reason) }
        guard line.utf8.count <= maxLineLength else { throw fail("line longer than \(maxLineLength) bytes") }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] else {
            throw fail("not a JSON object")
        }
        func number(_ value: Any?, _ field: String, limit: Double = maxMagnitude) throws(DetectionStreamError) -> Double {
            // NSNumber's "c" type is a JSON boolean, which is not a number here.
            guard let n = value as? NSNumber, String(cString: n.objCType) != "c", n.doubleValue.isFinite else {
                throw fail("field '\(field)' must be a finite number")
            }
            guard abs(n.doubleValue) <= limit else { throw fail("field '\(field)' is beyond ±\(limit)") }
            return n.doubleValue
        }
        let t = try number(object["t"], "t", limit: .greatestFiniteMagnitude)
        var ego: EgoDelta?
        if let raw = object["ego"] {
            guard let e = raw as? [String: Any] else { throw fail("field 'ego' must be an object") }
            ego = EgoDelta(
                dx: try number(e["dx"], "ego.dx"), dy: try number(e["dy"], "ego.dy"),
                dyaw: try number(e["dyaw"], "ego.dyaw"), dt: try number(e["dt"], "ego.dt"))
        }
        guard let list = object["detections"] as? [Any] else { throw fail("field 'detections' must be an array") }
        guard list.count <= maxDetectionsPerFrame else {
            throw fail("\(list.count) detections exceed the limit of \(maxDetectionsPerFrame) per line")
        }
        var detections: [Detection] = []
        detections.reserveCapacity(list.count)
        for (i, item) in list.enumerated() {
            guard let d = item as? [String: Any] else { throw fail("detections[\(i)] must be an object") }
            func field(_ name: String) throws(DetectionStreamError) -> Double { try number(d[name], "detections[\(i)].\(name)") }
            let label = try field("label")
            guard label == label.rounded(), (0...3).contains(label) else { throw fail("detections[\(i)].label must be 0, 1, 2 or 3") }
            let score = try field("score")
            guard (0...1).contains(score) else { throw fail("detections[\(i)].score must be in [0, 1]") }
            let size = (try field("length"), try field("width"), try field("height"))
            guard size.0 > 0, size.1 > 0, size.2 > 0 else {
                throw fail("detections[\(i)]: length, width and height must be positive")
            }
            let box = VehicleBox(
                x: try field("x"), y: try field("y"), z: try field("z"), length: size.0, width: size.1, height: size.2,
                yaw: try field("yaw"))
            detections.append(Detection(score: Float(score), label: Int(label), box: box, candidate: i))
        }
        return TrackerInput(t: t, ego: ego, detections: detections)
    }
}
