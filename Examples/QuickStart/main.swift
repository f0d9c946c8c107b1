import Foundation
import Periphery

// The bundled synthetic frame and its camera through the demo weights (run from the repository root).
do {
    let setup = try CalibrationFile.load(path: "docs/sample/synthetic/calibration.json")
    let image = try ImageFile.read(path: "docs/sample/synthetic/frame.png")
    let engine = try PerceptionEngine(weights: try Safety40Weights(path: "Weights/safety40-synthetic.safetensors"))
    let frame = PerceptionFrame(pixels: try FramePixels(image), timestamp: 0, intrinsics: setup.intrinsics, pose: setup.pose)
    for vehicle in try engine.process(frame).detections {
        let name = vehicle.vehicleClass?.name ?? "class \(vehicle.label)"
        print(String(format: "%@ score %.2f at x %.1f m, y %.1f m", name, vehicle.score, vehicle.box.x, vehicle.box.y))
    }
} catch {
    print("error: \(error)")
    exit(1)
}
