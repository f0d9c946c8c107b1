#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns head outputs into vehicle-frame detections exactly as the reference decoder
/// (`docs/reference/contract.md#3-decode`): sigmoid, argmax, threshold, anchor decode, direction fold, grid → vehicle,
/// validity, region, optional plausibility, circular NMS.
public enum DetectionDecoder {
    /// Decodes all candidates and returns the NMS keepers in descending score.
    public static func decode(_ head: HeadOutputs, settings: DecodeSettings = DecodeSettings()) -> [Detection] {
        var workspace = DecodeWorkspace(), detections: [Detection] = []
        decode(head, settings: settings, workspace: &workspace, into: &detections)
        return detections
    }

    /// Decodes all candidates into `detections` (replacing its contents), the NMS keepers in
    /// descending score; with a warm `workspace` and enough capacity it allocates nothing.
    package static func decode(
        _ head: HeadOutputs, settings: DecodeSettings, workspace: inout DecodeWorkspace, into detections: inout [Detection]
    ) {
        workspace.candidates.removeAll(keepingCapacity: true)
        let anchors = AnchorGrid.anchors
        for n in 0..<Safety40.candidateCount {
            let (label, score) = bestClass(head.classes, candidate: n)
            guard score >= settings.scoreThreshold, VehicleClass.vehicleLabels.contains(label) else { continue }
            let codeBase = n * Safety40.boxCodeChannels
            var code = SIMD8<Double>()
            for k in 0..<7 { code[k] = Double(head.boxes[codeBase + k]) }
            let dirBase = n * Safety40.directionChannels
            let direction = head.directions[dirBase + 1] > head.directions[dirBase] ? 1 : 0
            let d = decodeBox(
                code: code, anchor: anchors[n], direction: direction, score: score, label: label,
                candidate: n)
            guard isValid(d), settings.region.contains(x: d.box.x, y: d.box.y) else { continue }
            if settings.rejectImplausible && !PlausibilityFilter.isPlausible(d) { continue }
            workspace.candidates.append(d)
        }
        CircularNMS.suppress(
            workspace.candidates, radius: settings.nmsRadius, order: &workspace.order, suppressed: &workspace.suppressed,
            into: &detections)
    }

    /// Sigmoid of each class logit and the first index of the maximum (strict `>` while scanning).
    static func bestClass(_ classes: [Float], candidate n: Int) -> (label: Int, score: Float) {
        let base = n * Safety40.classChannels
        var label = 0
        var score = sigmoid(classes[base])
        for k in 1..<Safety40.classChannels {
            let s = sigmoid(classes[base + k])
            // A NaN logit makes the score NaN, as torch `max` propagates NaN, so the threshold
            // drops the candidate instead of trusting the other channels.
            if s.isNaN { return (k, s) }
            if s > score {
                score = s
                label = k
            }
        }
        return (label, score)
    }

    /// `1 / (1 + exp(−x))` in float32, as the reference.
    @inlinable
    static func sigmoid(_ x: Float) -> Float { 1 / (1 + expf(-x)) }

    /// Decodes one candidate's codes against its anchor (DeltaXYZWLHRBBoxCoder, in Double) and maps
    /// the box to the vehicle frame.
    static func decodeBox(
        code: SIMD8<Double>, anchor a: Anchor, direction: Int, score: Float, label: Int, candidate: Int
    ) -> Detection {
        let diag = (a.width * a.width + a.length * a.length).squareRoot()
        let zaCentre = a.zBottom + a.height / 2
        let gx = code[0] * diag + a.x
        let gy = code[1] * diag + a.y
        let zc = code[2] * a.height + zaCentre
        let w = exp(code[3]) * a.width
        let l = exp(code[4]) * a.length
        let h = exp(code[5]) * a.height
        let rot = code[6] + a.yaw
        let zBottom = zc - h / 2

        // mmdet3d direction fold: limit_period(rot − offset, period π) then add back the bin.
        var v = rot - Safety40.directionOffset
        v -= floor(v / .pi) * .pi
        let gridYaw = v + Safety40.directionOffset + .pi * Double(direction)

        // Grid → vehicle. Grid y is vehicle forward, so the box axes trade places: grid l becomes
        // the vehicle length and grid w its width, and the heading turns with the axes.
        var yaw = -gridYaw - .pi
        yaw -= floor((yaw + .pi) / (2 * .pi)) * 2 * .pi
        let box = VehicleBox(
            x: gy + CoordinateFrames.gridToVehicleForward, y: -gx, z: zBottom + h / 2 + CoordinateFrames.gridToVehicleUp,
            length: l, width: w, height: h, yaw: yaw)
        return Detection(score: score, label: label, box: box, candidate: candidate)
    }

    /// Positive sizes and finite position and heading.
    static func isValid(_ d: Detection) -> Bool {
        d.box.length > 0 && d.box.width > 0 && d.box.height > 0
            && d.box.x.isFinite && d.box.y.isFinite && d.box.z.isFinite && d.box.yaw.isFinite
    }
}
