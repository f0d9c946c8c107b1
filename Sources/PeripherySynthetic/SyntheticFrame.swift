import PeripheryCore
import PeripheryGeometry

/// A rendered synthetic camera frame with its vehicle id buffer and labels.
public struct SyntheticFrame: Sendable, Hashable {
    /// The camera picture.
    public var image: RGBImage
    /// Per pixel (row-major), the index in `SyntheticScene.vehicles` of the vehicle seen there,
    /// or −1 where no vehicle is seen.
    public var vehicleIDs: [Int32]
    /// One label per scene vehicle, in scene order.
    public var labels: [SyntheticLabel]

    /// The vehicle index at column `x`, row `y`, or −1.
    func vehicleID(x: Int, y: Int) -> Int32 { vehicleIDs[y * image.width + x] }

    /// Labels of the vehicles with at least the renderer's minimum number of visible pixels.
    public var visibleLabels: [SyntheticLabel] { labels.filter(\.isVisible) }
}

/// The label of one scene vehicle in one frame.
public struct SyntheticLabel: Sendable, Hashable {
    /// Index in `SyntheticScene.vehicles`.
    public var vehicleIndex: Int
    /// The 3-D box, vehicle frame, centre z = height / 2 for vehicles on the road.
    public var box: GroundTruthBox
    /// Pixels of the frame where this vehicle is the nearest surface.
    public var visiblePixels: Int
    /// Pixels of the frame the vehicle would cover with nothing else in the scene.
    public var unoccludedPixels: Int
    /// `1 − visiblePixels / unoccludedPixels` (0 when the vehicle covers no pixel of the frame).
    public var occlusion: Double
    /// Fraction of the projected 3-D box's 2-D bounding rectangle outside the frame (1 when the box
    /// is entirely behind the camera).
    public var truncation: Double
    /// Whether `visiblePixels` reaches the renderer's minimum.
    public var isVisible: Bool
    /// Visible pixels inside the detector's view: the focal-matched crop of the frame
    /// (`FocalMatchedCrop`), the only part of the frame the network is given.
    public var viewPixels: Int
    /// Fraction of the projected 3-D box's 2-D bounding rectangle outside the detector's view.
    public var viewTruncation: Double
    /// Whether the detector can be asked to find the vehicle: `viewPixels` reaches the renderer's
    /// minimum and at most half of the vehicle's projection is outside the view (KITTI ignores
    /// objects truncated by more than 50 %). A visible vehicle not in view is labelled but does not
    /// count as one the detector should find (evaluation treats it as "don't care").
    public var isInView: Bool
}
