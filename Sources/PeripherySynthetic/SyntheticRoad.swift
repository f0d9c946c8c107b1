import PeripheryCore
import PeripheryGeometry

/// A straight road along vehicle x: lanes, markings, shoulders and kerbs.
///
/// Lanes are numbered from the right (0 is the rightmost); the leftmost `oppositeLanes` carry
/// oncoming traffic.
public struct SyntheticRoad: Sendable, Hashable {
    /// Number of lanes (2…4).
    public var laneCount: Int
    /// Lanes of oncoming traffic, on the left.
    public var oppositeLanes: Int
    /// Width of each lane, metres.
    public var laneWidth: Double
    /// Lateral position of the right edge line's centre, metres.
    public var rightEdge: Double
    /// Asphalt between each edge line and its kerb, metres.
    public var shoulderWidth: Double
    /// Width of the dashed and centre lines, metres.
    public var markingWidth: Double
    /// Width of the solid edge lines, metres.
    public var edgeLineWidth: Double
    /// Length of one dash, metres.
    public var dashLength: Double
    /// Distance from one dash start to the next, metres.
    public var dashPeriod: Double
    /// Forward position where a dash starts, metres.
    public var dashPhase: Double
    /// Kerb height, metres.
    public var kerbHeight: Double

    /// Creates a road from all its dimensions.
    public init(
        laneCount: Int, oppositeLanes: Int, laneWidth: Double, rightEdge: Double, shoulderWidth: Double,
        markingWidth: Double = 0.12, edgeLineWidth: Double = 0.18, dashLength: Double = 3,
        dashPeriod: Double = 9, dashPhase: Double = 0, kerbHeight: Double = 0.13
    ) {
        self.laneCount = laneCount
        self.oppositeLanes = oppositeLanes
        self.laneWidth = laneWidth
        self.rightEdge = rightEdge
        self.shoulderWidth = shoulderWidth
        self.markingWidth = markingWidth
        self.edgeLineWidth = edgeLineWidth
        self.dashLength = dashLength
        self.dashPeriod = dashPeriod
        self.dashPhase = dashPhase
        self.kerbHeight = kerbHeight
    }

    /// Lateral position of the left edge line's centre.
    public var leftEdge: Double { rightEdge + Double(laneCount) * laneWidth }
    /// Lateral position of the right kerb's road-side face.
    public var rightKerb: Double { rightEdge - shoulderWidth }
    /// Lateral position of the left kerb's road-side face.
    public var leftKerb: Double { leftEdge + shoulderWidth }

    /// Lateral centre of lane `index` (0 is the rightmost).
    func laneCentre(_ index: Int) -> Double { rightEdge + (Double(index) + 0.5) * laneWidth }

    /// Whether lane `index` carries oncoming traffic.
    func isOpposite(_ index: Int) -> Bool { index >= laneCount - oppositeLanes }

    /// The painted lines: lateral centre, width and whether the line is dashed.
    public var lines: [RoadLine] {
        var result = [RoadLine(y: rightEdge, width: edgeLineWidth, isDashed: false)]
        for i in 1..<max(laneCount, 1) {
            let divider = oppositeLanes > 0 && i == laneCount - oppositeLanes
            result.append(RoadLine(y: rightEdge + Double(i) * laneWidth, width: markingWidth, isDashed: !divider))
        }
        result.append(RoadLine(y: leftEdge, width: edgeLineWidth, isDashed: false))
        return result
    }

    /// What the road plane shows at `(x, y)`.
    func surface(x: Double, y: Double) -> RoadSurface {
        if y < rightKerb || y > leftKerb { return .verge }
        for line in lines where abs(y - line.y) <= line.width / 2 {
            if !line.isDashed { return .marking }
            let along = x - dashPhase
            let inPeriod = along - dashPeriod * (along / dashPeriod).rounded(.down)
            if inPeriod < dashLength { return .marking }
        }
        return .asphalt
    }
}

/// One painted line along the road.
public struct RoadLine: Sendable, Hashable {
    /// Lateral position of the line's centre, metres.
    public var y: Double
    /// Painted width, metres.
    public var width: Double
    /// Whether the line is broken into dashes.
    public var isDashed: Bool
}

/// The kinds of ground the road plane shows.
enum RoadSurface: Sendable, Hashable {
    /// Road surface.
    case asphalt
    /// A painted line.
    case marking
    /// Grass beyond the kerbs.
    case verge
}
