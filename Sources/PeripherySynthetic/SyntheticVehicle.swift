import Foundation
import PeripheryCore
import PeripheryGeometry

/// One vehicle of a synthetic scene: its labelled 3-D box and the few boxes it is drawn with.
///
/// Every part lies inside the labelled box, which stands on the road plane (z = 0).
public struct SyntheticVehicle: Sendable, Hashable {
    /// The class of the vehicle (light, large or two-wheeler).
    public var vehicleClass: VehicleClass
    /// Forward position of the footprint centre.
    public var x: Double
    /// Lateral position of the footprint centre (positive left).
    public var y: Double
    /// Heading, radians counter-clockwise from vehicle x.
    public var yaw: Double
    /// Length, width and height of the labelled box.
    public var size: SIMD3<Double>
    /// Whether the vehicle is parked at the kerb rather than driving in a lane.
    public var isParked: Bool
    /// The boxes the vehicle is drawn with.
    public var parts: [SyntheticBox]

    /// Builds a vehicle and its parts from its class, pose, size and paint colour.
    ///
    /// `variant` in 0…1 picks the body style (for example hatchback, saloon or van for a light
    /// vehicle; lorry or bus for a large one). `bodyMaterial` is the main body's (the structured
    /// world paints lamps and plates on it).
    public init(
        vehicleClass: VehicleClass, x: Double, y: Double, yaw: Double, size: SIMD3<Double>,
        paint: SIMD3<Double>, variant: Double = 0.5, isParked: Bool = false, bodyMaterial: SurfaceMaterial = .plain
    ) {
        self.vehicleClass = vehicleClass
        self.x = x
        self.y = y
        self.yaw = yaw
        self.size = size
        self.isParked = isParked
        parts = SyntheticVehicle.buildParts(
            vehicleClass, x: x, y: y, yaw: yaw, size: size, paint: paint, variant: variant, bodyMaterial: bodyMaterial)
    }

    /// The labelled box (centre z = height / 2, on the road plane).
    public var bounds: SyntheticBox {
        SyntheticBox(centre: SIMD3(x, y, size.z / 2), size: size, yaw: yaw, colour: .zero)
    }

    /// The ground-truth label of this vehicle.
    public var groundTruth: GroundTruthBox {
        GroundTruthBox(
            label: vehicleClass.rawValue,
            box: VehicleBox(x: x, y: y, z: size.z / 2, length: size.x, width: size.y, height: size.z, yaw: yaw))
    }

    /// The four footprint corners on the road, counter-clockwise.
    public var footprint: [SIMD2<Double>] {
        let c = cos(yaw), s = sin(yaw), hl = size.x / 2, hw = size.y / 2
        return [(hl, hw), (-hl, hw), (-hl, -hw), (hl, -hw)].map { l in
            SIMD2(x + c * l.0 - s * l.1, y + s * l.0 + c * l.1)
        }
    }

    static let rubber = SIMD3<Double>(0.06, 0.06, 0.065)
    static let trim = SIMD3<Double>(0.12, 0.12, 0.13)

    /// The parts of a vehicle; each part is given in the vehicle's own frame as (forward offset,
    /// lateral offset, bottom, top, length, width).
    static func buildParts(
        _ kind: VehicleClass, x: Double, y: Double, yaw: Double, size: SIMD3<Double>,
        paint: SIMD3<Double>, variant: Double, bodyMaterial: SurfaceMaterial = .plain
    ) -> [SyntheticBox] {
        let c = cos(yaw), s = sin(yaw)
        let l = size.x, w = size.y, h = size.z
        func part(
            _ dx: Double, _ dy: Double, _ z0: Double, _ z1: Double, _ pl: Double, _ pw: Double,
            _ colour: SIMD3<Double>, glass: ClosedRange<Double>? = nil, rubber: Bool = false, material: SurfaceMaterial = .plain
        ) -> SyntheticBox {
            SyntheticBox(
                centre: SIMD3(x + c * dx - s * dy, y + s * dx + c * dy, (z0 + z1) / 2),
                size: SIMD3(pl, pw, z1 - z0), yaw: yaw, colour: colour, glassBand: glass, isRubber: rubber, material: material)
        }
        var boxes: [SyntheticBox] = []
        switch kind {
        case .lightVehicle, .pedestrian:
            let r = min(0.36, 0.2 * h)
            for sx in [-1.0, 1.0] {
                for sy in [-1.0, 1.0] {
                    boxes.append(part(sx * (l / 2 - 0.8), sy * (w / 2 - 0.14), 0, 2 * r, 2 * r, 0.26, rubber, rubber: true))
                }
            }
            let beltline = 0.55 * h
            // Van (long cabin), saloon or hatchback (shorter, further back).
            let cabinLength = variant > 0.75 ? 0.85 * l : (0.5 + 0.15 * variant) * l
            let cabinOffset = variant > 0.75 ? -0.05 * l : -0.08 * l
            if bodyMaterial == .plain {
                boxes.append(part(0, 0, 0.55 * r, beltline, l, w, paint))
            } else {
                // Bumpers stand out of the body's ends and mirrors out of the cabin's sides.
                boxes.append(part(0, 0, 0.55 * r, beltline, l - 0.14, w, paint, material: bodyMaterial))
                let bumper = variant < 0.5 ? trim : paint * 0.9
                for sx in [-1.0, 1.0] {
                    boxes.append(part(sx * (l / 2 - 0.07), 0, 0.55 * r, 0.55 * r + 0.3, 0.14, w - 0.1, bumper))
                    boxes.append(part(cabinOffset + cabinLength / 2 - 0.15, sx * (w / 2 - 0.06), beltline + 0.02, beltline + 0.15, 0.12, 0.12, paint))
                }
            }
            boxes.append(
                part(
                    cabinOffset, 0, beltline, h, cabinLength, 0.9 * w, paint,
                    glass: (beltline + 0.06 * h)...(h - 0.06 * h)))
        case .largeVehicle:
            let r = 0.5
            let axles = l > 10 ? [-(l / 2 - 1.6), -(l / 2 - 3.0), l / 2 - 1.8] : [-(l / 2 - 1.5), l / 2 - 1.6]
            for ax in axles {
                for sy in [-1.0, 1.0] {
                    boxes.append(part(ax, sy * (w / 2 - 0.25), 0, 2 * r, 2 * r, 0.5, rubber, rubber: true))
                }
            }
            if variant > 0.6 {
                // Bus: one body with a long window band.
                boxes.append(part(0, 0, 0.45, h, l, w, paint, glass: (0.55 * h)...(0.85 * h), material: bodyMaterial))
            } else {
                let cab = 2.3
                boxes.append(part(l / 2 - cab / 2, 0, 0.45, 0.8 * h, cab, w, paint, glass: (0.5 * h)...(0.75 * h), material: bodyMaterial))
                let cargoColour = variant > 0.3 ? SIMD3<Double>(0.85, 0.85, 0.83) : paint * 0.8
                boxes.append(part(-cab / 2 - 0.1, 0, 0.9, h, l - cab - 0.2, w, cargoColour))
                boxes.append(part(-cab / 2, 0, 0.45, 0.9, l - cab, 0.6 * w, trim))
            }
        case .twoWheeler:
            let r = min(0.32, l / 4)
            for sx in [-1.0, 1.0] {
                boxes.append(part(sx * (l / 2 - r), 0, 0, 2 * r, 2 * r, 0.1, rubber, rubber: true))
            }
            boxes.append(part(0, 0, 0.3, 0.8, 0.6 * l, 0.3, paint))
            boxes.append(part(l / 2 - 0.55, 0, 0.95, 1.05, 0.08, w, trim))
            let jacket = SIMD3<Double>(0.2 + 0.5 * variant, 0.2, 0.25 + 0.3 * (1 - variant))
            boxes.append(part(-0.1, 0, 0.45, 0.85, 0.5, min(0.4, w), SIMD3(0.1, 0.1, 0.18)))
            boxes.append(part(-0.05, 0, 0.85, h - 0.25, 0.35, min(0.46, w), jacket))
            boxes.append(part(0, 0, h - 0.25, h, 0.26, 0.24, SIMD3(0.15, 0.15, 0.16)))
        }
        return boxes
    }
}
