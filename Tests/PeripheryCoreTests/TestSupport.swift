import Foundation

@testable import PeripheryCore

/// Head tensors filled with "nothing here" (all class logits −20, zero codes and direction logits),
/// with a few candidates set explicitly.
struct HeadBuilder {
    var classes = [Float](repeating: -20, count: 6720 * 4)
    var boxes = [Float](repeating: 0, count: 6720 * 9)
    var directions = [Float](repeating: 0, count: 6720 * 2)

    mutating func set(
        _ n: Int, logits: [Float], code: [Float] = [Float](repeating: 0, count: 9),
        direction: [Float] = [0, 0]
    ) {
        precondition(logits.count == 4 && code.count <= 9 && direction.count == 2)
        for k in 0..<4 { classes[n * 4 + k] = logits[k] }
        for k in 0..<code.count { boxes[n * 9 + k] = code[k] }
        for k in 0..<2 { directions[n * 2 + k] = direction[k] }
    }

    func build() throws -> HeadOutputs {
        try HeadOutputs(classes: classes, boxes: boxes, directions: directions)
    }

    /// `((ix·40 + iy)·4 + size)·2 + rotation`, written out independently of the library.
    static func index(ix: Int, iy: Int, size: Int, rot: Int) -> Int { ((ix * 40 + iy) * 4 + size) * 2 + rot }
}

/// A straightforward Double implementation of reference, `docs/reference/contract.md#3-decode`, steps 1–7, for checking the decoder.
enum NaiveDecoder {
    struct Box {
        var candidate: Int
        var score: Float
        var label: Int
        var x, y, z, length, width, height, yaw: Double
    }

    static let sizes: [(w: Double, l: Double, h: Double)] = [
        (0.866, 2.5981, 1.0), (0.5774, 1.7321, 1.0), (1.0, 1.0, 1.0), (0.4, 0.4, 1.0),
    ]

    /// Anchor `[x, y, z_bottom, w, l, h, yaw]` of candidate n from the spec's cell-centre formulas.
    static func anchor(_ n: Int) -> [Double] {
        let rot = n % 2, size = (n / 2) % 4, iy = (n / 8) % 40, ix = n / 320
        let x = -10 + 20 * (Double(ix) + 0.5) / 21
        let y = -0.5 + 39.5 * (Double(iy) + 0.5) / 40
        let s = sizes[size]
        return [x, y, -1.8, s.w, s.l, s.h, rot == 0 ? 0.0 : 1.57]
    }

    static func sigmoid(_ x: Float) -> Float { 1 / (1 + expf(-x)) }

    /// Score and label: first maximum of the float32 sigmoids; NaN anywhere gives a NaN score.
    static func classify(_ logits: ArraySlice<Float>) -> (score: Float, label: Int) {
        let s = logits.map(sigmoid)
        if let nan = s.firstIndex(where: \.isNaN) { return (.nan, nan) }
        var best = 0
        for k in 1..<s.count where s[k] > s[best] { best = k }
        return (s[best], best)
    }

    /// Decodes the box of candidate n (steps 3–5), whatever its score.
    static func box(_ n: Int, code c: [Double], direction: Int, score: Float = 1, label: Int = 0) -> Box {
        let a = anchor(n)
        let (xa, ya, za, wa, la, ha, ra) = (a[0], a[1], a[2], a[3], a[4], a[5], a[6])
        let diag = (wa * wa + la * la).squareRoot()
        let zac = za + ha / 2
        let x = c[0] * diag + xa, y = c[1] * diag + ya, zc = c[2] * ha + zac
        let w = exp(c[3]) * wa, l = exp(c[4]) * la, h = exp(c[5]) * ha
        let rot = c[6] + ra
        let zBottom = zc - h / 2
        // limit_period to [0, π) written as loops rather than floor.
        var v = rot - 0.7854
        if v.isFinite {
            while v < 0 { v += .pi }
            while v >= .pi { v -= .pi }
        }
        let gridYaw = v + 0.7854 + .pi * Double(direction)
        var yaw = -gridYaw - .pi
        if yaw.isFinite {
            while yaw < -.pi { yaw += 2 * .pi }
            while yaw >= .pi { yaw -= 2 * .pi }
        }
        return Box(
            candidate: n, score: score, label: label,
            x: y + 0.944, y: -x, z: zBottom + h / 2 + 1.840, length: l, width: w, height: h, yaw: yaw)
    }

    /// Steps 1–7 over the whole head, in candidate order (no NMS).
    static func candidates(classes: [Float], boxes: [Float], directions: [Float], threshold: Float) -> [Box] {
        var out: [Box] = []
        for n in 0..<6720 {
            let (score, label) = classify(classes[(n * 4)..<(n * 4 + 4)])
            guard score >= threshold, label != 3 else { continue }
            let code = (0..<7).map { Double(boxes[n * 9 + $0]) }
            let dir = directions[n * 2 + 1] > directions[n * 2] ? 1 : 0
            let b = box(n, code: code, direction: dir, score: score, label: label)
            guard b.length > 0, b.width > 0, b.height > 0,
                b.x.isFinite, b.y.isFinite, b.z.isFinite, b.yaw.isFinite
            else { continue }
            guard b.x >= 0, b.x <= 40, b.y >= -10, b.y <= 10 else { continue }
            out.append(b)
        }
        return out
    }

    /// Greedy circular NMS written as a plain O(n²) loop over a stable score sort.
    static func nms(_ boxes: [Box], radius: Double) -> [Box] {
        var order = Array(boxes.indices)
        // Insertion sort: stable by construction.
        for i in 1..<max(order.count, 1) {
            var j = i
            while j > 0 && boxes[order[j - 1]].score < boxes[order[j]].score {
                order.swapAt(j - 1, j)
                j -= 1
            }
        }
        var alive = [Bool](repeating: true, count: boxes.count)
        var kept: [Box] = []
        for i in order where alive[i] {
            kept.append(boxes[i])
            for j in order where alive[j] && j != i {
                let dx = boxes[j].x - boxes[i].x, dy = boxes[j].y - boxes[i].y
                if (dx * dx + dy * dy).squareRoot() < radius { alive[j] = false }
            }
            alive[i] = false
        }
        return kept
    }
}

/// Largest absolute field difference between a detection and a naive box.
func maxFieldError(_ d: Detection, _ b: NaiveDecoder.Box) -> Double {
    [
        abs(d.box.x - b.x), abs(d.box.y - b.y), abs(d.box.z - b.z), abs(d.box.length - b.length), abs(d.box.width - b.width),
        abs(d.box.height - b.height), abs(d.box.yaw - b.yaw),
    ].max() ?? .infinity
}
