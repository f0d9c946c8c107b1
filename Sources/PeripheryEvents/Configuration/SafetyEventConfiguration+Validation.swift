import PeripheryCore

extension SafetyEventConfiguration {
    /// Widest corridor the detector can see: the lateral extent of its grid.
    public static let maximumCorridorWidthMetres = EvaluationRegion.safety40.maxY - EvaluationRegion.safety40.minY

    /// Checks every field.
    ///
    /// The bounds are wide: they reject what cannot be meant (a negative threshold, a corridor wider
    /// than the grid, an acceleration span longer than the window it is fitted in), not unusual
    /// tunings.
    ///
    /// - Throws: `SafetyEventConfigurationError` naming the first offending field.
    public func validate() throws(SafetyEventConfigurationError) {
        try check(egoFrontMetres, "egoFrontMetres", 0...20, "0 to 20 m")
        try check(
            corridorWidthMetres, "corridorWidthMetres", 0...Self.maximumCorridorWidthMetres, open: true,
            "more than 0 and at most the grid's width, \(Self.maximumCorridorWidthMetres) m")
        try check(maximumRangeMetres, "maximumRangeMetres", 0...200, open: true, "more than 0 and at most 200 m")
        try check(minimumMovingSpeed, "minimumMovingSpeed", 0...10, "0 to 10 m/s")
        try check(kinematicsWindowSeconds, "kinematicsWindowSeconds", 0...10, open: true, "more than 0 and at most 10 s")
        try check(
            accelerationMinimumSpanSeconds, "accelerationMinimumSpanSeconds", 0...kinematicsWindowSeconds,
            "0 to kinematicsWindowSeconds (\(kinematicsWindowSeconds) s)")
        try check(accelerationSignificance, "accelerationSignificance", 0...10, "0 to 10 standard errors")
        try check(
            accelerationOnsetMinimumSeconds, "accelerationOnsetMinimumSeconds", 0...kinematicsWindowSeconds,
            "0 to kinematicsWindowSeconds (\(kinematicsWindowSeconds) s)")
        try check(
            minimumSpeedSpanSeconds, "minimumSpeedSpanSeconds", 0...kinematicsWindowSeconds,
            "0 to kinematicsWindowSeconds (\(kinematicsWindowSeconds) s)")
        try check(speedSignificance, "speedSignificance", 0...10, "0 to 10 standard errors")
        try check(rangeNoiseMetres, "rangeNoiseMetres", 0...10, "0 to 10 m")
        try check(rangeNoiseGrowth, "rangeNoiseGrowth", 0...1, "0 to 1 per metre")
        try check(farEdgeMarginMetres, "farEdgeMarginMetres", 0...EvaluationRegion.safety40.maxX, "0 to the grid's depth, \(EvaluationRegion.safety40.maxX) m")
        try check(maximumClosingAcceleration, "maximumClosingAcceleration", 0...100, open: true, "more than 0 and at most 100 m/s²")
        try check(continuitySeconds, "continuitySeconds", 0...10, "0 to 10 s")
        try check(continuityRangeMetres, "continuityRangeMetres", 0...50, "0 to 50 m")
        try check(continuityRangeFraction, "continuityRangeFraction", 0...1, "0 to 1")
        try check(continuityRangeSigmas, "continuityRangeSigmas", 0...100, "0 to 100 standard deviations")
        try check(continuityLateralMetres, "continuityLateralMetres", 0...10, "0 to 10 m")

        let forward = forwardCollision
        try check(
            forward.timeToCollisionSeconds, "forwardCollision.timeToCollisionSeconds", 0...10, open: true,
            "more than 0 and at most 10 s")
        try check(forward.hysteresisSeconds, "forwardCollision.hysteresisSeconds", 0...10, "0 to 10 s")
        try check(forward.minimumEgoSpeed, "forwardCollision.minimumEgoSpeed", 0...100, "0 to 100 m/s")
        try check(forward.minimumClosingSpeed, "forwardCollision.minimumClosingSpeed", 0...100, "0 to 100 m/s")
        try check(Double(forward.confirmationFrames), "forwardCollision.confirmationFrames", 1...100, "1 to 100 frames")
        try check(forward.refractorySeconds, "forwardCollision.refractorySeconds", 0...3600, "0 to 3600 s")

        let following = closeFollowing
        try check(following.headwaySeconds, "closeFollowing.headwaySeconds", 0...10, open: true, "more than 0 and at most 10 s")
        try check(following.hysteresisSeconds, "closeFollowing.hysteresisSeconds", 0...10, "0 to 10 s")
        try check(following.minimumDurationSeconds, "closeFollowing.minimumDurationSeconds", 0...3600, "0 to 3600 s")
        try check(following.minimumEgoSpeed, "closeFollowing.minimumEgoSpeed", 0...100, "0 to 100 m/s")

        try check(cutIn.maximumRangeMetres, "cutIn.maximumRangeMetres", 0...200, open: true, "more than 0 and at most 200 m")
        try check(cutIn.lateralMarginMetres, "cutIn.lateralMarginMetres", 0...10, "0 to 10 m")
        try check(Double(cutIn.confirmationFrames), "cutIn.confirmationFrames", 1...100, "1 to 100 frames")
        try check(cutIn.durationSeconds, "cutIn.durationSeconds", 0...60, "0 to 60 s")
        try check(cutIn.minimumEgoSpeed, "cutIn.minimumEgoSpeed", 0...100, "0 to 100 m/s")
    }

    /// Throws unless `value` is finite and inside `range` (excluding its lower bound when `open`).
    private func check(
        _ value: Double, _ field: String, _ range: ClosedRange<Double>, open: Bool = false, _ expected: String
    ) throws(SafetyEventConfigurationError) {
        let inside = value.isFinite && range.contains(value) && !(open && value == range.lowerBound)
        guard inside else { throw .invalidField(field, value: value, expected: expected) }
    }
}
