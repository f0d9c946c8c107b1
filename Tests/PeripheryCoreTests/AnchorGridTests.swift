import Testing

@testable import PeripheryCore

/// The 6720 anchors of reference, `docs/reference/contract.md#24-anchors`.
struct AnchorGridTests {
    static let sizes: [(w: Double, l: Double, h: Double)] = [
        (0.866, 2.5981, 1.0), (0.5774, 1.7321, 1.0), (1.0, 1.0, 1.0), (0.4, 0.4, 1.0),
    ]
    static let rotations = [0.0, 1.57]

    @Test func count() {
        #expect(AnchorGrid.anchors.count == 6720)
    }

    @Test func sizesAndRotations() {
        #expect(AnchorGrid.sizes.count == 4)
        for (i, s) in Self.sizes.enumerated() {
            #expect(AnchorGrid.sizes[i].width == s.w)
            #expect(AnchorGrid.sizes[i].length == s.l)
            #expect(AnchorGrid.sizes[i].height == s.h)
        }
        #expect(AnchorGrid.rotations == [0.0, 1.57])
        let r = AnchorGrid.range
        #expect(r.x0 == -10 && r.y0 == -0.5 && r.z == -1.8 && r.x1 == 10 && r.y1 == 39)
    }

    /// Every anchor against the spec's cell-centre formulas and the ix → iy → size → rotation loop.
    @Test func everyAnchorMatchesFormula() {
        var worst = 0.0
        var index = 0
        for ix in 0..<21 {
            for iy in 0..<40 {
                for size in 0..<4 {
                    for rot in 0..<2 {
                        let a = AnchorGrid.anchors[index]
                        let x = -10 + 20 * (Double(ix) + 0.5) / 21
                        let y = -0.5 + 39.5 * (Double(iy) + 0.5) / 40
                        let s = Self.sizes[size]
                        let expected = [x, y, -1.8, s.w, s.l, s.h, Self.rotations[rot]]
                        for (got, want) in zip(a.row, expected) { worst = max(worst, abs(got - want)) }
                        #expect(AnchorGrid.candidateIndex(ix: ix, iy: iy, size: size, rotation: rot) == index)
                        index += 1
                    }
                }
            }
        }
        #expect(index == 6720)
        #expect(worst < 1e-12)
    }

    @Test func cellCentreExtremes() {
        // Quoted: x −9.5238 … 9.5238 (step 0.952381), y −0.00625 … 38.50625 (step 0.9875).
        let first = AnchorGrid.anchors[0], last = AnchorGrid.anchors[6719]
        #expect(abs(first.x - -9.5238) < 1e-4)
        #expect(abs(last.x - 9.5238) < 1e-4)
        #expect(abs(first.y - -0.00625) < 1e-12)
        #expect(abs(last.y - 38.50625) < 1e-12)
        let nextX = AnchorGrid.anchors[AnchorGrid.candidateIndex(ix: 1, iy: 0, size: 0, rotation: 0)]
        let nextY = AnchorGrid.anchors[AnchorGrid.candidateIndex(ix: 0, iy: 1, size: 0, rotation: 0)]
        #expect(abs((nextX.x - first.x) - 0.952381) < 1e-6)
        #expect(abs((nextY.y - first.y) - 0.9875) < 1e-12)
    }

    @Test(arguments: [
        (0, 0, 0, 0, 0), (0, 0, 0, 1, 1), (0, 0, 1, 0, 2), (0, 1, 0, 0, 8), (1, 0, 0, 0, 320),
        (20, 39, 3, 1, 6719), (10, 20, 2, 1, ((10 * 40 + 20) * 4 + 2) * 2 + 1),
    ])
    func candidateIndexFlattenOrder(ix: Int, iy: Int, size: Int, rot: Int, expected: Int) {
        #expect(AnchorGrid.candidateIndex(ix: ix, iy: iy, size: size, rotation: rot) == expected)
    }

    @Test func rowLayout() {
        let a = Anchor(x: 1, y: 2, zBottom: 3, width: 4, length: 5, height: 6, yaw: 7)
        #expect(a.row == [1, 2, 3, 4, 5, 6, 7])
    }

    @Test func anchorDiagonal() {
        // diag = sqrt(w² + l²); the first size is a 30° (√3:1) box of diagonal ≈ 2.7387.
        let a = AnchorGrid.anchors[0]
        let diag = (a.width * a.width + a.length * a.length).squareRoot()
        #expect(abs(diag - (0.866 * 0.866 + 2.5981 * 2.5981).squareRoot()) < 1e-15)
        #expect(abs(diag - 2.73863) < 1e-5)
    }
}
