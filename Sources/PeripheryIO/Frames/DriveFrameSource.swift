import PeripheryCore
import PeripheryGeometry

/// The frames of a drive directory in order, with ego motion from its CSVs when it has them.
public struct DriveFrameSource: FrameSource {
    /// The drive.
    public let drive: DriveDirectory
    private var index = 0

    /// Frames of `drive`, from the first.
    public init(drive: DriveDirectory) { self.drive = drive }

    /// The drive's frame count.
    public var count: Int? { drive.frames.count }

    /// - Throws: `ImageError` for a frame that cannot be read.
    public mutating func next() throws -> SourceFrame? {
        guard index < drive.frames.count else { return nil }
        let entry = drive.frames[index]
        let ego = drive.recordedEgo(since: index > 0 ? drive.frames[index - 1].timestamp : nil, to: entry.timestamp)
        index += 1
        return SourceFrame(
            name: entry.path, image: try ImageFile.read(path: entry.path), timestamp: entry.timestamp,
            intrinsics: entry.intrinsics, ego: ego, motion: drive.mountMotion(at: entry.timestamp))
    }
}
