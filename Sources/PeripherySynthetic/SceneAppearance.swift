/// How a scene of the structured world looks beyond its geometry: the light, the road's wear and
/// the camera. `nil` in a scene of the basic world, which keeps its own simpler look.
public struct SceneAppearance: Sendable, Hashable {
    /// Share of the light that reaches a point in full shadow (overcast skies: most of it).
    public var ambient: Double
    /// Colour and strength of direct sunlight (low sun: weaker and warmer).
    public var sunlight: SIMD3<Double>
    /// Share of the sky covered by cloud, 0…1.
    public var cloudCover: Double
    /// Contrast of the asphalt's mottling.
    public var roadMottle: Double
    /// Share of the road's cells with a repair patch, 0…1.
    public var patchDensity: Double
    /// Share of the road crossed by cracks, 0…1.
    public var crackDensity: Double
    /// How worn the painted lines are: 0 fresh, 1 nearly gone.
    public var markingWear: Double
    /// Darkening of the lanes' wheel paths, 0…1.
    public var wheelPaths: Double
    /// Whether the road is concrete slabs (lighter, with a transverse joint every few metres) rather
    /// than asphalt.
    public var concreteSlabs: Bool
    /// Distance between the slabs' joints, metres.
    public var slabLength: Double
    /// The camera's own effects.
    public var camera: CameraEffects

    /// Creates an appearance; the defaults are a clear day on a new road through a clean camera.
    public init(
        ambient: Double = 0.38, sunlight: SIMD3<Double> = SIMD3(repeating: 0.62), cloudCover: Double = 0,
        roadMottle: Double = 0.1, patchDensity: Double = 0, crackDensity: Double = 0, markingWear: Double = 0,
        wheelPaths: Double = 0, concreteSlabs: Bool = false, slabLength: Double = 4.5, camera: CameraEffects = CameraEffects()
    ) {
        self.ambient = ambient
        self.sunlight = sunlight
        self.cloudCover = cloudCover
        self.roadMottle = roadMottle
        self.patchDensity = patchDensity
        self.crackDensity = crackDensity
        self.markingWear = markingWear
        self.wheelPaths = wheelPaths
        self.concreteSlabs = concreteSlabs
        self.slabLength = slabLength
        self.camera = camera
    }
}
