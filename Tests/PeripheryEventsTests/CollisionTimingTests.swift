import Foundation
import Testing

@testable import PeripheryEvents

/// Time to collision and headway against the closed forms of constant speed and constant
/// acceleration, solved by hand.
struct CollisionTimingTests {
    @Test func constantSpeedIsRangeOverSpeed() {
        #expect(CollisionTiming.timeToCollision(range: 30, closingSpeed: 12) == 2.5)
        #expect(CollisionTiming.timeToCollision(range: 30, closingSpeed: 12, closingAcceleration: 0) == 2.5)
    }

    @Test func neverClosingHasNone() {
        #expect(CollisionTiming.timeToCollision(range: 30, closingSpeed: 0) == nil)
        #expect(CollisionTiming.timeToCollision(range: 30, closingSpeed: -3) == nil)
        // Opening and opening faster.
        #expect(CollisionTiming.timeToCollision(range: 30, closingSpeed: -3, closingAcceleration: -1) == nil)
        // Closing at 5 m/s but slowing by 1 m/s²: the closing stops after 12.5 m, short of 20 m.
        #expect(CollisionTiming.timeToCollision(range: 20, closingSpeed: 5, closingAcceleration: -1) == nil)
    }

    @Test func constantDecelerationOfTheClosing() throws {
        // 20 − 10t + t² = 0 (a = −2): t = 5 − √5.
        let t = try #require(CollisionTiming.timeToCollision(range: 20, closingSpeed: 10, closingAcceleration: -2))
        #expect(abs(t - (5 - 5.0.squareRoot())) <= 1e-12)
    }

    @Test func leadBrakingFromEqualSpeed() throws {
        // NHTSA's LVD at the lead's brake onset: no closing yet, a = 0.3 g, 30 m: t = √(2R/a).
        let t = try #require(CollisionTiming.timeToCollision(range: 30, closingSpeed: 0, closingAcceleration: 2.94))
        #expect(abs(t - (60 / 2.94).squareRoot()) <= 1e-12)
    }

    @Test func openingThenClosingUnderAcceleration() throws {
        // 10 + 2t − t² = 0 (v = −2, a = 2): t = 1 + √11.
        let t = try #require(CollisionTiming.timeToCollision(range: 10, closingSpeed: -2, closingAcceleration: 2))
        #expect(abs(t - (1 + 11.0.squareRoot())) <= 1e-12)
    }

    @Test func closedOrInvalidRanges() {
        #expect(CollisionTiming.timeToCollision(range: 0, closingSpeed: 5) == 0)
        #expect(CollisionTiming.timeToCollision(range: -1, closingSpeed: 5) == 0)
        #expect(CollisionTiming.timeToCollision(range: .nan, closingSpeed: 5) == nil)
        #expect(CollisionTiming.timeToCollision(range: 10, closingSpeed: .infinity) == nil)
        #expect(CollisionTiming.timeToCollision(range: 10, closingSpeed: 5, closingAcceleration: .nan) == nil)
    }

    @Test func headwayIsRangeOverEgoSpeedAboveTheMinimum() {
        #expect(CollisionTiming.headway(range: 30, egoSpeed: 20, minimumSpeed: 1) == 1.5)
        #expect(CollisionTiming.headway(range: 30, egoSpeed: 0.9, minimumSpeed: 1) == nil)
        #expect(CollisionTiming.headway(range: 30, egoSpeed: 0, minimumSpeed: 0) == nil)
        #expect(CollisionTiming.headway(range: 30, egoSpeed: .nan, minimumSpeed: 1) == nil)
    }
}
