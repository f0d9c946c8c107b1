import PeripheryCore
import PeripheryGeometry

/// The reference's drawing colours (visualization §10.1).
enum Palette {
    /// Track in motion, `#e8a33d`.
    static let moving = Colour(red: 0.910, green: 0.639, blue: 0.239)
    /// Parked track, `#94a2b0`.
    static let parked = Colour(red: 0.580, green: 0.635, blue: 0.690)
    /// Track whose motion is not known yet, `#6b7885`.
    static let unknown = Colour(red: 0.420, green: 0.471, blue: 0.522)

    /// Page background behind the world view, `#0f1317`.
    static let ground = Colour(hex: 0x0F1317)
    /// Road-plane fill, `#1f262e`.
    static let panel2 = Colour(hex: 0x1F262E)
    /// Hairlines, `#2c353e`.
    static let line = Colour(hex: 0x2C353E)
    /// Secondary ink, `#94a2b0`.
    static let ink2 = Colour(hex: 0x94A2B0)
    /// Tertiary ink, `#6b7885`.
    static let ink3 = Colour(hex: 0x6B7885)
    /// Vision accent, `#e8a33d`.
    static let vision = Colour(hex: 0xE8A33D)
    /// Vision accent at 16 % opacity.
    static let visionSoft = vision.opacity(0.16)
    /// Radar accent, `#45b3c4`.
    static let radar = Colour(hex: 0x45B3C4)
    /// Radar accent at 16 % opacity (the sensor field-of-view wedge).
    static let radarSoft = radar.opacity(0.16)
    /// Fill of the ego car: `ink2` at 12 % opacity.
    static let parkedSoft = ink2.opacity(0.12)
    /// Cabin walls.
    static let cabin = Colour(red: 0.188, green: 0.243, blue: 0.282, alpha: 0.68)
    /// Cabin roof.
    static let cabinTop = Colour(red: 0.251, green: 0.322, blue: 0.369, alpha: 0.72)
    /// Windows.
    static let glass = Colour(red: 0.698, green: 0.827, blue: 0.863, alpha: 0.32)

    /// Background of the split view.
    static let splitBackground = Colour(red: 0.035, green: 0.043, blue: 0.051)
    /// Background of the HUD and caption strips.
    static let hudBackground = Colour(red: 0.059, green: 0.075, blue: 0.090)

    /// Horizon guide of the live view: cyan at 80 % opacity.
    static let horizonGuide = Colour(red: 0.196, green: 0.678, blue: 0.902, alpha: 0.8)
    /// Range-ladder guide of the live view: yellow at 55 % opacity.
    static let rangeGuide = Colour(red: 1.0, green: 0.8, blue: 0.0, alpha: 0.55)

    /// The colour of a motion state.
    static func colour(for state: TrackedVehicle.MotionState) -> Colour {
        switch state {
        case .moving: moving
        case .parked: parked
        case .unknown: unknown
        }
    }
}
