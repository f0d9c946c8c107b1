import Dispatch
import Foundation
import PeripheryCore

#if canImport(Glibc)
import Glibc
#endif

/// What a `GPSDClient` has seen since it started.
public struct GPSDCounters: Sendable, Hashable {
    /// TPV reports accepted.
    public var reports = 0
    /// Lines rejected: not JSON, wrong types, non-finite or implausible values, over-long lines.
    public var garbled = 0
    /// Transitions from a fix (mode ≥ 2) to no fix (mode < 2).
    public var fixLost = 0
    /// Connections re-established after the connection to gpsd dropped.
    public var reconnects = 0

    /// Counters with these values (zero: nothing seen yet).
    public init(reports: Int = 0, garbled: Int = 0, fixLost: Int = 0, reconnects: Int = 0) {
        self.reports = reports
        self.garbled = garbled
        self.fixLost = fixLost
        self.reconnects = reconnects
    }
}

/// Live ego motion from gpsd: a TCP client of gpsd's JSON protocol that keeps the last few seconds
/// of TPV reports, each with its arrival time on the monotonic clock the frame pipeline uses, and
/// answers the ego motion between two camera frames by the rule a recorded drive uses
/// (`DriveDirectory.egoDelta(from:to:)`: the latest speed, the mean yaw rate, a constant-twist arc).
///
/// It reads on a thread of its own with 100 ms `poll` timeouts, so `stop()` returns within about
/// 0.2 s and a silent gpsd never blocks anyone; when the connection drops it reconnects every second
/// until stopped. It only ever connects to the one `host:port` it was given. All methods may be
/// called from any thread.
public final class GPSDClient: @unchecked Sendable {
    /// A report with its arrival time (monotonic seconds).
    package struct Arrival: Sendable, Hashable {
        /// The TPV report.
        package var report: GPSDReport
        /// When its line was read, monotonic seconds.
        package var arrival: Double
    }

    /// The gpsd this client reads (empty and 0 for an offline client).
    public let host: String
    /// gpsd's TCP port.
    public let port: Int
    private let state: GPSDClientState

    /// A report's speed and course are used for at most this long after it arrived, seconds (the
    /// recorded-drive rule's limit).
    public static let maximumAge = 2.0
    /// Below this speed (m/s) the course over ground is noise, and the yaw rate is taken as 0.
    public static let minimumCourseSpeed = 0.5
    /// Reports older than this (seconds behind the newest) are dropped; keeps memory bounded.
    public static let retention = 10.0
    /// At most this many reports are kept, whatever their rate.
    public static let capacity = 1024

    /// Connects to gpsd at `host:port` within `connectTimeout` seconds, asks it to stream JSON
    /// (`?WATCH={"enable":true,"json":true};`) and starts reading.
    ///
    /// Throws `GPSDError.refused` when nothing listens there, `.timeout` when the connection does not
    /// complete in time, and `.cannotConnect` when the name does not resolve or a socket call fails.
    /// A host name is resolved here, once: reconnecting never waits on a name server.
    public init(host: String = "127.0.0.1", port: Int = 2947, connectTimeout: Double = 5) throws(GPSDError) {
        self.host = host
        self.port = port
        let endpoint = try GPSDEndpoint(host: host, port: port)
        let connection = try endpoint.connectAndWatch(timeout: connectTimeout) { false }
        state = GPSDClientState(readerRunning: true)
        let state = state
        let reconnectTimeout = min(max(connectTimeout, 0.1), 1.0)
        let thread = Thread {
            GPSDClient.readLoop(connection: connection, endpoint: endpoint, reconnectTimeout: reconnectTimeout, state: state)
        }
        thread.name = "gpsd \(host):\(port)"
        thread.start()
    }

    private init(offline state: GPSDClientState) {
        host = ""
        port = 0
        self.state = state
    }

    /// A client without a connection, fed through `record` or `receive` (tests, fuzzing, replays).
    package static func offline() -> GPSDClient {
        GPSDClient(offline: GPSDClientState(readerRunning: false))
    }

    deinit {
        stop()
    }

    /// Stops reading and closes the connection; returns once the reading thread has finished
    /// (within about 0.2 s). Calling it again does nothing.
    public func stop() {
        state.stopAndWait()
    }

    /// What the client has seen so far.
    public var counters: GPSDCounters {
        state.lock.lock()
        defer { state.lock.unlock() }
        return state.counters
    }

    /// The reports kept, oldest first.
    package var arrivals: [Arrival] {
        state.lock.lock()
        defer { state.lock.unlock() }
        return state.entries
    }

    /// Stores `report` as arrived at `arrival` (monotonic seconds): what the reading thread does with
    /// every TPV line, open to tests so that the ego rule can be exercised without a socket.
    package func record(_ report: GPSDReport, arrival: Double) {
        state.lock.lock()
        defer { state.lock.unlock() }
        state.record(report, arrival: arrival)
    }

    /// Feeds bytes as read from gpsd's socket (any chunking; lines end with LF or CR LF).
    package func receive(_ bytes: some Collection<UInt8>, arrival: Double) {
        state.lock.lock()
        defer { state.lock.unlock() }
        state.receive(bytes, arrival: arrival)
    }

    /// The latest usable speed at `time` (monotonic seconds), m/s: that of the latest report at or
    /// before `time` with a fix and a speed, at most `maximumAge` old; nil when there is none, or when
    /// a later report at or before `time` says the fix is lost.
    public func speed(at time: Double) -> Double? {
        state.lock.lock()
        defer { state.lock.unlock() }
        return GPSDClient.speed(in: state.entries, at: time)
    }

    /// The ego motion between two consecutive camera frames that arrived at `previous` and `current`
    /// (monotonic seconds, `DispatchTime.now().uptimeNanoseconds / 1e9`).
    ///
    /// Speed is `speed(at: current)`. The yaw rate (rad/s, counter-clockwise positive, ISO 8855) is
    /// −Δtrack/Δt between successive fixes (gpsd's track turns clockwise), wrapped to ±180°, timed by
    /// the reports' own UTC times where both have one: the mean over the reports that arrived in
    /// `(previous, current]`, or the latest pair's rate when none did; 0 below `minimumCourseSpeed`,
    /// where the course is noise. The result is `EgoDelta.arc(speed:yawRate:dt:)`. Nil when there is
    /// no usable fix (none yet, lost, or older than `maximumAge`), no course to turn by, or
    /// `current ≤ previous`: the caller then falls back to the stationary rule.
    public func egoDelta(from previous: Double, to current: Double) -> EgoDelta? {
        guard previous.isFinite, current.isFinite, current > previous else { return nil }
        state.lock.lock()
        defer { state.lock.unlock() }
        guard let speed = GPSDClient.speed(in: state.entries, at: current) else { return nil }
        var yawRate = 0.0
        if speed >= GPSDClient.minimumCourseSpeed {
            guard let rate = GPSDClient.yawRate(in: state.entries, from: previous, to: current) else { return nil }
            yawRate = rate
        }
        return EgoDelta.arc(speed: speed, yawRate: yawRate, dt: current - previous)
    }

    // MARK: - The ego rule over the kept reports

    /// Index of the last entry that arrived at or before `time`, −1 when none did (binary search).
    static func lastIndex(in entries: [Arrival], atOrBefore time: Double) -> Int {
        var low = 0, high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if entries[mid].arrival <= time { low = mid + 1 } else { high = mid }
        }
        return low - 1
    }

    static func speed(in entries: [Arrival], at time: Double) -> Double? {
        var index = lastIndex(in: entries, atOrBefore: time)
        while index >= 0, time - entries[index].arrival <= maximumAge {
            let report = entries[index].report
            // A report without a fix after the last good one means the fix is lost now.
            guard report.hasFix else { return nil }
            if let speed = report.speed { return speed }
            index -= 1
        }
        return nil
    }

    /// Mean yaw rate of the reports that arrived in `(previous, current]`, else the latest fresh one.
    static func yawRate(in entries: [Arrival], from previous: Double, to current: Double) -> Double? {
        let last = lastIndex(in: entries, atOrBefore: current)
        var sum = 0.0, count = 0
        var index = last
        while index >= 0, entries[index].arrival > previous {
            if let rate = pairRate(in: entries, at: index) {
                sum += rate
                count += 1
            }
            index -= 1
        }
        if count > 0 { return sum / Double(count) }
        index = last
        while index >= 0, current - entries[index].arrival <= maximumAge {
            // Not back past a lost fix: a turn from before the loss says nothing about now.
            guard entries[index].report.hasFix else { return nil }
            if let rate = pairRate(in: entries, at: index) { return rate }
            index -= 1
        }
        return nil
    }

    /// Yaw rate (rad/s, counter-clockwise) from the fix before entry `index` to it: the same device's
    /// latest earlier fix with a track at an earlier epoch, not across a lost fix, a step back in
    /// time or a gap over `maximumAge`. Nil when entry `index` has no fix, track or speed.
    static func pairRate(in entries: [Arrival], at index: Int) -> Double? {
        let later = entries[index]
        guard later.report.hasFix, let laterTrack = later.report.track, let laterSpeed = later.report.speed else { return nil }
        // A few steps suffice: gpsd repeats an epoch at most a couple of times (a 2-D, then a 3-D TPV).
        for earlierIndex in stride(from: index - 1, through: max(0, index - 16), by: -1) {
            let earlier = entries[earlierIndex]
            guard earlier.report.device == later.report.device else { continue }
            guard earlier.report.hasFix else { return nil }
            guard let earlierTrack = earlier.report.track, let earlierSpeed = earlier.report.speed else { continue }
            let dt: Double
            if let start = earlier.report.time, let end = later.report.time {
                dt = end - start
            } else {
                dt = later.arrival - earlier.arrival
            }
            // The same epoch again (under a millisecond apart): look further back.
            if abs(dt) < 1e-3 { continue }
            guard dt > 0, dt <= maximumAge else { return nil }
            if min(earlierSpeed, laterSpeed) < minimumCourseSpeed { return 0 }
            var turn = laterTrack - earlierTrack
            turn -= 360 * (turn / 360).rounded()
            return -turn * .pi / 180 / dt
        }
        return nil
    }

    // MARK: - Reading

    /// The reading thread: poll with 100 ms timeouts, hand what arrives to `state`, reconnect every
    /// second after a drop, until stopped.
    private static func readLoop(connection initial: Int32, endpoint: GPSDEndpoint, reconnectTimeout: Double, state: GPSDClientState) {
        var connection: Int32? = initial
        var nextAttempt = 0.0
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while !state.isStopRequested {
            guard let connected = connection else {
                let now = monotonicNow()
                if now < nextAttempt {
                    _ = poll(nil, 0, 100)
                    continue
                }
                nextAttempt = now + 1
                if let reopened = try? endpoint.connectAndWatch(timeout: reconnectTimeout, shouldStop: { state.isStopRequested }) {
                    connection = reopened
                    state.lock.lock()
                    state.counters.reconnects += 1
                    state.lock.unlock()
                }
                continue
            }
            var descriptor = pollfd(fd: connected, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 100)
            if ready == 0 || (ready < 0 && errno == EINTR) { continue }
            var received = -1
            if ready > 0 {
                received = buffer.withUnsafeMutableBytes { recv(connected, $0.baseAddress, $0.count, 0) }
                if received < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { continue }
            }
            if received > 0 {
                state.lock.lock()
                state.receive(buffer[0..<received], arrival: monotonicNow())
                state.lock.unlock()
                continue
            }
            // End of stream or an error: drop the connection and the partial line with it.
            close(connected)
            connection = nil
            nextAttempt = monotonicNow() + 1
            state.lock.lock()
            state.splitter = GPSDLineSplitter()
            state.lock.unlock()
        }
        if let connection { close(connection) }
        state.readerFinished()
    }

    /// The frame pipeline's clock: seconds on the monotonic clock.
    static func monotonicNow() -> Double {
        Double(DispatchTime.now().uptimeNanoseconds) / 1e9
    }
}

/// What the client and its reading thread share, under `lock`.
private final class GPSDClientState: @unchecked Sendable {
    let lock = NSLock()
    var entries: [GPSDClient.Arrival] = []
    var counters = GPSDCounters()
    var splitter = GPSDLineSplitter()
    /// The mode of the last TPV, to count lost fixes.
    var lastMode: Int?
    /// Stop flag and reader state, under `finished`'s own lock.
    private let finished = NSCondition()
    private var stopRequested = false
    private var readerRunning: Bool

    init(readerRunning: Bool) {
        self.readerRunning = readerRunning
    }

    var isStopRequested: Bool {
        finished.lock()
        defer { finished.unlock() }
        return stopRequested
    }

    func stopAndWait() {
        finished.lock()
        defer { finished.unlock() }
        stopRequested = true
        while readerRunning { finished.wait() }
    }

    func readerFinished() {
        finished.lock()
        defer { finished.unlock() }
        readerRunning = false
        finished.broadcast()
    }

    /// Splits, parses and records bytes from gpsd (caller holds `lock`).
    func receive(_ bytes: some Collection<UInt8>, arrival: Double) {
        for piece in splitter.split(bytes) {
            switch piece {
            case .overlong:
                counters.garbled += 1
            case .line(let line):
                do {
                    if let report = try GPSDReport.parse(bytes: line) { record(report, arrival: arrival) }
                } catch {
                    counters.garbled += 1
                }
            }
        }
    }

    /// Stores a report in arrival order and drops what is past `retention` or `capacity` (caller holds `lock`).
    func record(_ report: GPSDReport, arrival: Double) {
        counters.reports += 1
        if let lastMode, lastMode >= 2, report.mode < 2 { counters.fixLost += 1 }
        lastMode = report.mode
        let entry = GPSDClient.Arrival(report: report, arrival: arrival)
        if let newest = entries.last, newest.arrival > arrival {
            // Out of order (only an injected report can be): keep the array sorted by arrival.
            entries.insert(entry, at: GPSDClient.lastIndex(in: entries, atOrBefore: arrival) + 1)
        } else {
            entries.append(entry)
        }
        let horizon = (entries.last?.arrival ?? arrival) - GPSDClient.retention
        let expired = GPSDClient.lastIndex(in: entries, atOrBefore: horizon) + 1
        let excess = max(expired, entries.count - GPSDClient.capacity)
        if excess > 0 { entries.removeFirst(excess) }
    }
}

/// Cuts a byte stream into lines (LF or CR LF), bounding a line to `GPSDReport.maxLineLength`: a
/// longer one is reported once and skipped up to its newline, so a peer that never sends a newline
/// cannot grow memory.
package struct GPSDLineSplitter: Sendable {
    /// A complete line, or the news that one was too long.
    package enum Piece: Sendable, Hashable {
        case line([UInt8])
        case overlong
    }

    private var pending: [UInt8] = []
    private var discarding = false

    package init() {}

    /// The pieces completed by `bytes`; empty lines are left out.
    package mutating func split(_ bytes: some Collection<UInt8>) -> [Piece] {
        var pieces: [Piece] = []
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                if !discarding && !pending.isEmpty {
                    if pending.last == UInt8(ascii: "\r") { pending.removeLast() }
                    if !pending.isEmpty { pieces.append(.line(pending)) }
                }
                pending.removeAll(keepingCapacity: true)
                discarding = false
            } else if !discarding {
                pending.append(byte)
                // One more byte than the limit allows for the CR of a CR LF.
                if pending.count > GPSDReport.maxLineLength + 1 {
                    pieces.append(.overlong)
                    pending.removeAll(keepingCapacity: true)
                    discarding = true
                }
            }
        }
        return pieces
    }
}

/// gpsd's address, resolved once (so that a reconnect never waits on DNS), and how to connect to it.
struct GPSDEndpoint: Sendable {
    let host: String
    let port: Int
    /// The resolved addresses as (family, sockaddr bytes).
    private let addresses: [(family: Int32, address: [UInt8])]

    init(host: String, port: Int) throws(GPSDError) {
        self.host = host
        self.port = port
        guard (1...65_535).contains(port) else { throw .cannotConnect(host: host, port: port, reason: "port out of range") }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0 else {
            throw .cannotConnect(host: host, port: port, reason: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(list) }
        var found: [(family: Int32, address: [UInt8])] = []
        var cursor = list
        while let info = cursor?.pointee {
            if let address = info.ai_addr, Int(info.ai_addrlen) <= MemoryLayout<sockaddr_storage>.size {
                let bytes = UnsafeRawBufferPointer(start: address, count: Int(info.ai_addrlen))
                found.append((info.ai_family, Array(bytes)))
            }
            cursor = info.ai_next
        }
        guard !found.isEmpty else { throw .cannotConnect(host: host, port: port, reason: "no address") }
        addresses = found
    }

    /// A connected, non-blocking socket that has sent the WATCH command, trying each address in turn
    /// within `timeout` seconds each; `shouldStop` is asked every 100 ms.
    func connectAndWatch(timeout: Double, shouldStop: () -> Bool) throws(GPSDError) -> Int32 {
        var failure = GPSDError.cannotConnect(host: host, port: port, reason: "no address")
        for (family, address) in addresses {
            let connection = Glibc.socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard connection >= 0 else {
                failure = .cannotConnect(host: host, port: port, reason: "connection: " + String(cString: strerror(errno)))
                continue
            }
            do throws(GPSDError) {
                try establish(connection, address: address, timeout: timeout, shouldStop: shouldStop)
                try sendWatch(connection, timeout: timeout, shouldStop: shouldStop)
                return connection
            } catch {
                close(connection)
                failure = error
            }
        }
        throw failure
    }

    private func establish(_ connection: Int32, address: [UInt8], timeout: Double, shouldStop: () -> Bool) throws(GPSDError) {
        let flags = fcntl(connection, F_GETFL)
        guard flags >= 0, fcntl(connection, F_SETFL, flags | O_NONBLOCK) == 0 else {
            throw .cannotConnect(host: host, port: port, reason: "fcntl: " + String(cString: strerror(errno)))
        }
        var storage = sockaddr_storage()
        address.withUnsafeBytes { source in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: source) } }
        let started = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(connection, $0, socklen_t(address.count)) }
        }
        if started == 0 { return }
        guard errno == EINPROGRESS || errno == EINTR else { throw failure(errno) }
        try waitUntilReady(connection, for: Int16(POLLOUT), timeout: timeout, shouldStop: shouldStop)
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(connection, SOL_SOCKET, SO_ERROR, &error, &length) == 0 else { throw failure(errno) }
        if error != 0 { throw failure(error) }
    }

    /// Sends `?WATCH={"enable":true,"json":true};` (MSG_NOSIGNAL: a closed peer must not raise SIGPIPE).
    private func sendWatch(_ connection: Int32, timeout: Double, shouldStop: () -> Bool) throws(GPSDError) {
        let command = Array("?WATCH={\"enable\":true,\"json\":true};\n".utf8)
        var offset = 0
        while offset < command.count {
            let sent = command.withUnsafeBytes { send(connection, $0.baseAddress?.advanced(by: offset), $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent > 0 {
                offset += sent
            } else if sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                try waitUntilReady(connection, for: Int16(POLLOUT), timeout: timeout, shouldStop: shouldStop)
            } else {
                throw failure(sent < 0 ? errno : EPIPE)
            }
        }
    }

    /// Polls in 100 ms slices until `socket` is ready for `events`, the time is up or `shouldStop`.
    private func waitUntilReady(_ connection: Int32, for events: Int16, timeout: Double, shouldStop: () -> Bool) throws(GPSDError) {
        let deadline = GPSDClient.monotonicNow() + max(timeout, 0)
        while true {
            let left = deadline - GPSDClient.monotonicNow()
            guard left > 0, !shouldStop() else { throw .timeout(host: host, port: port, seconds: timeout) }
            var descriptor = pollfd(fd: connection, events: events, revents: 0)
            let ready = poll(&descriptor, 1, Int32(min(left, 0.1) * 1000) + 1)
            if ready > 0 { return }
            if ready < 0 && errno != EINTR { throw failure(errno) }
        }
    }

    private func failure(_ code: Int32) -> GPSDError {
        code == ECONNREFUSED
            ? .refused(host: host, port: port)
            : .cannotConnect(host: host, port: port, reason: String(cString: strerror(code)))
    }
}
