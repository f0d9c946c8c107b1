import Foundation

/// The real-frame set's folder (`Tests/real/README.md`): one labels file per frame in `labels/`,
/// read in name order.
public struct RealFrameSet: Sendable {
    /// The folder.
    public let path: String
    /// The labels files, sorted by name.
    public let labelFiles: [String]

    /// Lists a set's labels files.
    ///
    /// - Throws: `RealFrameError.unreadable` when `path/labels` cannot be listed or holds no `.json` file.
    public init(path: String) throws(RealFrameError) {
        let labels = path + "/labels"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: labels) else {
            throw .unreadable(path: labels, reason: "cannot list the folder (a real-frame set has labels/, frames/ and cameras/)")
        }
        let files = names.filter { $0.hasSuffix(".json") }.sorted().map { labels + "/" + $0 }
        guard !files.isEmpty else { throw .unreadable(path: labels, reason: "no labels file (*.json)") }
        self.path = path
        labelFiles = files
    }

    /// Reads one of `labelFiles`.
    public func read(_ labelFile: String) throws(RealFrameError) -> RealFrame {
        try RealFrameLabels.read(path: labelFile, folder: path)
    }
}
