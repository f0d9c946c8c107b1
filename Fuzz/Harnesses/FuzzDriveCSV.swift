import Foundation
import Periphery

/// Harness: bytes as a drive's CSV files. The first byte picks which (frames.csv,
/// motion.csv, location.csv, or all three split at NUL bytes); the drive built from them is then
/// queried as `periphery run` and `calibrate` query one.
func fuzzDriveCSV(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count > 0 else { return 0 }
    let body = Data(bytes: bytes + 1, count: count - 1)
    var parts: [Data?] = [nil, nil, nil]
    switch bytes[0] % 4 {
    case 0, 1, 2: parts[Int(bytes[0] % 4)] = body
    default:
        for (i, part) in body.split(separator: 0, maxSplits: 2, omittingEmptySubsequences: false).enumerated() { parts[i] = Data(part) }
    }
    let names = ["frames.csv", "motion.csv", "location.csv"]
    let tables = zip(parts, names).map { part, name in part.flatMap { try? CSVTable(data: $0, path: name) } }
    let pictures = (0 ..< 8).map { String(format: "%06d.png", $0) }
    guard let drive = try? DriveDirectory(path: "fuzz", pictures: pictures, frames: tables[0], motion: tables[1], location: tables[2])
    else { return 0 }
    for (previous, frame) in zip(drive.frames, drive.frames.dropFirst()) {
        _ = drive.egoDelta(from: previous.timestamp, to: frame.timestamp)
        _ = drive.gyro(from: previous.timestamp, to: frame.timestamp)
    }
    _ = drive.gyroBias
    _ = drive.courseYawFixes
    return 0
}
