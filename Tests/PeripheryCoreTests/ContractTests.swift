import Testing

@testable import PeripheryCore

/// The tensor contract of reference, `docs/reference/contract.md#1-tensor-contract` and `#2-grid-frames-and-anchors`,
/// checked against the numbers quoted in the spec.
struct ContractTests {
    // MARK: Shapes (reference, `docs/reference/contract.md#11-pipeline-and-shapes`)

    @Test(arguments: [
        ("inputWidth", Safety40.inputWidth, 512),
        ("inputHeight", Safety40.inputHeight, 256),
        ("inputChannels", Safety40.inputChannels, 3),
        ("featureStride", Safety40.featureStride, 4),
        ("featureWidth", Safety40.featureWidth, 128),
        ("featureHeight", Safety40.featureHeight, 64),
        ("featureChannels", Safety40.featureChannels, 64),
        ("featurePlaneSize", Safety40.featurePlaneSize, 64 * 128),
        ("voxelCountX", Safety40.voxelCountX, 41),
        ("voxelCountY", Safety40.voxelCountY, 80),
        ("voxelCountZ", Safety40.voxelCountZ, 2),
        ("voxelCount", Safety40.voxelCount, 6560),
        ("headCellsX", Safety40.headCellsX, 21),
        ("headCellsY", Safety40.headCellsY, 40),
        ("anchorSizesPerCell", Safety40.anchorSizesPerCell, 4),
        ("anchorRotationsPerCell", Safety40.anchorRotationsPerCell, 2),
        ("anchorsPerCell", Safety40.anchorsPerCell, 8),
        ("candidateCount", Safety40.candidateCount, 6720),
        ("classChannels", Safety40.classChannels, 4),
        ("boxCodeChannels", Safety40.boxCodeChannels, 9),
        ("directionChannels", Safety40.directionChannels, 2),
    ])
    func shape(name: String, value: Int, expected: Int) {
        #expect(value == expected, "\(name)")
    }

    @Test func featureMapIsInputOverStride() {
        #expect(Safety40.featureWidth * Safety40.featureStride == Safety40.inputWidth)
        #expect(Safety40.featureHeight * Safety40.featureStride == Safety40.inputHeight)
    }

    @Test func scalarConstants() {
        // Exact spec quotes: trained focal 565.6 px, tolerance 1.0 px, DIR_OFFSET 0.7854.
        #expect(Safety40.trainedFocal == 565.6)
        #expect(Safety40.focalMatchTolerance == 1.0)
        #expect(Safety40.directionOffset == 0.7854)
    }

    // MARK: Voxel points (reference, `docs/reference/contract.md#21-voxel-centres`)

    @Test func voxelPointCountAndEnds() {
        let p = VoxelGrid.points
        #expect(p.count == 6560)
        #expect(p[0] == SIMD3(-10, -0.5, -2.5))
        #expect(p[1] == SIMD3(-10, -0.5, -1.0))
        #expect(p[6559] == SIMD3(10, 39, -1.0))
    }

    /// Every point against `gx = −10 + 0.5·ix`, `gy = −0.5 + 0.5·iy`, `gz ∈ {−2.5, −1.0}` with
    /// flat index `(ix·80 + iy)·2 + k`. All values are multiples of 0.5, so equality is exact.
    @Test func voxelFlattenOrderMatchesFormula() {
        let p = VoxelGrid.points
        var mismatches = 0
        for ix in 0..<41 {
            for iy in 0..<80 {
                for k in 0..<2 {
                    let i = (ix * 80 + iy) * 2 + k
                    let expected = SIMD3(-10 + 0.5 * Double(ix), -0.5 + 0.5 * Double(iy), k == 0 ? -2.5 : -1.0)
                    if p[i] != expected { mismatches += 1 }
                    if VoxelGrid.index(ix: ix, iy: iy, slot: k) != i { mismatches += 1 }
                }
            }
        }
        #expect(mismatches == 0)
    }

    @Test func voxelHeightSlicesInVehicleFrame() {
        // −2.5 and −1.0 grid metres are vehicle z −0.66 and 0.84 (reference, `docs/reference/contract.md#21-voxel-centres`).
        let low = CoordinateFrames.gridToVehicle.apply(SIMD3(0, 0, -2.5)).z
        let high = CoordinateFrames.gridToVehicle.apply(SIMD3(0, 0, -1.0)).z
        #expect(abs(low - -0.66) < 1e-12)
        #expect(abs(high - 0.84) < 1e-12)
    }

    // MARK: Coordinate frames (reference, `docs/reference/contract.md#22-grid-to-vehicle`, `#23-axes`)

    @Test func gridToVehicleMatrix() {
        let expected: [[Double]] = [[0, 1, 0, 0.944], [-1, 0, 0, 0], [0, 0, 1, 1.840]]
        #expect(CoordinateFrames.gridToVehicle.matrix.rowMajor == expected)
    }

    @Test(arguments: [
        SIMD3<Double>(0, 0, 0), SIMD3(1, 2, 3), SIMD3(-7.5, 38.25, -2.5), SIMD3(10, -0.5, -1),
    ])
    func gridToVehicleMapsPoints(grid g: SIMD3<Double>) {
        // vehicle x = gy + 0.944, y = −gx, z = gz + 1.840.
        let v = CoordinateFrames.gridToVehicle.apply(g)
        #expect(abs(v.x - (g.y + 0.944)) < 1e-12)
        #expect(abs(v.y - -g.x) < 1e-12)
        #expect(abs(v.z - (g.z + 1.840)) < 1e-12)
    }

    @Test func sensorToImageAxes() {
        let s = CoordinateFrames.sensorToImageAxes
        #expect(s.rowMajor == [[0, -1, 0], [0, 0, -1], [1, 0, 0]])
        // Orthogonal: S·Sᵀ = I exactly (a signed permutation), det +1.
        #expect(s * s.transposed == Matrix3.identity)
        #expect(s.transposed * s == Matrix3.identity)
        #expect(s.determinant == 1)
        // image = (−y_s, −z_s, x_s).
        let sensor = SIMD3<Double>(3, 5, 7)
        #expect(s * sensor == SIMD3(-5, -7, 3))
    }

    // MARK: Classes (reference, `docs/reference/contract.md#12-head-outputs`, `#25-classes-counted`)

    @Test(arguments: [
        (VehicleClass.lightVehicle, 0, "light_vehicle", true),
        (.largeVehicle, 1, "large_vehicle", true),
        (.twoWheeler, 2, "two_wheeler", true),
        (.pedestrian, 3, "pedestrian", false),
    ])
    func classNames(cls: VehicleClass, index: Int, name: String, counted: Bool) {
        #expect(cls.rawValue == index)
        #expect(cls.name == name)
        #expect(cls.isVehicle == counted)
        #expect(VehicleClass.vehicleLabels.contains(index) == counted)
    }

    @Test func classOrder() {
        #expect(VehicleClass.allCases.map(\.name) == ["light_vehicle", "large_vehicle", "two_wheeler", "pedestrian"])
        #expect(VehicleClass.vehicleLabels == [0, 1, 2])
    }

    // MARK: Normalisation (reference, `docs/reference/contract.md#14-input-normalisation`)

    @Test func meanAndStd() {
        #expect(ImageNormalization.mean == SIMD3<Float>(123.675, 116.28, 103.53))
        #expect(ImageNormalization.std == SIMD3<Float>(58.395, 57.12, 57.375))
    }

    @Test(arguments: [
        SIMD3<Float>(0, 0, 0), SIMD3(255, 255, 255), SIMD3(123.675, 116.28, 103.53), SIMD3(10, 200, 77),
    ])
    func normalizeOn0To255Scale(pixel: SIMD3<Float>) {
        // (pixel − mean)/std on 0–255 values, written out per channel in Double.
        let mean: [Double] = [123.675, 116.28, 103.53], std: [Double] = [58.395, 57.12, 57.375]
        let n = ImageNormalization.normalize(pixel)
        for c in 0..<3 {
            let expected = (Double(pixel[c]) - mean[c]) / std[c]
            #expect(abs(Double(n[c]) - expected) < 1e-5, "channel \(c)")
        }
    }

    @Test func letterboxPaddingIsZero() {
        // The canvas is pre-filled with MEAN, so padding normalises to exactly 0.
        #expect(ImageNormalization.normalize(ImageNormalization.mean) == SIMD3<Float>(0, 0, 0))
    }

    // MARK: Evaluation region (reference, `docs/reference/contract.md#3-decode` step 7)

    @Test(arguments: [
        (0.0, 0.0, true), (40.0, 0.0, true), (0.0, -10.0, true), (40.0, 10.0, true), (20.0, -10.0, true),
        (0.0.nextDown, 0.0, false), (40.0.nextUp, 0.0, false),
        (10.0, 10.0.nextUp, false), (10.0, (-10.0).nextDown, false),
        (-1.0, 0.0, false), (41.0, 0.0, false), (20.0, 11.0, false), (20.0, -11.0, false),
    ])
    func evaluationRegionInclusive(x: Double, y: Double, inside: Bool) {
        #expect(EvaluationRegion.safety40.contains(x: x, y: y) == inside)
    }

    @Test func evaluationRegionBounds() {
        let r = EvaluationRegion.safety40
        #expect(r.minX == 0 && r.maxX == 40 && r.minY == -10 && r.maxY == 10)
    }

    // MARK: Detection

    @Test(arguments: [(3.0, 4.0, 5.0), (0.0, -2.0, 2.0), (12.0, -5.0, 13.0)])
    func detectionRangeIsHypot(x: Double, y: Double, range: Double) {
        let d = Detection(score: 0.9, label: 0, box: VehicleBox(x: x, y: y, z: 0, length: 4, width: 2, height: 1.5, yaw: 0), candidate: 0)
        #expect(abs(d.box.range - range) < 1e-12)
        #expect(d.vehicleClass == .lightVehicle)
    }

    // MARK: Matrix helpers

    @Test func matrixProductAndDeterminant() {
        let a = Matrix3(rows: SIMD3(1, 2, 3), SIMD3(0, 1, 4), SIMD3(5, 6, 0))
        let b = Matrix3(rows: SIMD3(-24, 18, 5), SIMD3(20, -15, -4), SIMD3(-5, 4, 1))
        // b is the inverse of a (det a = 1), a textbook example.
        #expect(a.determinant == 1)
        #expect(a * b == Matrix3.identity)
        #expect(a.transposed.rowMajor == [[1, 0, 5], [2, 1, 6], [3, 4, 0]])
        #expect(a * SIMD3(1, 1, 1) == SIMD3(6, 5, 11))
        #expect(Matrix3(rowMajor: [[1, 2], [3, 4]]) == nil)
        #expect(Matrix3(rowMajor: a.rowMajor) == a)
    }
}
