@testable import PeripheryCore

/// Small builders for the evaluation tests: boxes placed by BEV centre, everything else fixed.
enum EvalBox {
    /// A prediction at (x, y); the size is a car's and irrelevant to matching.
    static func pred(
        _ x: Double, _ y: Double, score: Float = 0.9, label: Int = 0,
        z: Double = 0.75, height: Double = 1.5, yaw: Double = 0, candidate: Int = 0
    ) -> Detection {
        Detection(
            score: score, label: label,
            box: VehicleBox(
                x: x, y: y, z: z, length: 4, width: 1.8, height: height,
                yaw: yaw), candidate: candidate)
    }

    /// A ground-truth box at (x, y).
    static func gt(_ x: Double, _ y: Double, label: Int = 0, yaw: Double = 0) -> GroundTruthBox {
        GroundTruthBox(label: label, box: VehicleBox(x: x, y: y, z: 0.75, length: 4, width: 1.8, height: 1.5, yaw: yaw))
    }

    /// Degrees to radians.
    static func rad(_ degrees: Double) -> Double { degrees * Double.pi / 180 }
}
