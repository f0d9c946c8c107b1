import Testing

@testable import PeripheryCore

/// The plausibility table of reference, `docs/reference/contract.md#3-decode` step 8: closed size ranges, strict base window, and
/// `length ≥ 0.9·width`.
struct PlausibilityFilterTests {
    struct Limits: Sendable, CustomTestStringConvertible {
        var label: Int
        var length: (Double, Double)
        var width: (Double, Double)
        var height: (Double, Double)
        var testDescription: String { "label \(label)" }
    }

    /// The spec table, quoted.
    static let table: [Limits] = [
        Limits(label: 0, length: (2.5, 7.0), width: (1.3, 2.6), height: (1.0, 2.6)),
        Limits(label: 1, length: (4.0, 20.0), width: (1.8, 3.2), height: (1.8, 4.5)),
        Limits(label: 2, length: (1.0, 3.2), width: (0.3, 1.4), height: (0.8, 2.2)),
        Limits(label: 3, length: (0.2, 1.2), width: (0.2, 1.2), height: (1.0, 2.2)),
    ]

    /// A box with its base at road level (z = h/2) and the given size.
    static func box(label: Int, length: Double, width: Double, height: Double, baseZ: Double = 0) -> Detection {
        Detection(
            score: 0.9, label: label,
            box: VehicleBox(
                x: 10, y: 0, z: baseZ + height / 2,
                length: length, width: width, height: height, yaw: 0), candidate: 0)
    }

    @Test(arguments: table)
    func limitsMatchSpecTable(l: Limits) {
        let got = PlausibilityFilter.limits(for: l.label)
        #expect(got.length.lowerBound == l.length.0 && got.length.upperBound == l.length.1)
        #expect(got.width.lowerBound == l.width.0 && got.width.upperBound == l.width.1)
        #expect(got.height.lowerBound == l.height.0 && got.height.upperBound == l.height.1)
    }

    @Test(arguments: table)
    func closedRangesAcceptTheirBounds(l: Limits) {
        let midL = (l.length.0 + l.length.1) / 2, midW = (l.width.0 + l.width.1) / 2
        let midH = (l.height.0 + l.height.1) / 2
        // Mid-range box is plausible (every class's mid length ≥ 0.9 · mid width).
        #expect(PlausibilityFilter.isPlausible(Self.box(label: l.label, length: midL, width: midW, height: midH)))
        for length in [l.length.0, l.length.1] {
            #expect(PlausibilityFilter.isPlausible(Self.box(label: l.label, length: length, width: min(midW, length), height: midH)))
        }
        for height in [l.height.0, l.height.1] {
            #expect(PlausibilityFilter.isPlausible(Self.box(label: l.label, length: midL, width: midW, height: height)))
        }
        for width in [l.width.0, l.width.1] {
            // Long enough that length ≥ 0.9·width holds.
            #expect(PlausibilityFilter.isPlausible(Self.box(label: l.label, length: l.length.1, width: width, height: midH)))
        }
    }

    @Test(arguments: table)
    func justOutsideEachRangeIsRejected(l: Limits) {
        let midL = (l.length.0 + l.length.1) / 2, midW = (l.width.0 + l.width.1) / 2
        let midH = (l.height.0 + l.height.1) / 2
        let reject = [
            Self.box(label: l.label, length: l.length.0.nextDown, width: min(midW, l.length.0), height: midH),
            Self.box(label: l.label, length: l.length.1.nextUp, width: midW, height: midH),
            Self.box(label: l.label, length: l.length.1, width: l.width.0.nextDown, height: midH),
            Self.box(label: l.label, length: l.length.1, width: l.width.1.nextUp, height: midH),
            Self.box(label: l.label, length: midL, width: midW, height: l.height.0.nextDown),
            Self.box(label: l.label, length: midL, width: midW, height: l.height.1.nextUp),
        ]
        for (i, d) in reject.enumerated() {
            #expect(!PlausibilityFilter.isPlausible(d), "case \(i)")
        }
    }

    @Test(arguments: [(-1.5, false), (1.5, false), (-1.4999, true), (1.4999, true), (0.0, true), (-2.0, false)])
    func baseHeightWindowIsStrict(base: Double, plausible: Bool) {
        let d = Self.box(label: 0, length: 4.5, width: 1.8, height: 1.5, baseZ: base)
        #expect(PlausibilityFilter.isPlausible(d) == plausible)
    }

    @Test func lengthAtLeastNineTenthsOfWidth() {
        // Pedestrian limits let length and width take the same range, so the ratio rule decides.
        #expect(PlausibilityFilter.isPlausible(Self.box(label: 3, length: 0.9, width: 1.0, height: 1.7)))
        #expect(!PlausibilityFilter.isPlausible(Self.box(label: 3, length: 0.89, width: 1.0, height: 1.7)))
        #expect(PlausibilityFilter.isPlausible(Self.box(label: 3, length: 0.5, width: 0.5, height: 1.7)))
    }

    @Test func unknownLabelUsesDefaultLimits() {
        let l = PlausibilityFilter.limits(for: 42)
        #expect(l.length == 2.5...7.0 && l.width == 1.3...2.6 && l.height == 1.0...2.6)
    }

    @Test(arguments: [
        (0, 4.5, 1.8, 1.5, true), // sedan
        (0, 12.0, 2.5, 3.5, false), // bus-sized box labelled light vehicle
        (1, 12.0, 2.5, 3.5, true), // bus
        (2, 2.0, 0.8, 1.5, true), // motorcycle
        (2, 4.5, 1.8, 1.5, false), // car-sized two-wheeler
    ])
    func typicalVehicles(label: Int, length: Double, width: Double, height: Double, plausible: Bool) {
        #expect(PlausibilityFilter.isPlausible(Self.box(label: label, length: length, width: width, height: height)) == plausible)
    }
}
