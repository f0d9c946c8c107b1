import Foundation
import PeripheryTestSupport
import Testing

@testable import PeripheryCore
@testable import PeripheryIO

/// Reading the motion and location files of a drive: bad rows are reported with their line
/// numbers and skipped, a missing column is an error, the course column is optional.
@Suite struct DriveMotionFilesTests {
    func drive(motion: String?, location: String?) throws -> (String, Result<DriveDirectory, DriveError>) {
        let folder = try scratchFolder("drive-csv")
        try ImageFile.writePNG(RGBImage(width: 4, height: 4), to: folder + "/000000.png")
        if let motion { try Data(motion.utf8).write(to: URL(fileURLWithPath: folder + "/motion.csv")) }
        if let location { try Data(location.utf8).write(to: URL(fileURLWithPath: folder + "/location.csv")) }
        return (folder, Result { () throws(DriveError) in try DriveDirectory(path: folder) })
    }

    @Test func badRowsAreSkippedWithTheirLineNumbers() throws {
        let long = String(repeating: "9", count: CSVTable.maxLineLength + 1)
        let motion = """
            t,gx,gy,gz,rx,ry,rz
            0.00,0,0,-1,0.01,0.02,0.03
            0.01,0,0,-1,nan,0.02,0.03
            0.02,0,0,-1
            \(long)
            0.03,0,0,-1,0.01,0.02,0.03
            """
        let location = """
            t,speed,course
            0,12.5,90
            1,fast,90
            2,-1,-1
            3,13.0,
            """
        let (folder, result) = try drive(motion: motion, location: location)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let d = try result.get()
        #expect(d.gyro.map(\.t) == [0.00, 0.03])
        #expect(d.speeds.map(\.speed) == [12.5, 13.0], "a negative speed is unknown, not an error")
        #expect(d.courses.map(\.degrees) == [90], "a blank or negative course is unknown")
        #expect(d.headings.isEmpty && d.courseYawFixes.isEmpty, "no heading column")
        let skipped = Set(d.skipped.map { "\(($0.path as NSString).lastPathComponent):\($0.line)" })
        #expect(skipped == ["motion.csv:3", "motion.csv:4", "motion.csv:5", "location.csv:3"])
        #expect(d.skipped.contains { $0.line == 5 && $0.reason.contains("longer than") })
    }

    /// A frame size of 1e300 or NaN once trapped converting to Int (found by review while the
    /// fuzz harnesses were written): now the row keeps its time and loses its camera.
    @Test(arguments: ["1e300", "nan", "320.5", "-inf"])
    func aFrameSizeThatIsNotAnIntegerSkipsTheCamera(width: String) throws {
        let k = "240.0,0,160.0,0,240.0,100.0,0,0,1"
        let csv = "pts,k00,k01,k02,k10,k11,k12,k20,k21,k22,width,height\n1.0,\(k),320,200\n1.1,\(k),\(width),200\n"
        let table = try CSVTable(data: Data(csv.utf8), path: "/d/frames.csv")
        let drive = try DriveDirectory(path: "/d", pictures: ["/d/0.png", "/d/1.png"], frames: table, motion: nil, location: nil)
        #expect(drive.frames.map(\.timestamp) == [1.0, 1.1])
        #expect(drive.frames[0].intrinsics?.width == 320 && drive.frames[1].intrinsics == nil)
        #expect(drive.skipped == [SkippedRow(path: "/d/frames.csv", line: 3, reason: "width and height must be integers")])
    }

    @Test(
        arguments: [
            ("t,gx,gy,gz,rx,ry\n0,0,0,-1,0,0\n", nil, "motion.csv", "rz"),
            (nil, "t,course\n0,90\n", "location.csv", "speed"),
        ] as [(String?, String?, String, String)])
    func aMissingColumnIsAnError(motion: String?, location: String?, file: String, column: String) throws {
        let (folder, result) = try drive(motion: motion, location: location)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(throws: DriveError.missingColumn(path: folder + "/" + file, column: column)) { try result.get() }
    }
}
