import Foundation

/// A fresh, empty temporary directory for one test (the test removes it).
package func scratchFolder(_ name: String) throws -> String {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("periphery-\(name)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url.path
}
