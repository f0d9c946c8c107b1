import Foundation
import PeripheryCore

extension CameraCalibration {
    /// The 2-D bounding rectangle of a box's projection into the source image, clipped to the part
    /// in front of the camera (`ImageRectangle.bounding`); `nil` when it is entirely behind.
    public func projectedRectangle(_ box: VehicleBox) -> SIMD4<Double>? {
        let c = cos(box.yaw), s = sin(box.yaw)
        return ImageRectangle.bounding(
            homogeneousCorners: (0..<8).map { corner in
                let l = (corner & 1 == 0 ? 0.5 : -0.5) * box.length, w = (corner & 2 == 0 ? 0.5 : -0.5) * box.width
                let z = box.z + (corner & 4 == 0 ? 0.5 : -0.5) * box.height
                return sourceCamera * (SIMD3(box.x + c * l - s * w, box.y + s * l + c * w, z) - setup.pose.cameraCentre)
            })
    }

    /// Fraction of a box's projected rectangle outside the detector's view, the focal-matched
    /// crop (1 when the box is entirely behind the camera).
    public func viewTruncation(_ box: VehicleBox) -> Double {
        ImageRectangle.fractionOutside(projectedRectangle(box), crop.rectangle)
    }
}

extension FocalMatchedCrop {
    /// The crop in source pixels, as an `ImageRectangle`.
    public var rectangle: SIMD4<Double> { SIMD4(Double(x), Double(y), Double(x + width), Double(y + height)) }
}
