import Dispatch

/// Seconds on the system's monotonic clock: when frames arrive, when results are ready. Live
/// latencies are differences of these, immune to wall-clock steps (NTP, a GPS time fix).
public enum MonotonicClock {
    /// Seconds since an arbitrary origin (the machine's boot), never going back.
    public static var now: Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
}
