import PeripheryCore
import PeripheryGeometry

/// Per-pixel coverage (0…1) over a pixel rectangle of the canvas, accumulated by one primitive
/// before it is blended once, so that overlapping parts of a shape do not darken each other.
struct CoverageMask {
    /// Left column in canvas pixels.
    let x: Int
    /// Top row in canvas pixels.
    let y: Int
    /// Columns.
    let width: Int
    /// Rows.
    let height: Int
    /// Row-major coverage.
    var values: [Float]

    /// An empty mask over the canvas pixels covering `[minX, maxX] × [minY, maxY]`, clipped to a
    /// `canvasWidth × canvasHeight` canvas; `nil` when nothing is left.
    init?(minX: Double, minY: Double, maxX: Double, maxY: Double, canvasWidth: Int, canvasHeight: Int) {
        guard minX.isFinite, minY.isFinite, maxX.isFinite, maxY.isFinite else { return nil }
        let x0 = max(0, Int(max(minX, -1).rounded(.down)))
        let y0 = max(0, Int(max(minY, -1).rounded(.down)))
        let x1 = min(canvasWidth, Int(min(maxX, Double(canvasWidth) + 1).rounded(.up)) + 1)
        let y1 = min(canvasHeight, Int(min(maxY, Double(canvasHeight) + 1).rounded(.up)) + 1)
        guard x0 < x1, y0 < y1 else { return nil }
        x = x0
        y = y0
        width = x1 - x0
        height = y1 - y0
        values = [Float](repeating: 0, count: width * height)
    }

    /// Raises the coverage of canvas pixel `(column, row)` to at least `c`.
    mutating func raise(column: Int, row: Int, to c: Float) {
        let cx = column - x, cy = row - y
        guard cx >= 0, cy >= 0, cx < width, cy < height else { return }
        let i = cy * width + cx
        if c > values[i] { values[i] = c }
    }
}
