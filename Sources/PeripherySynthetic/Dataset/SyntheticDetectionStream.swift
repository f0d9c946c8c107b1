import Foundation
import PeripheryCore
import PeripheryGeometry
import PeripheryIO

/// An endless, deterministic detection stream for soak runs: traffic around a driving ego, seen
/// as a detector sees it, with the anomalies a long drive brings.
///
/// Eight vehicles drive at their own speeds in lanes at −3.5, 0 and +3.5 m while the ego drives
/// at 14 m/s along a gentle S-curve; a vehicle that falls out of 0…60 m is replaced by a new one
/// at the far edge, so ids keep being issued. Each frame reports the vehicles within 45 m with
/// position noise (σ 0.15 m), one miss in twenty and one false positive in fifty. Every
/// `anomalyPeriod` frames one anomaly is injected in turn: time going back 0.5 s, the previous
/// frame repeated, a 3 s gap, NaN ego motion, or no ego motion. Each must reset the tracker.
package struct SyntheticDetectionStream: Sendable {
    /// The anomalies, in the order they are injected.
    package enum Anomaly: String, Sendable, CaseIterable {
        case timeBackwards = "time going backwards"
        case duplicateFrame = "duplicated frame"
        case gap = "3 s gap"
        case nanEgo = "NaN ego motion"
        case missingEgo = "no ego motion"
    }

    struct Vehicle: Sendable {
        var x: Double, y: Double, speed: Double, length: Double, width: Double, label: Int
    }

    /// Frames between two anomalies.
    package let anomalyPeriod: Int
    private var rng: SyntheticRandom
    private var vehicles: [Vehicle] = []
    private var t = 0.0
    private var index = 0
    private var last: TrackerInput?

    /// A stream from `seed`.
    package init(seed: UInt64, anomalyPeriod: Int = 997) {
        rng = SyntheticRandom(seed: seed)
        self.anomalyPeriod = max(2, anomalyPeriod)
        vehicles = (0..<8).map { _ in spawn(atRange: nil) }
    }

    /// The next frame, and the anomaly it carries if any.
    package mutating func next() -> (frame: TrackerInput, anomaly: Anomaly?) {
        index += 1
        let anomaly =
            index % anomalyPeriod == 0
            ? Anomaly.allCases[(index / anomalyPeriod - 1) % Anomaly.allCases.count] : nil
        if anomaly == .duplicateFrame, let last { return (last, anomaly) }
        let dt = 0.1
        let egoSpeed = 14.0, yawRate = 0.05 * sin(t / 20)
        var ego: EgoDelta? = EgoDelta.arc(speed: egoSpeed, yawRate: yawRate, dt: dt)
        t += dt
        switch anomaly {
        case .timeBackwards: t -= 0.5
        case .gap: t += 3
        case .nanEgo: ego?.dx = .nan
        case .missingEgo: ego = nil
        default: break
        }
        for i in vehicles.indices {
            vehicles[i].x += (vehicles[i].speed - egoSpeed) * dt
            if !(0...60).contains(vehicles[i].x) { vehicles[i] = spawn(atRange: vehicles[i].x < 0 ? 60 : 0) }
        }
        var detections: [Detection] = []
        for v in vehicles where v.x < 45 && !rng.chance(0.05) {
            let score = Float(rng.uniform(0.62, 0.98))
            let x = v.x + 0.15 * rng.normal(), y = v.y + 0.15 * rng.normal()
            let box = VehicleBox(x: x, y: y, z: 0.8, length: v.length, width: v.width, height: 1.6, yaw: 0.02 * rng.normal())
            detections.append(Detection(score: score, label: v.label, box: box, candidate: detections.count))
        }
        if rng.chance(0.02) {
            let x = rng.uniform(5, 40), y = rng.uniform(-8, 8)
            let box = VehicleBox(x: x, y: y, z: 0.8, length: 4.4, width: 1.8, height: 1.5, yaw: rng.uniform(-3, 3))
            detections.append(Detection(score: 0.61, label: 0, box: box, candidate: detections.count))
        }
        let frame = TrackerInput(t: t, ego: ego, detections: detections)
        last = frame
        return (frame, anomaly)
    }

    private mutating func spawn(atRange range: Double?) -> Vehicle {
        let large = rng.chance(0.15), twoWheeler = !large && rng.chance(0.1)
        return Vehicle(
            x: range ?? rng.uniform(5, 55), y: [-3.5, 0, 3.5][rng.integer(0...2)] + 0.3 * rng.normal(),
            speed: rng.uniform(8, 20), length: large ? 11 : twoWheeler ? 2.1 : 4.5, width: large ? 2.5 : twoWheeler ? 0.8 : 1.9,
            label: large ? 1 : twoWheeler ? 2 : 0)
    }
}
