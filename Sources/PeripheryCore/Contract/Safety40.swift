/// The tensor contract of the Safety40 detector: input, feature, volume and head shapes.
///
/// Every number here is fixed by the trained network and the reference implementation
/// (`docs/reference/contract.md#1-tensor-contract`); nothing in this namespace is a tuning knob.
public enum Safety40 {
    /// Network input width in pixels.
    public static let inputWidth = 512
    /// Network input height in pixels.
    public static let inputHeight = 256
    /// Input channels (planar RGB).
    static let inputChannels = 3
    /// Downsampling from the input image to the feature map.
    public static let featureStride = 4
    /// Feature map width (`inputWidth / featureStride`).
    public static let featureWidth = 128
    /// Feature map height (`inputHeight / featureStride`).
    public static let featureHeight = 64
    /// Feature channels.
    public static let featureChannels = 64
    /// Feature elements per channel (64 × 128).
    public static let featurePlaneSize = featureWidth * featureHeight

    /// The focal length, in pixels of the 512-wide network input, that the network was trained at.
    public static let trainedFocal = 565.6
    /// An achieved focal within this many pixels of `trainedFocal` counts as matched.
    public static let focalMatchTolerance = 1.0

    /// Voxels along grid x (vehicle lateral).
    public static let voxelCountX = 41
    /// Voxels along grid y (vehicle forward).
    public static let voxelCountY = 80
    /// Height slices.
    public static let voxelCountZ = 2
    /// Voxels in the BEV volume (41 × 80 × 2).
    public static let voxelCount = voxelCountX * voxelCountY * voxelCountZ

    /// BEV head cells along grid x.
    public static let headCellsX = 21
    /// BEV head cells along grid y.
    public static let headCellsY = 40
    /// Anchor sizes per cell.
    public static let anchorSizesPerCell = 4
    /// Anchor rotations per cell.
    public static let anchorRotationsPerCell = 2
    /// Anchors per head cell (4 sizes × 2 rotations).
    public static let anchorsPerCell = anchorSizesPerCell * anchorRotationsPerCell
    /// Head candidates (21 × 40 × 8).
    public static let candidateCount = headCellsX * headCellsY * anchorsPerCell

    /// Class logits per candidate (trailing dimension of the `classes` output).
    public static let classChannels = 4
    /// Box regression codes per candidate (trailing dimension of `boxes`); codes 7 and 8 are unused.
    public static let boxCodeChannels = 9
    /// Direction logits per candidate (trailing dimension of `directions`).
    public static let directionChannels = 2

    /// Offset subtracted before folding the yaw into one period (mmdet3d `dir_offset`).
    static let directionOffset = 0.7854
}
