import Foundation
import PeripheryCore

extension VehicleBox {
    /// Range from the ego's front bumper: the smallest x over the four corners of the box's
    /// footprint, less `egoFront` (the bumper's x in the vehicle frame, metres).
    ///
    /// It is the gap along the ego's heading to the nearest point of the vehicle, which is what a
    /// collision closes; negative when that point is beside or behind the bumper.
    public func bumperRange(egoFront: Double) -> Double {
        // The corners are the centre ± (l/2)(cos ψ, sin ψ) ± (w/2)(−sin ψ, cos ψ); the smallest x
        // takes both signs against their cosine terms.
        x - length / 2 * abs(cos(yaw)) - width / 2 * abs(sin(yaw)) - egoFront
    }
}
