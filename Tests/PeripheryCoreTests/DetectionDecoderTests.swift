import Foundation
import PeripheryTestSupport
import Testing

@testable import PeripheryCore

/// The decoder of reference, `docs/reference/contract.md#3-decode`, against `NaiveDecoder` (an independent Double implementation of
/// the spec formulas) on hand-set candidates and on seeded random heads.
struct DetectionDecoderTests {
    /// Tolerance on decoded box fields, metres / radians (both sides compute in Double).
    static let fieldTolerance = 1e-9

    // MARK: Single candidates

    struct Case: Sendable, CustomTestStringConvertible {
        var ix, iy, size, rot: Int
        var logits: [Float]
        var code: [Float]
        var direction: [Float]
        var testDescription: String { "ix \(ix) iy \(iy) size \(size) rot \(rot) dir \(direction)" }
    }

    static let cases: [Case] = [
        Case(ix: 10, iy: 10, size: 0, rot: 0, logits: [3, -20, -20, -20], code: [0, 0, 0, 0, 0, 0, 0], direction: [1, 0]),
        Case(
            ix: 3, iy: 25, size: 1, rot: 1, logits: [-20, 2.5, -1, -20],
            code: [0.25, -0.125, 0.5, 0.1, -0.2, 0.3, 0.4], direction: [-1, 2]),
        Case(
            ix: 17, iy: 2, size: 2, rot: 0, logits: [-3, -20, 1.5, 0.5],
            code: [-0.3, 0.2, -0.4, -0.5, 0.6, -0.1, -2.9], direction: [0.2, -0.7]),
        Case(
            ix: 20, iy: 39, size: 3, rot: 1, logits: [0.75, 0.5, -20, -20],
            code: [-0.5, -0.2, 0.05, 0.9, 0.8, 0.7, 3.1], direction: [0, 0.5]),
        Case(
            ix: 0, iy: 0, size: 0, rot: 1, logits: [4, 4.5, 0, 0],
            code: [0.5, 0.3, 0, 0, 0, 0, -1.2], direction: [5, 5.5]),
    ]

    @Test(arguments: cases)
    func singleCandidateMatchesNaiveDecode(c: Case) throws {
        var head = HeadBuilder()
        let n = HeadBuilder.index(ix: c.ix, iy: c.iy, size: c.size, rot: c.rot)
        head.set(n, logits: c.logits, code: c.code, direction: c.direction)
        let out = DetectionDecoder.decode(try head.build())
        let (score, label) = NaiveDecoder.classify(c.logits[...])
        let dir = c.direction[1] > c.direction[0] ? 1 : 0
        let expected = NaiveDecoder.box(n, code: c.code.map(Double.init), direction: dir)
        try #require(out.count == 1)
        let d = out[0]
        #expect(d.candidate == n)
        #expect(d.label == label)
        #expect(abs(Double(d.score) - Double(score)) < 1e-6)
        #expect(abs(Double(d.score) - 1 / (1 + exp(-Double(c.logits[label])))) < 1e-6)
        #expect(maxFieldError(d, expected) < Self.fieldTolerance)
    }

    @Test func zeroCodeReproducesAnchorInVehicleFrame() throws {
        // With all codes 0 the box is the anchor: X = ya + 0.944, Y = −xa, Z = za + ha/2 + 1.84,
        // length = la, width = wa; direction bin 0, rot 0 gives yaw = −(0 − 0.7854 + π + 0.7854) − π → 0.
        var head = HeadBuilder()
        let n = HeadBuilder.index(ix: 10, iy: 10, size: 0, rot: 0)
        head.set(n, logits: [5, -20, -20, -20])
        let d = try #require(DetectionDecoder.decode(try head.build()).first)
        let xa = -10 + 20 * 10.5 / 21, ya = -0.5 + 39.5 * 10.5 / 40
        #expect(abs(d.box.x - (ya + 0.944)) < 1e-12)
        #expect(abs(d.box.y - -xa) < 1e-12)
        #expect(abs(d.box.z - (-1.8 + 0.5 + 1.84)) < 1e-12)
        #expect(abs(d.box.length - 2.5981) < 1e-12)
        #expect(abs(d.box.width - 0.866) < 1e-12)
        #expect(abs(d.box.height - 1.0) < 1e-12)
        // v = −0.7854 → +π − 0.7854; grid yaw = π; yaw = −2π → wraps to 0.
        #expect(abs(d.box.yaw) < 1e-12)
    }

    // MARK: Random heads

    /// A seeded random head through the whole decoder, against naive steps 1–7 and naive NMS.
    @Test(arguments: [(UInt64(1), 0.0), (2, 0.0), (3, 2.0), (4, 2.0), (5, 1.0)])
    func randomHeadMatchesNaive(seed: UInt64, radius: Double) throws {
        var rng = SeededRandom(seed: seed)
        var head = HeadBuilder()
        for i in 0..<head.classes.count { head.classes[i] = Float(rng.uniform(-7, 2.5)) }
        for i in 0..<head.boxes.count { head.boxes[i] = Float(rng.uniform(-0.6, 0.6)) }
        for i in 0..<head.directions.count { head.directions[i] = Float(rng.uniform(-1, 1)) }
        let settings = DecodeSettings(scoreThreshold: 0.5, nmsRadius: radius)
        let out = DetectionDecoder.decode(try head.build(), settings: settings)
        let candidates = NaiveDecoder.candidates(
            classes: head.classes, boxes: head.boxes, directions: head.directions, threshold: 0.5)
        // Radius 0 suppresses nothing (no distance is < 0): the output is then the stable sort alone.
        let expected = NaiveDecoder.nms(candidates, radius: radius)
        #expect(candidates.count > 100, "the random head should exercise many candidates")
        try #require(out.count == expected.count)
        var worst = 0.0
        for (d, b) in zip(out, expected) {
            #expect(d.candidate == b.candidate)
            #expect(d.label == b.label)
            #expect(d.score == b.score)
            worst = max(worst, maxFieldError(d, b))
        }
        #expect(worst < Self.fieldTolerance)
        // Output is in descending score.
        #expect(zip(out, out.dropFirst()).allSatisfy { $0.score >= $1.score })
    }

    @Test func yawAlwaysInHalfOpenRange() throws {
        // 6720 random rotations, far beyond ±2π, both direction bins; NMS radius 0 keeps all.
        var rng = SeededRandom(seed: 99)
        var head = HeadBuilder()
        for n in 0..<6720 {
            head.set(
                n, logits: [4, -20, -20, -20],
                code: [0, 0, 0, 0, 0, 0, Float(rng.uniform(-20, 20))],
                direction: [Float(rng.uniform(-1, 1)), Float(rng.uniform(-1, 1))])
        }
        let out = DetectionDecoder.decode(try head.build(), settings: DecodeSettings(nmsRadius: 0))
        #expect(out.count == 6720) // zero offsets keep every anchor centre inside the region
        #expect(out.allSatisfy { $0.box.yaw >= -.pi && $0.box.yaw < .pi })
        // And each equals the naive fold modulo 2π.
        var worst = 0.0
        for d in out {
            let n = d.candidate
            let code = (0..<7).map { Double(head.boxes[n * 9 + $0]) }
            let dir = head.directions[n * 2 + 1] > head.directions[n * 2] ? 1 : 0
            let b = NaiveDecoder.box(n, code: code, direction: dir)
            let diff = remainder(d.box.yaw - b.yaw, 2 * .pi)
            worst = max(worst, abs(diff))
        }
        #expect(worst < 1e-9)
    }

    // MARK: Class selection

    @Test(arguments: [
        ([Float(3), 3, -20, -20], 0),
        ([-20, 2, 2, -20], 1),
        ([-20, -20, 4, 4], 2), // tie with pedestrian: first index wins, so it is kept as two_wheeler
        ([1, 1, 1, 1], 0),
        ([-20, 2, 3, -20], 2),
    ])
    func argmaxFirstIndexWinsTies(logits: [Float], label: Int) throws {
        var head = HeadBuilder()
        head.set(HeadBuilder.index(ix: 10, iy: 10, size: 0, rot: 0), logits: logits)
        let out = DetectionDecoder.decode(try head.build())
        try #require(out.count == 1)
        #expect(out[0].label == label)
    }

    @Test func saturatedSigmoidsTieInFloat32() throws {
        // In float32, sigmoid(17) and sigmoid(30) both round to 1.0, so the argmax over scores
        // picks the first, as the reference's float32 sigmoid + max does.
        let s17: Float = 1 / (1 + expf(-17)), s30: Float = 1 / (1 + expf(-30))
        try #require(s17 == 1 && s30 == 1)
        var head = HeadBuilder()
        head.set(HeadBuilder.index(ix: 10, iy: 10, size: 0, rot: 0), logits: [-20, 17, -20, 30])
        let out = DetectionDecoder.decode(try head.build())
        try #require(out.count == 1)
        #expect(out[0].label == 1)
        #expect(out[0].score == 1)
    }

    @Test func pedestrianArgmaxIsDroppedNotRelabelled() throws {
        // Class 1 alone would pass the threshold (sigmoid 2 ≈ 0.88), but pedestrian wins the argmax.
        var head = HeadBuilder()
        head.set(HeadBuilder.index(ix: 10, iy: 10, size: 0, rot: 0), logits: [-20, 2, -20, 5])
        head.set(HeadBuilder.index(ix: 5, iy: 30, size: 1, rot: 1), logits: [-20, -20, -20, 9])
        #expect(DetectionDecoder.decode(try head.build()).isEmpty)
    }

    // MARK: Threshold

    @Test func thresholdIsInclusive() throws {
        // Logit 0 gives sigmoid exactly 0.5 in float32.
        var head = HeadBuilder()
        head.set(HeadBuilder.index(ix: 10, iy: 10, size: 0, rot: 0), logits: [0, -20, -20, -20])
        let h = try head.build()
        #expect(DetectionDecoder.decode(h, settings: DecodeSettings(scoreThreshold: 0.5)).map(\.score) == [0.5])
        #expect(DetectionDecoder.decode(h, settings: DecodeSettings(scoreThreshold: Float(0.5).nextUp)).isEmpty)
    }

    @Test(arguments: [(Float(-0.5), Float(0.3), true), (-0.5, 0.5, false), (2.0, 0.88, true), (2.0, 0.9, false)])
    func thresholdOnArgmaxScore(logit: Float, threshold: Float, kept: Bool) throws {
        // sigmoid(−0.5) ≈ 0.3775, sigmoid(2) ≈ 0.8808.
        var head = HeadBuilder()
        head.set(HeadBuilder.index(ix: 10, iy: 10, size: 0, rot: 0), logits: [logit, -20, -20, -20])
        let out = DetectionDecoder.decode(try head.build(), settings: DecodeSettings(scoreThreshold: threshold))
        #expect(out.count == (kept ? 1 : 0))
    }

    @Test func defaultSettingsAreReferenceOperatingPoint() {
        let s = DecodeSettings()
        #expect(s.scoreThreshold == 0.5)
        #expect(s.nmsRadius == 2.0)
        #expect(s.rejectImplausible == false)
        #expect(s.region == .safety40)
    }

    // MARK: Non-finite inputs

    @Test(arguments: 0..<7)
    func nanBoxCodeIsDropped(channel: Int) throws {
        var head = HeadBuilder()
        var code = [Float](repeating: 0, count: 9)
        code[channel] = .nan
        head.set(HeadBuilder.index(ix: 10, iy: 10, size: 0, rot: 0), logits: [5, -20, -20, -20], code: code)
        // A clean candidate elsewhere proves the decode still runs and nothing NaN leaks out.
        head.set(HeadBuilder.index(ix: 2, iy: 30, size: 1, rot: 0), logits: [4, -20, -20, -20])
        let out = DetectionDecoder.decode(try head.build())
        #expect(out.map(\.candidate) == [HeadBuilder.index(ix: 2, iy: 30, size: 1, rot: 0)])
        #expect(out.allSatisfy { [$0.box.x, $0.box.y, $0.box.z, $0.box.length, $0.box.width, $0.box.height, $0.box.yaw].allSatisfy(\.isFinite) })
    }

    @Test(arguments: [7, 8])
    func unusedVelocityCodesAreNeverRead(channel: Int) throws {
        var head = HeadBuilder()
        var code = [Float](repeating: 0, count: 9)
        code[channel] = .nan
        let n = HeadBuilder.index(ix: 10, iy: 10, size: 0, rot: 0)
        head.set(n, logits: [5, -20, -20, -20], code: code)
        #expect(DetectionDecoder.decode(try head.build()).map(\.candidate) == [n])
    }

    @Test(arguments: [Float(-Float.infinity), -1000])
    func zeroSizeBoxIsDropped(dw: Float) throws {
        // exp(−∞) = 0 and exp(−1000) underflows to 0 in Double: width 0 fails "width > 0".
        var head = HeadBuilder()
        head.set(
            HeadBuilder.index(ix: 10, iy: 10, size: 0, rot: 0), logits: [5, -20, -20, -20],
            code: [0, 0, 0, dw, 0, 0, 0])
        #expect(DetectionDecoder.decode(try head.build()).isEmpty)
    }

    @Test(arguments: 0..<4)
    func nanClassLogitIsDropped(position: Int) throws {
        // Another class has a confident logit; a NaN in any channel still drops the candidate
        // (the reference's torch `max` propagates NaN into the score).
        var logits: [Float] = [-20, -20, -20, -20]
        logits[(position + 1) % 3] = 5
        logits[position] = .nan
        var head = HeadBuilder()
        head.set(HeadBuilder.index(ix: 10, iy: 10, size: 0, rot: 0), logits: logits)
        #expect(DetectionDecoder.decode(try head.build()).isEmpty)
    }

    // MARK: Direction

    @Test func directionTieGivesBinZero() throws {
        let n = HeadBuilder.index(ix: 10, iy: 10, size: 0, rot: 0)
        let code: [Float] = [0, 0, 0, 0, 0, 0, 0.3]
        func yaw(_ direction: [Float]) throws -> Double {
            var head = HeadBuilder()
            head.set(n, logits: [5, -20, -20, -20], code: code, direction: direction)
            return try #require(DetectionDecoder.decode(try head.build()).first).box.yaw
        }
        let bin0 = NaiveDecoder.box(n, code: code.map(Double.init), direction: 0).yaw
        let bin1 = NaiveDecoder.box(n, code: code.map(Double.init), direction: 1).yaw
        #expect(abs(abs(remainder(bin1 - bin0, 2 * .pi)) - .pi) < 1e-12) // the bins differ by π
        #expect(abs(try yaw([0.7, 0.7]) - bin0) < 1e-12)
        #expect(abs(try yaw([-3, -3]) - bin0) < 1e-12)
        #expect(abs(try yaw([0.7, Float(0.7).nextUp]) - bin1) < 1e-12)
        #expect(abs(try yaw([0.7, Float(0.7).nextDown]) - bin0) < 1e-12)
    }

    // MARK: Region and plausibility

    @Test(arguments: [
        // (ix, iy, dx, dy): pushed beyond X = 40, below X = 0, beyond Y = +10, beyond Y = −10.
        (10, 39, Float(0), Float(0.5)), (10, 0, 0, -0.5), (0, 20, -0.5, 0), (20, 20, 0.5, 0),
    ])
    func outsideRegionIsDropped(ix: Int, iy: Int, dx: Float, dy: Float) throws {
        let n = HeadBuilder.index(ix: ix, iy: iy, size: 0, rot: 0)
        let b = NaiveDecoder.box(n, code: [Double(dx), Double(dy), 0, 0, 0, 0, 0], direction: 0)
        try #require(!(b.x >= 0 && b.x <= 40 && b.y >= -10 && b.y <= 10), "case must leave the region")
        var head = HeadBuilder()
        head.set(n, logits: [5, -20, -20, -20], code: [dx, dy, 0, 0, 0, 0, 0])
        #expect(DetectionDecoder.decode(try head.build()).isEmpty)
        // The same box with the region widened is kept.
        let wide = EvaluationRegion(minX: -100, maxX: 100, minY: -100, maxY: 100)
        #expect(DetectionDecoder.decode(try head.build(), settings: DecodeSettings(region: wide)).map(\.candidate) == [n])
    }

    @Test func customRegionRestrictsOutput() throws {
        var head = HeadBuilder()
        let near = HeadBuilder.index(ix: 10, iy: 5, size: 0, rot: 0) // X ≈ 5.9
        let far = HeadBuilder.index(ix: 10, iy: 30, size: 0, rot: 0) // X ≈ 30.6
        head.set(near, logits: [5, -20, -20, -20])
        head.set(far, logits: [4, -20, -20, -20])
        let h = try head.build()
        #expect(DetectionDecoder.decode(h).map(\.candidate) == [near, far])
        let region = EvaluationRegion(minX: 0, maxX: 20, minY: -10, maxY: 10)
        #expect(DetectionDecoder.decode(h, settings: DecodeSettings(region: region)).map(\.candidate) == [near])
    }

    @Test func plausibilityFilterOnOff() throws {
        var head = HeadBuilder()
        // A plausible light vehicle: 4.5 × 1.8 × 1.5 m; centre Z = −1.3 + 1.84 = 0.54, base −0.21.
        let car = HeadBuilder.index(ix: 10, iy: 10, size: 0, rot: 0)
        head.set(
            car, logits: [5, -20, -20, -20],
            code: [0, 0, 0, Float(log(1.8 / 0.866)), Float(log(4.5 / 2.5981)), Float(log(1.5)), 0])
        // The bare 0.4 × 0.4 × 1.0 anchor labelled light vehicle: far too small.
        let tiny = HeadBuilder.index(ix: 3, iy: 30, size: 3, rot: 0)
        head.set(tiny, logits: [4, -20, -20, -20])
        let h = try head.build()
        #expect(DetectionDecoder.decode(h, settings: DecodeSettings(rejectImplausible: false)).map(\.candidate) == [car, tiny])
        let filtered = DetectionDecoder.decode(h, settings: DecodeSettings(rejectImplausible: true))
        #expect(filtered.map(\.candidate) == [car])
        let d = try #require(filtered.first)
        #expect(abs(d.box.length - 4.5) < 1e-5 && abs(d.box.width - 1.8) < 1e-5 && abs(d.box.height - 1.5) < 1e-5)
    }

    // MARK: NMS through the decoder

    @Test func equalScoresKeepCandidateOrder() throws {
        var head = HeadBuilder()
        let a = HeadBuilder.index(ix: 2, iy: 5, size: 0, rot: 0)
        let b = HeadBuilder.index(ix: 15, iy: 20, size: 0, rot: 0)
        let c = HeadBuilder.index(ix: 8, iy: 35, size: 0, rot: 0)
        for n in [c, a, b] { head.set(n, logits: [2, -20, -20, -20]) }
        // Candidate indices 680 (a), 2840 (c), 4960 (b): equal scores come out in index order.
        #expect([a, c, b] == [Int](arrayLiteral: 680, 2840, 4960))
        #expect(DetectionDecoder.decode(try head.build()).map(\.candidate) == [a, c, b])
    }

    @Test func equalScoresInsideRadiusKeepEarlierCandidate() throws {
        // Two anchors of the same cell share a centre (distance 0): the lower index survives.
        var head = HeadBuilder()
        let first = HeadBuilder.index(ix: 10, iy: 10, size: 1, rot: 0)
        let second = HeadBuilder.index(ix: 10, iy: 10, size: 2, rot: 1)
        head.set(second, logits: [-20, 3, -20, -20])
        head.set(first, logits: [3, -20, -20, -20])
        let out = DetectionDecoder.decode(try head.build())
        #expect(out.map(\.candidate) == [first])
        // A higher score on the later one wins instead, across classes.
        head.set(second, logits: [-20, 3.5, -20, -20])
        #expect(DetectionDecoder.decode(try head.build()).map(\.candidate) == [second])
    }

    // MARK: HeadOutputs

    @Test(arguments: [
        ("classes", 6720 * 4 - 1, 6720 * 9, 6720 * 2, 26880),
        ("classes", 6720 * 4 + 4, 6720 * 9, 6720 * 2, 26880),
        ("boxes", 6720 * 4, 6720 * 7, 6720 * 2, 60480),
        ("directions", 6720 * 4, 6720 * 9, 6720, 13440),
        ("classes", 0, 0, 0, 26880),
    ])
    func wrongElementCountNamesTensor(tensor: String, classes: Int, boxes: Int, directions: Int, expected: Int) {
        let actual = ["classes": classes, "boxes": boxes, "directions": directions][tensor]!
        #expect(throws: HeadOutputError.wrongElementCount(tensor: tensor, expected: expected, actual: actual)) {
            _ = try HeadOutputs(
                classes: [Float](repeating: 0, count: classes), boxes: [Float](repeating: 0, count: boxes),
                directions: [Float](repeating: 0, count: directions))
        }
    }

    @Test func rightElementCountsAccepted() throws {
        let h = try HeadBuilder().build()
        #expect(h.classes.count == 26880 && h.boxes.count == 60480 && h.directions.count == 13440)
        #expect(DetectionDecoder.decode(h).isEmpty) // every logit −20: nothing passes 0.5
    }

    @Test func errorDescriptionNamesTensor() {
        let e = HeadOutputError.wrongElementCount(tensor: "boxes", expected: 60480, actual: 7)
        #expect(e.description == "head tensor 'boxes' has 7 elements, expected 60480")
    }
}
