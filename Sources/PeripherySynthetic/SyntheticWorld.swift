/// The synthetic worlds `periphery synth --world` renders. Both give the same labels and files.
public enum SyntheticWorld: String, Sendable, Hashable, CaseIterable {
    /// Simple solids under Lambert light: the world the first demo weights were trained on.
    case basic
    /// The basic world's road and traffic among barriers, guard rails, sidewalks, signs, gantries,
    /// trees and their cast shadows, walls, pedestrians and clutter, on a worn road under varied
    /// skies, through a camera with a hood, glare, blur, lens distortion, noise and JPEG
    /// (`StructuredSceneSampler`).
    case structured

    /// The camera heights this world draws, metres. The structured world reaches 2.1 m because
    /// real recording cars carry their cameras that high (PandaSet's front camera sits at 1.9 m).
    public var mountHeights: ClosedRange<Double> {
        switch self {
        case .basic: SyntheticCamera.windshieldHeights
        case .structured: 1.0...2.1
        }
    }

    /// The scene of `seed` in this world, its traffic drawn by `traffic`.
    public func scene(seed: UInt64, traffic: SceneSampler) -> SyntheticScene {
        switch self {
        case .basic: traffic.scene(seed: seed)
        case .structured: StructuredSceneSampler(traffic: traffic).scene(seed: seed)
        }
    }
}
