/// One hand-labelled vehicle of a real frame (`Tests/real/README.md`, "Labels").
public struct RealFrameVehicle: Sendable, Hashable {
    /// The hand-drawn box (x0, y0, x1, y1), pixels of the stored frame.
    public var box: SIMD4<Double>
    /// The Safety40 class: 0 light vehicle, 1 large vehicle, 2 two-wheeler.
    public var label: Int
    /// Too small or too hidden to ask a detector for: a detection on it counts neither way.
    public var dontCare: Bool
    /// The box's ground-contact point (x forward, y left, metres, vehicle frame); nil when the
    /// bottom-centre's ray meets no road (then `dontCare` is true).
    public var contact: SIMD2<Double>?

    /// Creates a vehicle.
    public init(box: SIMD4<Double>, label: Int, dontCare: Bool, contact: SIMD2<Double>?) {
        self.box = box
        self.label = label
        self.dontCare = dontCare
        self.contact = contact
    }
}
