import PeripheryTestSupport
import Testing

@testable import PeripheryCore

/// Circular NMS of reference, `docs/reference/contract.md#3-decode` step 9.
struct CircularNMSTests {
    static func det(_ x: Double, _ y: Double, score: Float, label: Int = 0, candidate: Int) -> Detection {
        Detection(
            score: score, label: label, box: VehicleBox(x: x, y: y, z: 0.5, length: 4, width: 1.8, height: 1.5, yaw: 0),
            candidate: candidate)
    }

    @Test func outputInDescendingScore() {
        let input = [
            Self.det(5, 0, score: 0.6, candidate: 0), Self.det(15, 0, score: 0.9, candidate: 1),
            Self.det(25, 0, score: 0.7, candidate: 2),
        ]
        #expect(CircularNMS.suppress(input, radius: 2).map(\.candidate) == [1, 2, 0])
    }

    @Test func equalScoresKeepInputOrder() {
        let input = (0..<6).map { Self.det(Double($0) * 5, 0, score: 0.75, candidate: 10 - $0) }
        #expect(CircularNMS.suppress(input, radius: 2).map(\.candidate) == [10, 9, 8, 7, 6, 5])
    }

    @Test func equalScoresWithinRadiusFirstInputWins() {
        let a = Self.det(10, 0, score: 0.8, candidate: 7), b = Self.det(11, 0, score: 0.8, candidate: 3)
        #expect(CircularNMS.suppress([a, b], radius: 2).map(\.candidate) == [7])
        #expect(CircularNMS.suppress([b, a], radius: 2).map(\.candidate) == [3])
    }

    /// dx² + dy² < r² is strict: exactly at the radius survives, the next double inside does not.
    @Test(arguments: [
        (12.0, 0.0, true), (10.0, 2.0, true), (8.0, 0.0, true), (10.0, -2.0, true),
        (12.0.nextDown, 0.0, false), (10.0, 2.0.nextDown, false), (8.0.nextUp, 0.0, false),
        (11.0, 1.0, false), (13.0, 0.0, true),
    ])
    func radiusBoundary(x: Double, y: Double, survives: Bool) {
        let keeper = Self.det(10, 0, score: 0.9, candidate: 0)
        let other = Self.det(x, y, score: 0.5, candidate: 1)
        // Independent check of the premise: compare the squared distance with 4 directly.
        let d2 = (x - 10) * (x - 10) + y * y
        #expect((d2 >= 4) == survives)
        #expect(CircularNMS.suppress([keeper, other], radius: 2).count == (survives ? 2 : 1))
    }

    @Test func suppressesAcrossClasses() {
        let car = Self.det(10, 0, score: 0.9, label: 0, candidate: 0)
        let bike = Self.det(10.5, 0.5, score: 0.8, label: 2, candidate: 1)
        #expect(CircularNMS.suppress([bike, car], radius: 2).map(\.candidate) == [0])
    }

    @Test func greedyNotTransitive() {
        // A suppresses B (1.5 m); B would suppress C (1.5 m) but is gone; C is 3 m from A: kept.
        let a = Self.det(10, 0, score: 0.9, candidate: 0)
        let b = Self.det(11.5, 0, score: 0.8, candidate: 1)
        let c = Self.det(13, 0, score: 0.7, candidate: 2)
        #expect(CircularNMS.suppress([c, b, a], radius: 2).map(\.candidate) == [0, 2])
    }

    @Test func suppressionUsesBEVCentreOnly() {
        // Same (x, y), very different z and size: still suppressed.
        var low = Self.det(20, 3, score: 0.9, candidate: 0)
        var high = Self.det(20, 3, score: 0.6, candidate: 1)
        low.box.z = -1
        high.box.z = 5
        high.box.length = 12
        #expect(CircularNMS.suppress([low, high], radius: 2).map(\.candidate) == [0])
    }

    @Test func emptyAndZeroRadius() {
        #expect(CircularNMS.suppress([], radius: 2).isEmpty)
        let same = [Self.det(10, 0, score: 0.5, candidate: 0), Self.det(10, 0, score: 0.6, candidate: 1)]
        // Radius 0: nothing is strictly closer than 0, so both survive, sorted by score.
        #expect(CircularNMS.suppress(same, radius: 0).map(\.candidate) == [1, 0])
    }

    @Test func matchesNaiveOnRandomClusters() {
        var rng = SeededRandom(seed: 7)
        var input: [Detection] = []
        for i in 0..<400 {
            // Scores from a coarse grid to create many ties.
            let score = Float(Int(rng.uniform(0, 20))) / 20
            input.append(Self.det(rng.uniform(0, 40), rng.uniform(-10, 10), score: score, candidate: i))
        }
        let boxes = input.map {
            NaiveDecoder.Box(
                candidate: $0.candidate, score: $0.score, label: 0, x: $0.box.x, y: $0.box.y, z: 0,
                length: 4, width: 1.8, height: 1.5, yaw: 0)
        }
        let expected = NaiveDecoder.nms(boxes, radius: 2).map(\.candidate)
        #expect(CircularNMS.suppress(input, radius: 2).map(\.candidate) == expected)
        #expect(expected.count > 50 && expected.count < 400)
    }

    /// The in-place heapsort against the standard library's sort, on random keys with many ties.
    @Test(arguments: [0, 1, 2, 3, 17, 256, 1001])
    func heapSortMatchesTheStandardSort(count: Int) {
        var rng = SeededRandom(seed: UInt64(count) + 11)
        let keys = (0..<count).map { _ in Int(rng.uniform(0, 9)) }
        let before = { (a: Int, b: Int) in keys[a] != keys[b] ? keys[a] > keys[b] : a < b }
        var order = Array(0..<count)
        order.withUnsafeMutableBufferPointer { CircularNMS.heapSort($0, by: before) }
        #expect(order == (0..<count).sorted(by: before))
    }

    /// NaN scores rank after every number and keep their input order among themselves.
    @Test func nanScoresRankLast() {
        let input = [
            Self.det(0, 0, score: .nan, candidate: 0), Self.det(10, 0, score: 0.2, candidate: 1),
            Self.det(20, 0, score: .nan, candidate: 2), Self.det(30, 0, score: 0.9, candidate: 3),
        ]
        #expect(CircularNMS.suppress(input, radius: 2).map(\.candidate) == [3, 1, 0, 2])
    }

    /// Reused scratch and output give the same keepers as fresh ones, frame after frame.
    @Test func reusedScratchGivesTheSameKeepers() {
        var rng = SeededRandom(seed: 99)
        var order: [Int] = [], suppressed: [Bool] = [], kept: [Detection] = []
        for frame in 0..<6 {
            let input = (0..<(frame * 37 % 150)).map { i in
                Self.det(rng.uniform(0, 40), rng.uniform(-10, 10), score: Float(Int(rng.uniform(0, 10))) / 10, candidate: i)
            }
            CircularNMS.suppress(input, radius: 2, order: &order, suppressed: &suppressed, into: &kept)
            #expect(kept.map(\.candidate) == CircularNMS.suppress(input, radius: 2).map(\.candidate))
        }
    }
}
