/// One BEV anchor box in grid metres: `[x, y, z_bottom, w, l, h, yaw]`.
package struct Anchor: Sendable, Hashable {
    /// Grid x of the cell centre.
    package var x: Double
    /// Grid y of the cell centre.
    package var y: Double
    /// Grid z of the box bottom.
    package var zBottom: Double
    /// Width along the anchor's own lateral axis.
    package var width: Double
    /// Length along the anchor's own heading.
    package var length: Double
    /// Height.
    package var height: Double
    /// Rotation in the grid frame, radians.
    package var yaw: Double

    /// Creates an anchor from its seven fields.
    package init(x: Double, y: Double, zBottom: Double, width: Double, length: Double, height: Double, yaw: Double) {
        self.x = x
        self.y = y
        self.zBottom = zBottom
        self.width = width
        self.length = length
        self.height = height
        self.yaw = yaw
    }

    /// The seven fields in the reference row layout.
    package var row: [Double] { [x, y, zBottom, width, length, height, yaw] }
}

/// The 6720 Safety40 anchors (mmdet3d `AlignedAnchor3DRangeGenerator` ordering).
package enum AnchorGrid {
    /// `(x0, y0, z, x1, y1)` of the anchor range, grid metres.
    package static let range = (x0: -10.0, y0: -0.5, z: -1.8, x1: 10.0, y1: 39.0)
    /// Anchor sizes `(w, l, h)` in order.
    package static let sizes: [(width: Double, length: Double, height: Double)] = [
        (0.866, 2.5981, 1.0), (0.5774, 1.7321, 1.0), (1.0, 1.0, 1.0), (0.4, 0.4, 1.0),
    ]
    /// Anchor rotations in order, radians.
    static let rotations: [Double] = [0.0, 1.57]

    /// Candidate index of `(ix, iy, size, rotation)`: gx outer, then gy, size, rotation.
    @inlinable
    static func candidateIndex(ix: Int, iy: Int, size: Int, rotation: Int) -> Int {
        ((ix * Safety40.headCellsY + iy) * Safety40.anchorSizesPerCell + size) * Safety40.anchorRotationsPerCell
            + rotation
    }

    /// All anchors in candidate order.
    package static let anchors: [Anchor] = {
        var result: [Anchor] = []
        result.reserveCapacity(Safety40.candidateCount)
        let nx = Double(Safety40.headCellsX), ny = Double(Safety40.headCellsY)
        for ix in 0..<Safety40.headCellsX {
            let x = range.x0 + (range.x1 - range.x0) * (Double(ix) + 0.5) / nx
            for iy in 0..<Safety40.headCellsY {
                let y = range.y0 + (range.y1 - range.y0) * (Double(iy) + 0.5) / ny
                for size in sizes {
                    for yaw in rotations {
                        result.append(
                            Anchor(
                                x: x, y: y, zBottom: range.z,
                                width: size.width, length: size.length, height: size.height, yaw: yaw))
                    }
                }
            }
        }
        return result
    }()
}
