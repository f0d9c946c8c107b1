/// How a weights file says it was made, read from its `__metadata__` keys `trained`,
/// `training_data` and `provenance` (`docs/guides/weights.md`); a file that says nothing reads as trained.
public struct WeightsProvenance: Sendable, Hashable {
    /// What the network learnt from. The raw value is the word the live view's metadata carries.
    public enum Training: String, Sendable, Hashable {
        /// Seeded random numbers (`trained` = `false`): test weights whose boxes mean nothing.
        case untrained
        /// Synthetic scenes only (`training_data` = `synthetic`): the network never saw a real camera.
        case synthetic
        /// Trained on data the file does not mark as synthetic.
        case trained
    }

    /// What the network learnt from.
    public var training: Training
    /// One line on where the weights came from (`provenance`), nil when the file does not say.
    public var origin: String?

    /// What every picture drawn from these weights' boxes must say: a warning for untrained
    /// weights, whose boxes mean nothing; nil for the others.
    public var caption: String? { training == .untrained ? "UNTRAINED TEST WEIGHTS - boxes are not real vehicles" : nil }

    /// Reads the provenance from a weights file's `__metadata__`.
    public init(metadata: [String: String]) {
        if metadata["trained"] == "false" {
            training = .untrained
        } else if metadata["training_data"] == "synthetic" {
            training = .synthetic
        } else {
            training = .trained
        }
        origin = metadata["provenance"]
    }
}
