import Foundation
import PeripheryCore
import Testing

@testable import PeripheryEvents

/// Range from the bumper, the ego's motion and the predicted path against hand-computed values.
struct GeometryTests {
    @Test(arguments: [0.0, 0.3, Double.pi / 2, -2.5, Double.pi])
    func bumperRangeIsTheNearestCornerLessTheBumper(yaw: Double) {
        let box = VehicleBox(x: 20, y: -1.5, z: 0.8, length: 4.6, width: 1.9, height: 1.5, yaw: yaw)
        // The four corners, each rotated and moved by hand.
        let corners = [(2.3, 0.95), (2.3, -0.95), (-2.3, -0.95), (-2.3, 0.95)].map { lx, ly in
            box.x + lx * cos(yaw) - ly * sin(yaw)
        }
        let expected = (corners.min() ?? .nan) - 3.7
        #expect(abs(box.bumperRange(egoFront: 3.7) - expected) <= 1e-12)
    }

    @Test func bumperRangeOfACarStraightAhead() {
        // A 4.5 m car centred 40 m ahead: its rear is at 37.75 m, 34.05 m from the bumper.
        let box = VehicleBox(x: 40, y: 0, z: 0.8, length: 4.5, width: 1.8, height: 1.5, yaw: 0)
        #expect(abs(box.bumperRange(egoFront: 3.7) - 34.05) <= 1e-12)
    }

    @Test func egoMotionIsForwardSpeedAndYawRateOfTheStep() throws {
        let motion = try #require(EgoMotion(EgoDelta(dx: 2, dy: 0.05, dyaw: 0.01, dt: 0.1)))
        #expect(abs(motion.speed - 20) <= 1e-12)
        #expect(abs(motion.yawRate - 0.1) <= 1e-12)
        #expect(EgoMotion(EgoDelta(dx: 2, dt: 0.1, valid: false)) == nil)
        #expect(EgoMotion(EgoDelta(dx: 2, dt: 0)) == nil)
        #expect(EgoMotion(EgoDelta(dx: .nan, dt: 0.1)) == nil)
    }

    @Test func straightPathOffsetIsLateralPosition() {
        let path = PredictedPath(ego: EgoMotion(speed: 20, yawRate: 0), minimumMovingSpeed: 1)
        #expect(path.curvature == 0)
        #expect(path.lateralOffset(x: 30, y: -1.2) == -1.2)
    }

    @Test func curvedPathBendsTheCorridor() {
        // 20 m/s at 0.1 rad/s: κ = 0.005 /m; the arc is at y = κx²/2 = 1.0 m at 20 m, 4.0 m at 40 m.
        let path = PredictedPath(ego: EgoMotion(speed: 20, yawRate: 0.1), minimumMovingSpeed: 1)
        #expect(abs(path.curvature - 0.005) <= 1e-15)
        #expect(abs(path.lateralOffset(x: 20, y: 1.0)) <= 1e-12)
        #expect(abs(path.lateralOffset(x: 40, y: 0) + 4.0) <= 1e-12)
        #expect(abs(path.lateralOffset(x: 40, y: 4.0)) <= 1e-12)
    }

    @Test func pathIsStraightWhenStoppedOrUnknown() {
        #expect(PredictedPath(ego: EgoMotion(speed: 0.5, yawRate: 0.3), minimumMovingSpeed: 1) == .straight)
        #expect(PredictedPath(ego: nil, minimumMovingSpeed: 1) == .straight)
    }

    @Test func inPathFollowsTheCurveAndTheLimits() {
        var detector = SafetyEventDetector()
        // On a left curve (κ = 0.005): track 1 on the arc at 36.3 m ahead (x = 40, y = 4) is in
        // path, track 2 straight ahead at the same x is 4 m right of the arc, track 3 is behind
        // the bumper, track 4 beyond 60 m, track 5 on the arc at x = 20.
        let tracks = [
            EventScene.vehicle(1, range: 40 - 2 - 3.7, y: 4.0), EventScene.vehicle(2, range: 40 - 2 - 3.7, y: 0),
            EventScene.vehicle(3, range: -1, y: 0), EventScene.vehicle(4, range: 61, y: 0.005 * 66.7 * 66.7 / 2),
            EventScene.vehicle(5, range: 20 - 2 - 3.7, y: 1.0),
        ]
        let assessment = detector.update(timestamp: 0, ego: EventScene.ego(speed: 20, yawRate: 0.1), tracks: tracks)
        #expect(assessment.inPathTracks == [5, 1])
        #expect(assessment.lead?.track == 5)
        #expect(abs((assessment.lead?.range ?? .nan) - 14.3) <= 1e-9)
        #expect(abs(assessment.lead?.lateralOffset ?? .nan) <= 1e-12)
        // Headway: 14.3 m at 20 m/s.
        #expect(abs((assessment.lead?.headway ?? .nan) - 0.715) <= 1e-12)
    }
}
