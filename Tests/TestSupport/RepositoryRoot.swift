import Foundation

/// The repository's root folder, found from this file's place in it (`Tests/TestSupport/`), so that
/// tests read the checked-in weights, samples and fixtures wherever the checkout is.
package let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The path of `relative` under the repository root: `repositoryPath("Weights/safety40-synthetic.safetensors")`.
package func repositoryPath(_ relative: String) -> String {
    repositoryRoot.appendingPathComponent(relative).path
}
