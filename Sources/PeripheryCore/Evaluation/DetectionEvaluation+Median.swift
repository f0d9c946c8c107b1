extension DetectionEvaluation {
    /// The median of `values`: the middle value of an odd count, the mean of the middle two of an
    /// even count, and nil (not NaN) when there are none.
    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let mid = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
    }
}
