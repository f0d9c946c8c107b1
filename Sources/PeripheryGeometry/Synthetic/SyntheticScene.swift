/// A synthetic driving scene in the vehicle frame: road, lighting, roadside solids and vehicles.
public struct SyntheticScene: Sendable, Hashable {
    /// The seed the scene was drawn from; also seeds the renderer's noise.
    public var seed: UInt64
    /// The road.
    public var road: SyntheticRoad
    /// Sky colour at the zenith, linear RGB 0…1.
    public var skyTop: SIMD3<Double>
    /// Sky colour at the horizon, linear RGB 0…1.
    public var skyHorizon: SIMD3<Double>
    /// Unit vector towards the sun (z > 0).
    public var sunDirection: SIMD3<Double>
    /// Asphalt colour.
    public var asphalt: SIMD3<Double>
    /// Verge (grass) colour.
    public var verge: SIMD3<Double>
    /// Lane-marking paint colour.
    public var paint: SIMD3<Double>
    /// Kerbs, buildings, poles and trees.
    public var props: [SyntheticBox]
    /// Labelled vehicles.
    public var vehicles: [SyntheticVehicle]

    /// Creates a scene from its parts.
    public init(
        seed: UInt64, road: SyntheticRoad, skyTop: SIMD3<Double> = SIMD3(0.35, 0.52, 0.8),
        skyHorizon: SIMD3<Double> = SIMD3(0.72, 0.8, 0.88), sunDirection: SIMD3<Double> = SIMD3(0.4, 0.5, 0.77),
        asphalt: SIMD3<Double> = SIMD3(0.33, 0.33, 0.35), verge: SIMD3<Double> = SIMD3(0.27, 0.42, 0.2),
        paint: SIMD3<Double> = SIMD3(0.92, 0.92, 0.88), props: [SyntheticBox] = [], vehicles: [SyntheticVehicle] = []
    ) {
        self.seed = seed
        self.road = road
        self.skyTop = skyTop
        self.skyHorizon = skyHorizon
        let n = (sunDirection * sunDirection).sum().squareRoot()
        self.sunDirection = n > 0 ? sunDirection / n : SIMD3(0, 0, 1)
        self.asphalt = asphalt
        self.verge = verge
        self.paint = paint
        self.props = props
        self.vehicles = vehicles
    }
}
