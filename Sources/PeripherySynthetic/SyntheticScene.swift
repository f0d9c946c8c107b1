import Foundation
import PeripheryCore
import PeripheryGeometry

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
    /// Tree crowns and bushes (the structured world's; none in the basic world).
    public var crowns: [FoliageCrown]
    /// The structured world's light, road wear and camera; `nil` for the basic world's look.
    public var appearance: SceneAppearance?
    /// For a frame of a drive: where the vehicle frame sits on a curved road in the world. Road
    /// markings then follow `placement.centreline` and surface textures stay fixed to the world, so
    /// that consecutive frames show the same texture moving (optical flow is exact). `nil` for a
    /// single scene: the road runs straight along vehicle x.
    var placement: WorldPlacement?

    /// Creates a scene from its parts.
    public init(
        seed: UInt64, road: SyntheticRoad, skyTop: SIMD3<Double> = SIMD3(0.35, 0.52, 0.8),
        skyHorizon: SIMD3<Double> = SIMD3(0.72, 0.8, 0.88), sunDirection: SIMD3<Double> = SIMD3(0.4, 0.5, 0.77),
        asphalt: SIMD3<Double> = SIMD3(0.33, 0.33, 0.35), verge: SIMD3<Double> = SIMD3(0.27, 0.42, 0.2),
        paint: SIMD3<Double> = SIMD3(0.92, 0.92, 0.88), props: [SyntheticBox] = [], vehicles: [SyntheticVehicle] = [],
        crowns: [FoliageCrown] = [], appearance: SceneAppearance? = nil
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
        self.crowns = crowns
        self.appearance = appearance
        placement = nil
    }
}

/// The pose of a scene's vehicle frame in a world frame with a laid-out road.
struct WorldPlacement: Sendable, Hashable {
    /// The road's centreline in the world frame; the scene's `SyntheticRoad` gives the lanes and
    /// markings across it (its lateral positions are offsets from the centreline).
    var centreline: RoadCentreline
    /// World position of the vehicle-frame origin.
    var position: SIMD2<Double>
    /// World heading of vehicle x, radians.
    var heading: Double
    /// Arc lengths that can be in view (limits the road lookups).
    var window: ClosedRange<Double>
    /// Seeds the world-fixed textures (constant over a drive; the per-frame noise seed varies).
    var textureSeed: UInt64

    /// Creates a placement.
    init(centreline: RoadCentreline, position: SIMD2<Double>, heading: Double, window: ClosedRange<Double>, textureSeed: UInt64) {
        self.centreline = centreline
        self.position = position
        self.heading = heading
        self.window = window
        self.textureSeed = textureSeed
    }

    /// World coordinates of a vehicle-frame point (x, y; z is shared).
    @inline(__always)
    func world(_ p: SIMD3<Double>) -> SIMD3<Double> {
        let c = cos(heading), s = sin(heading)
        return SIMD3(position.x + c * p.x - s * p.y, position.y + s * p.x + c * p.y, p.z)
    }
}
