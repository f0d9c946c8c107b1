import Foundation
import Testing

@testable import PeripheryCore

/// `EgoDelta.arc`, the constant-twist ego step of reference, `docs/reference/contract.md#86-ego-motion`.
struct EgoDeltaTests {
    @Test func straightLineSelfCheck() {
        let d = EgoDelta.arc(speed: 10, yawRate: 0, dt: 0.1)
        #expect(abs(d.dx - 1) <= 1e-12)
        #expect(d.dy == 0)
        #expect(d.dyaw == 0)
        #expect(d.dt == 0.1)
        #expect(d.valid)
    }

    @Test func turningSelfCheck() {
        let d = EgoDelta.arc(speed: 12, yawRate: 0.2, dt: 0.5)
        #expect(abs(d.dx - 12 * sin(0.1) / 0.2) <= 1e-12)
        #expect(abs(d.dy - 12 * (1 - cos(0.1)) / 0.2) <= 1e-12)
        #expect(abs(d.dyaw - 0.1) <= 1e-12)
        #expect(d.dt == 0.5)
    }

    @Test func arcIsAChordOfTheTurningCircle() {
        // The chord of a circle of radius v/ω over angle ωdt has length 2(v/ω)·sin(ωdt/2), and a
        // right turn mirrors a left one.
        let v = 15.0, w = -0.3, dt = 0.1
        let d = EgoDelta.arc(speed: v, yawRate: w, dt: dt)
        let chord = 2 * (v / abs(w)) * sin(abs(w) * dt / 2)
        #expect(abs(hypot(d.dx, d.dy) - chord) <= 1e-12)
        #expect(d.dy < 0)
        let left = EgoDelta.arc(speed: v, yawRate: -w, dt: dt)
        #expect(abs(left.dx - d.dx) <= 1e-15 && abs(left.dy + d.dy) <= 1e-15)
    }

    @Test func tinyYawRateIsStraightButKeepsItsHeadingChange() {
        let d = EgoDelta.arc(speed: 10, yawRate: 5e-7, dt: 0.1)
        #expect(d.dx == 10 * 0.1)
        #expect(d.dy == 0)
        #expect(d.dyaw == 5e-8)
        // Just above the threshold the arc formula is used and agrees to first order.
        let e = EgoDelta.arc(speed: 10, yawRate: 2e-6, dt: 0.1)
        #expect(abs(e.dx - 1) <= 1e-12 && abs(e.dy) <= 1e-6)
    }
}
