/// The four classes of the Safety40 head, in channel order.
public enum VehicleClass: Int, Sendable, CaseIterable, Hashable, Codable {
    /// Cars, SUVs, vans.
    case lightVehicle = 0
    /// Trucks and buses.
    case largeVehicle = 1
    /// Bicycles and motorcycles with riders.
    case twoWheeler = 2
    /// Pedestrians; the head for this class is frozen and untrained, so it is never reported.
    case pedestrian = 3

    /// The reference's class name (`INTERNAL_CLASSES`).
    public var name: String {
        switch self {
        case .lightVehicle: "light_vehicle"
        case .largeVehicle: "large_vehicle"
        case .twoWheeler: "two_wheeler"
        case .pedestrian: "pedestrian"
        }
    }

    /// Whether the operating point counts this class (labels 0, 1 and 2).
    public var isVehicle: Bool { self != .pedestrian }

    /// The labels the operating point counts.
    static let vehicleLabels: Set<Int> = [0, 1, 2]
}
