/// Size and base-height limits that a real vehicle of each class satisfies.
///
/// All ranges are closed; the box base `z − h/2` must lie strictly within ±1.5 m of the road, and
/// `length ≥ 0.9 · width`. Off in the goldens, on live and in replay.
enum PlausibilityFilter {
    /// Closed ranges `(length, width, height)` in metres for a class.
    static func limits(
        for label: Int
    ) -> (length: ClosedRange<Double>, width: ClosedRange<Double>, height: ClosedRange<Double>) {
        switch VehicleClass(rawValue: label) {
        case .largeVehicle: (4.0...20.0, 1.8...3.2, 1.8...4.5)
        case .twoWheeler: (1.0...3.2, 0.3...1.4, 0.8...2.2)
        case .pedestrian: (0.2...1.2, 0.2...1.2, 1.0...2.2)
        case .lightVehicle, nil: (2.5...7.0, 1.3...2.6, 1.0...2.6)
        }
    }

    /// Whether the box is plausible for its class.
    static func isPlausible(_ d: Detection) -> Bool {
        let l = limits(for: d.label)
        let base = d.box.z - d.box.height / 2
        return l.length.contains(d.box.length) && l.width.contains(d.box.width) && l.height.contains(d.box.height)
            && base > -1.5 && base < 1.5 && d.box.length >= 0.9 * d.box.width
    }
}
