import PeripheryCore

/// Ego motion that arrives beside a live camera (gpsd), looked up by the frames' arrival times.
public protocol LiveEgoSource: AnyObject {
    /// The ego motion between two frames that arrived at `previous` and `current` (seconds on
    /// `MonotonicClock`), or nil without a usable fix.
    func egoDelta(from previous: Double, to current: Double) -> EgoDelta?
    /// Reports rejected so far: garbled, hostile or impossible.
    var skippedReports: Int { get }
}

/// gpsd's TPV reports as the tracker's ego motion.
extension GPSDClient: LiveEgoSource {
    public var skippedReports: Int { counters.garbled }
}
