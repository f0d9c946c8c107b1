import Foundation

/// Builders of the structured world's roadside objects, each from boxes of the material it is made
/// of. None of them is a vehicle, none is labelled: they are what a detector must learn not to call
/// a vehicle.
///
/// Lateral positions are vehicle-frame y (positive left); `side` is the outward direction from the
/// road, −1 on the right and +1 on the left. Long objects are cut into segments, so that a segment
/// that would stand where a vehicle is can be left out alone.
enum RoadFurniture {
    /// Segments of at most `length` metres covering `start…end`.
    static func segments(from start: Double, to end: Double, length: Double) -> [(centre: Double, length: Double)] {
        var result: [(Double, Double)] = []
        var x = start
        while x < end - 1e-9 {
            let l = min(length, end - x)
            result.append((x + l / 2, l))
            x += l
        }
        return result
    }

    /// A concrete safety barrier in three steps (the New Jersey profile), its road-side foot at `face`.
    static func concreteBarrier(
        from start: Double, to end: Double, face: Double, side: Double, height: Double, colour: SIMD3<Double>
    ) -> [SyntheticBox] {
        var boxes: [SyntheticBox] = []
        for (x, l) in segments(from: start, to: end, length: 4) {
            for (width, bottom, top) in [(0.6, 0.0, 0.28), (0.42, 0.28, 0.55), (0.26, 0.55, height)] {
                boxes.append(
                    SyntheticBox(
                        centre: SIMD3(x, face + side * 0.3, (bottom + top) / 2), size: SIMD3(l, width, top - bottom), yaw: 0,
                        colour: colour * (1 - 0.06 * bottom), material: .concrete))
            }
        }
        return boxes
    }

    /// A steel W-beam guard rail on posts, its beam's road-side face at `face`.
    static func guardRail(
        from start: Double, to end: Double, face: Double, side: Double, postSpacing: Double, colour: SIMD3<Double>,
        postColour: SIMD3<Double>
    ) -> [SyntheticBox] {
        var boxes: [SyntheticBox] = []
        for (x, l) in segments(from: start, to: end, length: 4) {
            boxes.append(
                SyntheticBox(centre: SIMD3(x, face + side * 0.04, 0.62), size: SIMD3(l, 0.08, 0.32), yaw: 0, colour: colour, material: .metal))
        }
        var x = start
        while x < end {
            boxes.append(
                SyntheticBox(
                    centre: SIMD3(x, face + side * 0.2, 0.38), size: SIMD3(0.12, 0.15, 0.76), yaw: 0, colour: postColour, material: .metal))
            x += postSpacing
        }
        return boxes
    }

    /// A bridge's parapet: a concrete wall with a steel railing on posts above it.
    static func parapet(from start: Double, to end: Double, face: Double, side: Double, colour: SIMD3<Double>) -> [SyntheticBox] {
        var boxes: [SyntheticBox] = []
        for (x, l) in segments(from: start, to: end, length: 6) {
            boxes.append(SyntheticBox(centre: SIMD3(x, face + side * 0.2, 0.5), size: SIMD3(l, 0.4, 1.0), yaw: 0, colour: colour, material: .concrete))
            boxes.append(
                SyntheticBox(
                    centre: SIMD3(x, face + side * 0.25, 1.32), size: SIMD3(l, 0.08, 0.08), yaw: 0, colour: SIMD3(repeating: 0.55),
                    material: .metal))
        }
        var x = start
        while x < end {
            boxes.append(
                SyntheticBox(centre: SIMD3(x, face + side * 0.25, 1.16), size: SIMD3(0.06, 0.06, 0.32), yaw: 0, colour: SIMD3(repeating: 0.5), material: .metal)
            )
            x += 2
        }
        return boxes
    }

    /// A raised sidewalk slab beyond a kerb, from `inner` outwards over `width` metres.
    static func sidewalk(
        from start: Double, to end: Double, inner: Double, side: Double, width: Double, height: Double, colour: SIMD3<Double>
    ) -> [SyntheticBox] {
        segments(from: start, to: end, length: 10).map { x, l in
            SyntheticBox(
                centre: SIMD3(x, inner + side * width / 2, height / 2), size: SIMD3(l, width, height), yaw: 0, colour: colour,
                material: .concrete)
        }
    }

    /// A wall along the road, its road-side face at `face`.
    static func wall(
        from start: Double, to end: Double, face: Double, side: Double, height: Double, material: SurfaceMaterial, colour: SIMD3<Double>
    ) -> [SyntheticBox] {
        segments(from: start, to: end, length: 8).map { x, l in
            SyntheticBox(centre: SIMD3(x, face + side * 0.15, height / 2), size: SIMD3(l, 0.3, height), yaw: 0, colour: colour, material: material)
        }
    }

    /// A street lamp: a pole at `y`, an arm reaching `arm` metres over the road and a lamp head.
    static func streetLamp(x: Double, y: Double, side: Double, height: Double, arm: Double, colour: SIMD3<Double>) -> [SyntheticBox] {
        [
            SyntheticBox(centre: SIMD3(x, y, height / 2), size: SIMD3(0.16, 0.16, height), yaw: 0, colour: colour, material: .metal),
            SyntheticBox(centre: SIMD3(x, y - side * arm / 2, height - 0.05), size: SIMD3(0.1, arm, 0.1), yaw: 0, colour: colour, material: .metal),
            SyntheticBox(
                centre: SIMD3(x, y - side * arm, height - 0.15), size: SIMD3(0.3, 0.6, 0.15), yaw: 0, colour: SIMD3(repeating: 0.3),
                material: .metal),
        ]
    }

    /// A sign on one or two posts, its face towards oncoming traffic (−x).
    static func sign(
        x: Double, y: Double, bottom: Double, width: Double, height: Double, colour: SIMD3<Double>, posts: Int
    ) -> [SyntheticBox] {
        var boxes = [
            SyntheticBox(
                centre: SIMD3(x, y, bottom + height / 2), size: SIMD3(0.05, width, height), yaw: 0, colour: colour, material: .sign)
        ]
        let offsets = posts == 1 ? [0.0] : [-width * 0.3, width * 0.3]
        for dy in offsets {
            boxes.append(
                SyntheticBox(
                    centre: SIMD3(x + 0.06, y + dy, (bottom + height) / 2), size: SIMD3(0.08, 0.08, bottom + height), yaw: 0,
                    colour: SIMD3(repeating: 0.55), material: .metal))
        }
        return boxes
    }

    /// A sign gantry over the road: two posts beyond the kerbs, a beam at `clearance` metres and
    /// green direction signs hung from it.
    static func gantry(
        x: Double, right: Double, left: Double, clearance: Double, signs: [(y: Double, width: Double, height: Double)],
        colour: SIMD3<Double>, signColour: SIMD3<Double>
    ) -> [SyntheticBox] {
        var boxes: [SyntheticBox] = []
        let top = clearance + 2.6
        for y in [right, left] {
            boxes.append(SyntheticBox(centre: SIMD3(x, y, top / 2), size: SIMD3(0.4, 0.4, top), yaw: 0, colour: colour, material: .metal))
        }
        boxes.append(
            SyntheticBox(
                centre: SIMD3(x + 0.2, (right + left) / 2, top - 0.3), size: SIMD3(0.5, left - right, 0.6), yaw: 0, colour: colour,
                material: .metal))
        for sign in signs {
            boxes.append(
                SyntheticBox(
                    centre: SIMD3(x - 0.1, sign.y, clearance + sign.height / 2), size: SIMD3(0.08, sign.width, sign.height), yaw: 0,
                    colour: signColour, material: .sign))
        }
        return boxes
    }

    /// A standing pedestrian, about `height` metres tall, facing `yaw`.
    static func pedestrian(
        x: Double, y: Double, yaw: Double, height: Double, shirt: SIMD3<Double>, trousers: SIMD3<Double>, skin: SIMD3<Double>
    ) -> [SyntheticBox] {
        let c = cos(yaw), s = sin(yaw)
        func part(_ dx: Double, _ dy: Double, _ z0: Double, _ z1: Double, _ l: Double, _ w: Double, _ colour: SIMD3<Double>) -> SyntheticBox {
            SyntheticBox(
                centre: SIMD3(x + c * dx - s * dy, y + s * dx + c * dy, (z0 + z1) / 2), size: SIMD3(l, w, z1 - z0), yaw: yaw, colour: colour,
                material: .cloth)
        }
        let hip = 0.47 * height, shoulder = 0.82 * height, neck = 0.87 * height
        return [
            part(0, 0.1, 0, hip, 0.16, 0.14, trousers), part(0, -0.1, 0, hip, 0.16, 0.14, trousers),
            part(0, 0, hip, shoulder, 0.24, 0.4, shirt),
            part(0, 0.25, 0.5 * height, shoulder, 0.12, 0.1, shirt), part(0, -0.25, 0.5 * height, shoulder, 0.12, 0.1, shirt),
            part(0, 0, neck, height, 0.2, 0.18, skin),
        ]
    }
}
