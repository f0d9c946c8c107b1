import PeripheryTestSupport
import Testing

@testable import PeripheryCore
@testable import PeripheryGeometry

/// When the calibration and LUT are rebuilt (reference, `docs/reference/contract.md#47-when-to-rebuild`): |Δangle| > 0.0005 rad,
/// |Δheight| > 0.005 m, fx changed, or width changed; not for forwardOfOrigin, cx or cy alone.
struct RebuildPolicyTests {
    static func base() throws -> CameraSetup {
        CameraSetup(intrinsics: try commaIntrinsics(), pose: .fallback)
    }

    @Test func thresholds() {
        #expect(RebuildPolicy.angleThreshold == 0.0005)
        #expect(RebuildPolicy.distanceThreshold == 0.005)
    }

    @Test func identicalSetupDoesNotRebuild() throws {
        #expect(!RebuildPolicy.needsRebuild(old: try Self.base(), new: try Self.base()))
    }

    enum Trigger: String, CaseIterable, Sendable { case pitch, roll, yaw, height, lateral }

    /// Each pose trigger 1 % above and 1 % below its threshold, in both directions.
    @Test(arguments: Trigger.allCases, [1.01, 0.99, -1.01, -0.99])
    func poseTrigger(trigger: Trigger, factor: Double) throws {
        let old = try Self.base()
        var new = old
        switch trigger {
        case .pitch: new.pose.pitch += 0.0005 * factor
        case .roll: new.pose.roll += 0.0005 * factor
        case .yaw: new.pose.yaw += 0.0005 * factor
        case .height: new.pose.height += 0.005 * factor
        case .lateral: new.pose.lateralOffset += 0.005 * factor
        }
        #expect(RebuildPolicy.needsRebuild(old: old, new: new) == (abs(factor) > 1))
    }

    @Test func anyFocalChangeRebuilds() throws {
        let old = try Self.base()
        let k = old.intrinsics
        for fx in [k.fx.nextUp, k.fx.nextDown, 911] {
            let new = CameraSetup(
                intrinsics: try CameraIntrinsics(fx: fx, fy: k.fy, cx: k.cx, cy: k.cy, width: k.width, height: k.height),
                pose: old.pose)
            #expect(RebuildPolicy.needsRebuild(old: old, new: new), "fx \(fx)")
        }
    }

    @Test func widthChangeRebuilds() throws {
        let old = try Self.base()
        let k = old.intrinsics
        let new = CameraSetup(
            intrinsics: try CameraIntrinsics(fx: k.fx, fy: k.fy, cx: k.cx, cy: k.cy, width: k.width + 1, height: k.height),
            pose: old.pose)
        #expect(RebuildPolicy.needsRebuild(old: old, new: new))
    }

    @Test func forwardOfOriginAloneDoesNotRebuild() throws {
        let old = try Self.base()
        var new = old
        new.pose.forwardOfOrigin = 3.5
        #expect(!RebuildPolicy.needsRebuild(old: old, new: new))
    }

    @Test(arguments: [(40.0, 0.0), (0.0, -30.0), (-100.0, 100.0)])
    func principalPointAloneDoesNotRebuild(dcx: Double, dcy: Double) throws {
        let old = try Self.base()
        let k = old.intrinsics
        let new = CameraSetup(
            intrinsics: try CameraIntrinsics(fx: k.fx, fy: k.fy, cx: k.cx + dcx, cy: k.cy + dcy, width: k.width, height: k.height),
            pose: old.pose)
        #expect(!RebuildPolicy.needsRebuild(old: old, new: new))
    }

    @Test func smallChangesTogetherStillBelowThresholds() throws {
        // Every quantity moved just under its threshold, plus forward, cx and cy: no rebuild.
        let old = try Self.base()
        let k = old.intrinsics
        var pose = old.pose
        pose.pitch += 0.00049
        pose.roll -= 0.00049
        pose.yaw += 0.00049
        pose.height -= 0.0049
        pose.forwardOfOrigin += 1
        let new = CameraSetup(
            intrinsics: try CameraIntrinsics(fx: k.fx, fy: k.fy, cx: k.cx + 3, cy: k.cy - 3, width: k.width, height: k.height),
            pose: pose)
        #expect(!RebuildPolicy.needsRebuild(old: old, new: new))
    }
}
