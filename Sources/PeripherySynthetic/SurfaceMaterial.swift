/// What a box's surface is made of: the texture the structured world paints on it.
///
/// The basic world draws every box `plain`; the structured world (`SyntheticWorld.structured`) gives
/// roadside objects the textures of the things they stand for, so that a network learns that a grey
/// box-like thing by the road is a barrier or a wall and not a vehicle.
public enum SurfaceMaterial: Sendable, Hashable {
    /// One colour with the renderer's fine texture noise.
    case plain
    /// Cast concrete: mottled and stained, with a joint every few metres (barriers, walls, parapets,
    /// sidewalks).
    case concrete
    /// Courses of brick with mortar lines.
    case brick
    /// Galvanised or painted steel: bright, with a sheen that changes along its length (guard rails,
    /// gantries, poles).
    case metal
    /// Leaves: strongly mottled (hedges).
    case foliage
    /// A traffic sign's face: a light border and dark strokes like lettering.
    case sign
    /// Clothing and skin: coarse blotches.
    case cloth
    /// A vehicle's painted body: its ends carry lamps at the corners (red at the back) and a
    /// number plate.
    case vehicleBody
}
