import Foundation
import PeripheryCore
import PeripheryGeometry

extension SceneRenderer {
    /// Renders a scene of the structured world: cast shadows, textured materials, a worn road,
    /// clouds, then the camera's own effects (`CameraEffects`).
    func renderStructured(
        _ scene: SyntheticScene, appearance: SceneAppearance, intrinsics: CameraIntrinsics, pose: MountPose
    ) -> SyntheticFrame {
        let rendered = appearance.camera.renderingIntrinsics(for: intrinsics)
        let camera = RayCamera(intrinsics: rendered, pose: pose)
        let width = rendered.width, height = rendered.height
        var light = [SIMD3<Double>](repeating: .zero, count: width * height)
        var ids = [Int32](repeating: -1, count: width * height)
        let seed = SyntheticRandom.mix(scene.seed ^ SyntheticRandom.mix(options.noiseSeed &+ 0x5EED))
        let textureSeed = scene.placement.map { SyntheticRandom.mix($0.textureSeed) } ?? seed
        // Culls rays through the rendered camera; `labeller` counts the frame's pixels.
        let culling = SceneLabeller(camera: camera, minimumVisiblePixels: options.minimumVisiblePixels)
        let labeller = SceneLabeller(camera: RayCamera(intrinsics: intrinsics, pose: pose), minimumVisiblePixels: options.minimumVisiblePixels)
        let geometry = SceneGeometry(scene, labeller: culling)
        let shadows = SunShadows(scene, labeller: culling, seed: textureSeed)
        let shader = StructuredShader(scene: scene, appearance: appearance, seed: textureSeed)
        for row in 0..<height {
            let candidates = geometry.candidates(row: row)
            let casters = shadows.candidates(row: row)
            for column in 0..<width {
                let d = camera.direction(column, row)
                let hit = geometry.trace(from: camera.centre, direction: d, column: column, candidates: candidates)
                let index = row * width + column
                ids[index] = hit.vehicle
                var colour: SIMD3<Double>
                if hit.t.isFinite {
                    let point = camera.centre + hit.t * d
                    let normal = shader.normal(hit, geometry: geometry, at: point)
                    let sunlit = shadows.sunlight(at: point + 0.01 * normal, column: column, candidates: casters)
                    colour = shader.surface(hit, geometry: geometry, at: point, normal: normal, view: d, sunlit: sunlit)
                    let haze = 1 - exp(-hit.t * (d * d).sum().squareRoot() / options.hazeDistance)
                    colour = colour * (1 - haze) + scene.skyHorizon * haze
                } else {
                    colour = shader.sky(d)
                }
                light[index] = colour
            }
        }
        let sun = labeller.camera.vehicleToPixel * scene.sunDirection
        let sunPixel = sun.z > 0 ? SIMD2(sun.x / sun.z, sun.y / sun.z) : nil
        var effects = appearance.camera
        if options.sensorNoise == 0 { effects.sensorNoise = 0 }
        let image = effects.develop(
            light, ids: &ids, rendered: rendered, intrinsics: intrinsics, sunPixel: sunPixel, sky: scene.skyHorizon, seed: seed)
        return SyntheticFrame(image: image, vehicleIDs: ids, labels: labeller.labels(scene, vehicleIDs: ids))
    }
}
