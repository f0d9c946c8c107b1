/// The 41 × 80 × 2 voxel crop of the released 200 × 200 × 4 virtual grid, in grid metres.
///
/// The released grid has cells of 0.5 × 0.5 × 1.5 m about origin (0, 0, −1), so its corner is
/// (−50, −50, −4). Safety40 keeps gx indices 80..<121, gy indices 99..<179 and z slices {1, 2}.
/// Points are cell corners (`index · size + base`, no half-cell offset), exactly as the reference.
public enum VoxelGrid {
    /// Cell size of the released grid, metres (x, y, z).
    static let cellSize = SIMD3<Double>(0.5, 0.5, 1.5)
    /// Corner of the released grid: origin (0, 0, −1) minus half its 200 × 200 × 4 extent.
    public static let base = SIMD3<Double>(-50, -50, -4)
    /// First released-grid x index of the crop.
    static let firstX = 80
    /// First released-grid y index of the crop.
    static let firstY = 99
    /// Released-grid z indices of the two height slices.
    static let zSlices = [1, 2]

    /// Flat voxel index of `(ix, iy, kslot)`: ix outermost, then iy, then the height slot.
    ///
    /// This is also the trailing (gx, gy, gz) order of the volume tensor.
    @inlinable
    public static func index(ix: Int, iy: Int, slot: Int) -> Int {
        (ix * Safety40.voxelCountY + iy) * Safety40.voxelCountZ + slot
    }

    /// Grid-metre centre of voxel `(ix, iy, slot)`.
    public static func point(ix: Int, iy: Int, slot: Int) -> SIMD3<Double> {
        SIMD3(
            Double(firstX + ix) * cellSize.x + base.x,
            Double(firstY + iy) * cellSize.y + base.y,
            Double(zSlices[slot]) * cellSize.z + base.z)
    }

    /// All 6560 voxel points in flatten order: (−10, −0.5, −2.5), (−10, −0.5, −1.0), … (10, 39, −1.0).
    public static let points: [SIMD3<Double>] = {
        var result: [SIMD3<Double>] = []
        result.reserveCapacity(Safety40.voxelCount)
        for ix in 0..<Safety40.voxelCountX {
            for iy in 0..<Safety40.voxelCountY {
                for slot in 0..<Safety40.voxelCountZ {
                    result.append(point(ix: ix, iy: iy, slot: slot))
                }
            }
        }
        return result
    }()
}
