import PeripheryCore
import PeripheryGeometry

extension RealFrame {
    /// The range, metres, within which a labelled vehicle counts (its contact point's `hypot(x, y)`).
    public static let maxRange = 40.0

    /// Whether a labelled vehicle counts: not don't care, its contact point within `maxRange` and
    /// inside the detector's grid (`EvaluationRegion.safety40`), and at most half its box outside the
    /// detector's view, the focal-matched crop (`LabelledFrame.maximumViewTruncation`).
    public func counts(_ vehicle: RealFrameVehicle, calibration: CameraCalibration) -> Bool {
        guard !vehicle.dontCare, let contact = vehicle.contact,
            (contact * contact).sum().squareRoot() <= Self.maxRange, EvaluationRegion.safety40.contains(x: contact.x, y: contact.y)
        else { return false }
        return ImageRectangle.fractionOutside(vehicle.box, calibration.crop.rectangle) <= LabelledFrame.maximumViewTruncation
    }

    /// The labels as `ImageBoxMatcher` truths.
    public func truth(calibration: CameraCalibration) -> [ImageBoxTruth] {
        vehicles.map { ImageBoxTruth(rectangle: $0.box, counts: counts($0, calibration: calibration)) }
    }

    /// Detections as `ImageBoxMatcher` candidates: the bounding rectangle of each box's 8 projected
    /// corners, clipped to the frame (empty when the box is entirely behind the camera or off the
    /// frame); a detection whose centre is beyond `maxRange` is out of range.
    public func candidates(_ detections: [Detection], calibration: CameraCalibration) -> [ImageBoxCandidate] {
        let width = Double(setup.intrinsics.width), height = Double(setup.intrinsics.height)
        return detections.map { detection in
            var r = calibration.projectedRectangle(detection.box) ?? .zero
            r = SIMD4(min(max(r.x, 0), width), min(max(r.y, 0), height), min(max(r.z, 0), width), min(max(r.w, 0), height))
            let b = detection.box
            return ImageBoxCandidate(rectangle: r, score: detection.score, inRange: (b.x * b.x + b.y * b.y).squareRoot() <= Self.maxRange)
        }
    }
}
