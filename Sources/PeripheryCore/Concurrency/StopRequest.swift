import Synchronization

/// A request, from any thread, that a run end after the frame in flight: a signal handler, a
/// duration that ran out, or the library's user.
///
/// The first request wins: its reason is the one the run reports. Sources that block (a camera, a
/// network stream) poll `isRequested`, so a request also ends a wait for a frame that never comes.
public final class StopRequest: Sendable {
    /// Why a run was asked to stop.
    public enum Reason: Int, Sendable {
        /// The user asked (a signal, a call to `request`).
        case stopped = 1
        /// The run's wall-clock duration ran out.
        case duration = 2
    }

    private let state = Atomic<Int>(0)

    /// A request not yet made.
    public init() {}

    /// Asks the run to stop, for `reason`; later requests keep the first reason.
    public func request(_ reason: Reason = .stopped) {
        _ = state.compareExchange(expected: 0, desired: reason.rawValue, ordering: .relaxed)
    }

    /// Whether a stop has been asked for.
    public var isRequested: Bool { state.load(ordering: .relaxed) != 0 }

    /// Why, once asked.
    public var reason: Reason? { Reason(rawValue: state.load(ordering: .relaxed)) }
}
