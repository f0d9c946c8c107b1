import Foundation
import PeripheryCore

/// Draws scenes of the structured world deterministically from a seed: the basic world's road and
/// traffic, set among what real roads have and a detector must not call a vehicle.
///
/// The structure follows structured domain randomization (Prakash et al. 2019): objects stand where
/// they stand on real roads (barriers and rails at the road's edge, sidewalks behind kerbs, signs
/// on posts and gantries, trees and walls beyond them), while their colours, textures, the light
/// and the camera are randomized widely (Tremblay et al. 2018). `docs/guides/synthetic-world.md`
/// lists what is drawn and how often.
public struct StructuredSceneSampler: Sendable, Hashable {
    /// The road and the vehicles, drawn as the basic world draws them.
    public var traffic: SceneSampler

    /// Creates a sampler.
    public init(traffic: SceneSampler = SceneSampler()) {
        self.traffic = traffic
        self.traffic.bodyMaterial = .vehicleBody
    }

    /// The scene of `seed`.
    public func scene(seed: UInt64) -> SyntheticScene {
        var rng = SyntheticRandom(seed: SyntheticRandom.mix(seed ^ 0x5757_0C7D))
        let road = traffic.sampleRoad(&rng)
        var scene = lighting(&rng, seed: seed, road: road)
        var roadside = RoadsideDraw(road: road)
        roadside.draw(&rng)
        scene.props = roadside.props
        scene.crowns = roadside.crowns
        // Streets queue and park more cars than the basic world's count: one scene in three doubles it.
        var traffic = self.traffic
        if rng.chance(0.35) { traffic.maxVehicles *= 2 }
        scene.vehicles = traffic.sampleVehicles(&rng, road: road)
        // Nothing stands inside a vehicle's box (with 0.2 m to spare), so every label stays exact.
        let footprints = scene.vehicles.map(\.footprint)
        func clear(_ corners: [SIMD3<Double>]) -> Bool {
            let xs = corners.map(\.x), ys = corners.map(\.y)
            guard let x0 = xs.min(), let x1 = xs.max(), let y0 = ys.min(), let y1 = ys.max() else { return true }
            let rectangle = [SIMD2(x1, y1), SIMD2(x0, y1), SIMD2(x0, y0), SIMD2(x1, y0)]
            return !footprints.contains { Footprint.overlap($0, rectangle, margin: 0.2) }
        }
        scene.props = scene.props.filter { $0.centre.z - $0.halfExtents.z > 4.5 || clear($0.corners) }
        scene.crowns = scene.crowns.filter { $0.centre.z - $0.radii.z > 4.5 || clear($0.corners) }
        return scene
    }

    /// Sky, sun, road and verge colours and the appearance: clear, low sun, overcast or dusk.
    func lighting(_ rng: inout SyntheticRandom, seed: UInt64, road: SyntheticRoad) -> SyntheticScene {
        let draw = rng.uniform(0, 1)
        let overcast = draw < 0.28, dusk = !overcast && draw < 0.4, lowSun = !overcast && !dusk && draw < 0.62
        let elevation = (dusk ? rng.uniform(2, 9) : (lowSun ? rng.uniform(6, 22) : rng.uniform(22, 72))) * .pi / 180
        let azimuth = rng.uniform(-.pi, .pi)
        let sun = SIMD3(cos(elevation) * cos(azimuth), cos(elevation) * sin(azimuth), sin(elevation))
        var appearance = SceneAppearance()
        let skyTop: SIMD3<Double>, skyHorizon: SIMD3<Double>
        if overcast {
            let grey = rng.uniform(0.55, 0.85)
            skyTop = SIMD3(repeating: grey * 0.9)
            skyHorizon = SIMD3(repeating: grey) * SIMD3(1, 1, rng.uniform(1, 1.06))
            appearance.ambient = rng.uniform(0.65, 0.9)
            appearance.sunlight = SIMD3(repeating: rng.uniform(0.05, 0.2))
            appearance.cloudCover = rng.uniform(0.85, 1)
        } else if dusk {
            skyTop = SIMD3(rng.uniform(0.15, 0.3), rng.uniform(0.2, 0.35), rng.uniform(0.4, 0.6))
            skyHorizon = SIMD3(rng.uniform(0.8, 0.95), rng.uniform(0.5, 0.7), rng.uniform(0.35, 0.55))
            appearance.ambient = rng.uniform(0.22, 0.4)
            appearance.sunlight = SIMD3(1, 0.72, 0.5) * rng.uniform(0.35, 0.6)
            appearance.cloudCover = rng.uniform(0, 0.7)
        } else {
            skyTop = SIMD3(rng.uniform(0.2, 0.45), rng.uniform(0.4, 0.6), rng.uniform(0.7, 0.95))
            skyHorizon = SIMD3(rng.uniform(0.7, 0.88), rng.uniform(0.76, 0.9), rng.uniform(0.85, 0.97))
            appearance.ambient = rng.uniform(0.26, 0.45)
            appearance.sunlight = SIMD3(1, 0.97, 0.92) * rng.uniform(0.55, 0.85)
            appearance.cloudCover = rng.chance(0.5) ? rng.uniform(0.1, 0.6) : 0
        }
        appearance.concreteSlabs = rng.chance(0.22)
        appearance.slabLength = rng.uniform(4, 6)
        let grey = appearance.concreteSlabs ? rng.uniform(0.48, 0.68) : rng.uniform(0.16, 0.42)
        let asphalt = SIMD3(grey, grey * rng.uniform(0.97, 1.02), grey * rng.uniform(0.97, 1.06))
        let verge = SIMD3(rng.uniform(0.2, 0.45), rng.uniform(0.3, 0.48), rng.uniform(0.12, 0.25))
        let paint = rng.chance(0.8) ? SIMD3(repeating: rng.uniform(0.75, 0.95)) : SIMD3(0.9, 0.75, 0.25)
        appearance.roadMottle = rng.uniform(0.02, 0.15)
        appearance.patchDensity = rng.chance(0.5) ? rng.uniform(0.05, 0.4) : 0
        appearance.crackDensity = rng.chance(0.5) ? rng.uniform(0.1, 0.7) : 0
        appearance.markingWear = rng.chance(0.5) ? rng.uniform(0.05, 0.6) : 0
        appearance.wheelPaths = rng.uniform(0, 1)
        appearance.camera = camera(&rng)
        return SyntheticScene(
            seed: seed, road: road, skyTop: skyTop, skyHorizon: skyHorizon, sunDirection: sun, asphalt: asphalt, verge: verge,
            paint: paint, appearance: appearance)
    }

    /// The camera's effects: exposure, contrast, vignetting, glare, motion blur, lens, hood, noise
    /// and compression, each drawn independently.
    func camera(_ rng: inout SyntheticRandom) -> CameraEffects {
        var effects = CameraEffects()
        effects.exposure = exp(rng.uniform(log(0.7), log(1.6)))
        effects.contrast = rng.uniform(0.85, 1.3)
        effects.vignetting = rng.chance(0.6) ? rng.uniform(0.05, 0.45) : 0
        effects.glare = rng.chance(0.5) ? rng.uniform(0.1, 1) : 0
        effects.motionBlur = rng.chance(0.4) ? rng.uniform(1, 7) : 0
        effects.radialDistortion = rng.chance(0.5) ? rng.uniform(-0.12, 0.04) : 0
        if rng.chance(0.45) {
            let tone = rng.uniform(0.03, 0.6)
            effects.hood = CameraEffects.Hood(
                height: rng.uniform(0.04, 0.2), droop: rng.uniform(0.01, 0.08),
                colour: SIMD3(tone, tone * rng.uniform(0.9, 1.05), tone * rng.uniform(0.9, 1.1)))
        }
        effects.sensorNoise = rng.uniform(1, 6)
        effects.jpegQuality = rng.chance(0.6) ? rng.integer(30...95) : nil
        return effects
    }
}
