import PeripheryGeometry

/// One frame of the real-frame set: where its picture is, its camera and its hand-made labels.
public struct RealFrame: Sendable {
    /// The labels file's name without `.json` (`A-udacity-test1`).
    public var name: String
    /// The camera's calibration file name without `.json` (`A`): the group the figures are given by.
    public var camera: String
    /// Path of the picture.
    public var imagePath: String
    /// The camera and its mount.
    public var setup: CameraSetup
    /// Every labelled vehicle, in file order.
    public var vehicles: [RealFrameVehicle]

    /// Creates a frame from its parts.
    public init(name: String, camera: String, imagePath: String, setup: CameraSetup, vehicles: [RealFrameVehicle]) {
        self.name = name
        self.camera = camera
        self.imagePath = imagePath
        self.setup = setup
        self.vehicles = vehicles
    }
}
