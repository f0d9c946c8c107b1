import PeripheryCore
import PeripheryGeometry

/// The top-view shape of a drawn road user in the world view (visualization §10.2): outlines in
/// `[forward, left] ∈ [−0.5, 0.5]²`, scaled by the box's length and width, and the heights, as
/// fractions of the box height, where the body ends and the roof is.
///
/// The outlines are this project's own simple shapes; the reference's `MODEL_PROFILES` vertices are
/// not part of the specification. The heights and default heights are the reference's.
package struct VehicleProfile: Sendable, Hashable {
    /// Name, for diagnostics.
    package var name: String
    /// Outline of the lower body.
    package var body: [SIMD2<Double>]
    /// Outline of the cabin (greenhouse, cargo box, rider, torso).
    package var cabin: [SIMD2<Double>]
    /// Window panes drawn on the roof; empty when the shape has none.
    package var glass: [[SIMD2<Double>]]
    /// Top of the body walls as a fraction of the height.
    package var bodyZ: Double
    /// Top of the cabin walls as a fraction of the height.
    package var roofZ: Double
    /// Height used when the track's height is not finite or is ≤ 0.2 m.
    package var defaultHeight: Double

    /// Creates a profile.
    package init(
        name: String, body: [SIMD2<Double>], cabin: [SIMD2<Double>], glass: [[SIMD2<Double>]], bodyZ: Double,
        roofZ: Double, defaultHeight: Double
    ) {
        self.name = name
        self.body = body
        self.cabin = cabin
        self.glass = glass
        self.bodyZ = bodyZ
        self.roofZ = roofZ
        self.defaultHeight = defaultHeight
    }

    /// The height to draw a box of height `h` with: `h`, or the default when `h` is unusable.
    package func height(for h: Double) -> Double {
        h.isFinite && h > 0.2 ? h : defaultHeight
    }

    /// Whether the roof gets the windscreen seam (the reference skips it for bodyZ 0.40 and 0.35).
    package var hasSeam: Bool { !glass.isEmpty && bodyZ != 0.40 && bodyZ != 0.35 }

    /// The reference's profile choice: large vehicle → truck, two-wheeler → bike, pedestrian →
    /// pedestrian, otherwise SUV when longer than 5.2 m or wider than 2.1 m, else car.
    static func forVehicle(label: Int, length: Double, width: Double) -> VehicleProfile {
        switch VehicleClass(rawValue: label) {
        case .largeVehicle: truck
        case .twoWheeler: bike
        case .pedestrian: pedestrian
        default: length > 5.2 || width > 2.1 ? suv : car
        }
    }

    /// A saloon: chamfered body, greenhouse over the middle, windscreen and rear window.
    package static let car = VehicleProfile(
        name: "car",
        body: mirrored([(0.50, 0.34), (0.45, 0.46), (0.36, 0.50), (-0.40, 0.50), (-0.48, 0.45), (-0.50, 0.36)]),
        cabin: mirrored([(0.22, 0.36), (0.12, 0.42), (-0.28, 0.42), (-0.36, 0.36)]),
        glass: [
            mirrored([(0.21, 0.33), (0.12, 0.38)]),
            mirrored([(-0.28, 0.38), (-0.34, 0.33)]),
        ],
        bodyZ: 0.42, roofZ: 0.91, defaultHeight: 1.5)

    /// A taller, boxier vehicle with a long roof.
    static let suv = VehicleProfile(
        name: "suv",
        body: mirrored([(0.50, 0.38), (0.47, 0.47), (0.40, 0.50), (-0.45, 0.50), (-0.50, 0.44)]),
        cabin: mirrored([(0.24, 0.40), (0.16, 0.44), (-0.44, 0.44), (-0.47, 0.40)]),
        glass: [
            mirrored([(0.23, 0.37), (0.13, 0.41)]),
            mirrored([(-0.42, 0.41), (-0.45, 0.37)]),
        ],
        bodyZ: 0.47, roofZ: 0.96, defaultHeight: 1.5)

    /// A lorry: a short cab in front of a cargo box that fills the rest of the chassis.
    static let truck = VehicleProfile(
        name: "truck",
        body: mirrored([(0.50, 0.44), (0.47, 0.50), (-0.50, 0.50)]),
        cabin: mirrored([(0.46, 0.45), (0.42, 0.48), (-0.49, 0.48)]),
        glass: [mirrored([(0.45, 0.40), (0.38, 0.44)])],
        bodyZ: 0.48, roofZ: 0.94, defaultHeight: 3.0)

    /// A bicycle or motorcycle: a slim frame with the rider above its middle.
    static let bike = VehicleProfile(
        name: "bike",
        body: mirrored([(0.50, 0.08), (0.30, 0.22), (-0.30, 0.22), (-0.50, 0.08)]),
        cabin: mirrored([(0.12, 0.30), (0.02, 0.45), (-0.18, 0.45), (-0.26, 0.30)]),
        glass: [],
        bodyZ: 0.40, roofZ: 0.82, defaultHeight: 0.95)

    /// A person: an octagonal footprint with a narrower torso on top.
    package static let pedestrian = VehicleProfile(
        name: "pedestrian",
        body: mirrored([(0.50, 0.20), (0.20, 0.50), (-0.20, 0.50), (-0.50, 0.20)]),
        cabin: mirrored([(0.30, 0.12), (0.12, 0.40), (-0.12, 0.40), (-0.30, 0.12)]),
        glass: [],
        bodyZ: 0.35, roofZ: 0.92, defaultHeight: 1.7)

    /// A closed outline from its left half, listed front to rear with left ≥ 0, followed by the
    /// mirror image of that half from rear to front.
    static func mirrored(_ left: [(Double, Double)]) -> [SIMD2<Double>] {
        let half = left.map { SIMD2($0.0, $0.1) }
        let right = half.reversed().map { SIMD2($0.x, -$0.y) }
        return half + right
    }
}
