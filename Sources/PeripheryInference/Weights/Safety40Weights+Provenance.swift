extension Safety40Weights {
    /// How the file says its weights were made.
    public var provenance: WeightsProvenance { WeightsProvenance(metadata: metadata) }
}
