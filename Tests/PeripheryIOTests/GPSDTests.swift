import Foundation
import PeripheryTestSupport
import Testing

@testable import PeripheryCore
@testable import PeripheryIO

/// Lines of gpsd's JSON protocol: a real gpsd 3.22 TPV line parsed exactly, the other classes
/// ignored, and every garbled or hostile line rejected with its reason.
@Suite struct GPSDReportParserTests {
    /// A TPV line exactly as gpsd 3.22 (Debian 3.22-4.1+deb12u1) wrote it, fed by `gpsfake` with an
    /// NMEA log from tools/nmea_from_location.py.
    static let gpsd322TPV =
        #"{"class":"TPV","device":"/dev/pts/1","mode":3,"time":"2024-06-01T12:00:03.900Z","ept":0.005,"#
        + #""lat":37.400404000,"lon":-122.099857000,"altHAE":50.0000,"altMSL":50.0000,"alt":50.0000,"track":21.7000,"#
        + #""magtrack":34.8350,"magvar":13.1,"speed":12.000,"climb":0.000,"geoidSep":0.000,"eph":19.000}"#

    @Test func aRealGpsd322TPVLineParsesExactly() throws {
        let report = try #require(try GPSDReport.parse(GPSDReportParserTests.gpsd322TPV))
        #expect(report.mode == 3 && report.hasFix)
        #expect(report.speed == 12.0 && report.track == 21.7 && report.device == "/dev/pts/1")
        // 2024-06-01T00:00:00Z is 1717200000 s after the epoch; + 12 h + 3.9 s. Tolerance 1 µs: the
        // sum of the whole seconds and the fraction may differ from the literal by one ulp (2.4e-7 s).
        let time = try #require(report.time)
        #expect(abs(time - 1_717_243_203.9) < 1e-6)
        // gpsd ends its lines with CR LF; a CR left on the line is whitespace.
        #expect(try GPSDReport.parse(GPSDReportParserTests.gpsd322TPV + "\r") == report)
    }

    @Test func tpvWithoutAFixOrOptionalMembersParses() throws {
        #expect(try GPSDReport.parse(#"{"class":"TPV","device":"/dev/ttyACM0","mode":1}"#) == GPSDReport(mode: 1, device: "/dev/ttyACM0"))
        #expect(try GPSDReport.parse(#"{"class":"TPV","mode":0}"#)?.hasFix == false)
        // The bounds themselves are accepted.
        let edge = try GPSDReport.parse(#"{"class":"TPV","mode":2,"speed":150,"track":360.0,"time":"2024-02-29T23:59:60.123456789Z"}"#)
        #expect(edge?.speed == 150 && edge?.track == 360)
        let leap = try #require(edge?.time)
        #expect(abs(leap - (1_709_251_200 + 0.123456789)) < 1e-6, "a leap second 60 runs into the next day")
        #expect(try GPSDReport.parse(#" { "class" : "TPV" , "mode" : 3 , "device" : "\/dev\/gps\u0030" } "#)?.device == "/dev/gps0")
    }

    /// Real lines of the other classes (gpsd 3.22's VERSION, DEVICES, WATCH, DEVICE as written during
    /// the end-to-end test; SKY as gpsd writes it for a receiver with satellites) and a class from the
    /// future: recognised and ignored, not garbled.
    @Test(arguments: [
        #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#,
        #"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/pts/1","activated":"2026-12-03T13:14:55.287Z","native":0,"#
            + #""bps":4800,"parity":"N","stopbits":1,"cycle":1.00}]}"#,
        #"{"class":"WATCH","enable":true,"json":true,"nmea":false,"raw":0,"scaled":false,"timing":false,"split24":false,"pps":false}"#,
        #"{"class":"DEVICE","path":"/dev/pts/1","driver":"NMEA0183","activated":"2026-12-03T13:14:55.307Z","native":0,"bps":4800,"#
            + #""parity":"N","stopbits":1,"cycle":1.00}"#,
        #"{"class":"SKY","device":"/dev/ttyACM0","time":"2024-06-01T12:00:04.000Z","xdop":0.54,"ydop":0.77,"vdop":1.03,"tdop":0.61,"#
            + #""hdop":0.93,"gdop":1.53,"pdop":1.39,"satellites":[{"PRN":5,"el":31.0,"az":86.0,"ss":39.0,"used":true},"#
            + #"{"PRN":13,"el":44.0,"az":59.0,"ss":0.0,"used":false}]}"#,
        #"{"class":"ERROR","message":"Can't parse the request"}"#,
        #"{"class":"FUTURE","mode":"anything","speed":"is not read"}"#,
    ])
    func otherClassesAreIgnored(line: String) throws {
        #expect(try GPSDReport.parse(line) == nil)
    }

    /// Each line and the reason it must be rejected with.
    static let rejected: [(line: String, reason: GPSDError)] = [
        (#"{"class":"TPV","mode":"3"}"#, .wrongType(field: "mode", expected: "an integer")),
        (#"{"class":"TPV","mode":true}"#, .wrongType(field: "mode", expected: "an integer")),
        (#"{"class":"TPV","mode":2.5}"#, .wrongType(field: "mode", expected: "an integer")),
        (#"{"class":"TPV","mode":3,"speed":"12"}"#, .wrongType(field: "speed", expected: "a number")),
        (#"{"class":"TPV","mode":3,"track":null}"#, .wrongType(field: "track", expected: "a number")),
        (#"{"class":"TPV","mode":3,"time":1717243200}"#, .wrongType(field: "time", expected: "a string")),
        (#"{"class":3,"mode":3}"#, .wrongType(field: "class", expected: "a string")),
        (#"{"class":"TPV","mode":3,"speed":NaN}"#, .notFinite(field: "speed")),
        (#"{"class":"TPV","mode":3,"speed":nan}"#, .notFinite(field: "speed")),
        (#"{"class":"TPV","mode":3,"track":Infinity}"#, .notFinite(field: "track")),
        (#"{"class":"TPV","mode":3,"speed":-inf}"#, .notFinite(field: "speed")),
        (#"{"class":"TPV","mode":3,"speed":1e400}"#, .notFinite(field: "speed")),
        (#"{"class":"TPV","mode":3,"speed":150.5}"#, .outOfRange(field: "speed", value: 150.5)),
        (#"{"class":"TPV","mode":3,"speed":3e8}"#, .outOfRange(field: "speed", value: 3e8)),
        (#"{"class":"TPV","mode":3,"speed":-1}"#, .outOfRange(field: "speed", value: -1)),
        (#"{"class":"TPV","mode":3,"track":361}"#, .outOfRange(field: "track", value: 361)),
        (#"{"class":"TPV","mode":7}"#, .outOfRange(field: "mode", value: 7)),
        (#"{"class":"TPV","mode":100000000000000000000}"#, .outOfRange(field: "mode", value: 1e20)),
        (#"{"class":"TPV","time":"2024-06-01T12:00:00.000Z"}"#, .missingField("mode")),
        (#"{"class":"TPV","mode":3,"time":"yesterday"}"#, .malformedTime("yesterday")),
        (#"{"class":"TPV","mode":3,"time":"2024-02-30T12:00:00.000Z"}"#, .malformedTime("2024-02-30T12:00:00.000Z")),
        (#"{"class":"TPV","mode":3,"time":"2024-06-01T12:00:00.000+02:00"}"#, .malformedTime("2024-06-01T12:00:00.000+02:00")),
        (#"{"class":"TPV","mode":3,"mode":2}"#, .duplicateField("mode")),
        (#"[{"class":"TPV","mode":3}]"#, .notAReport),
        (#"{"mode":3,"speed":12}"#, .notAReport),
        (#""TPV""#, .notAReport),
        (
            #"{"class":"SKY","satellites":"# + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "}",
            .nestedTooDeep(limit: GPSDReport.maxDepth)
        ),
    ]

    @Test(arguments: 0..<rejected.count)
    func hostileLinesAreRejectedWithTheirReason(case index: Int) {
        let (line, reason) = GPSDReportParserTests.rejected[index]
        #expect(throws: reason, "\(line)") { try GPSDReport.parse(line) }
    }

    /// Not JSON at all, or JSON cut short or followed by junk: `malformedJSON`, at a byte offset
    /// inside the line.
    @Test(arguments: [
        "", "hello", "{", #"{"class":"TPV","mode":3"#, #"{"class":"TPV","mode":3}garbage"#, #"{"class":"TPV","mode":03}"#,
        #"{"class":"TPV","mode":3,}"#, #"{'class':'TPV'}"#, #"{"class":"TPV","device":"\ud800"}"#, #"{"class":"TPV","device":"\x"}"#,
        "{\"class\":\"TPV\",\"device\":\"tab\there\"}", #"{"class":"TPV","mode":-}"#, #"{"class":"TPV","mode":1.}"#,
        #"{"class":"TPV","mode":3,"speed":-true}"#, "\u{0}",
    ])
    func linesThatAreNotJSONAreRejected(line: String) {
        #expect {
            try GPSDReport.parse(line)
        } throws: { error in
            guard case .malformedJSON(let offset, let reason) = error as? GPSDError else { return false }
            return (0...line.utf8.count).contains(offset) && !reason.isEmpty
        }
    }

    @Test func invalidUTF8IsRejected() {
        let bytes = Array(#"{"class":"TPV","device":""#.utf8) + [0xC3, 0x28] + Array(#"","mode":3}"#.utf8)
        #expect(throws: GPSDError.malformedJSON(offset: bytes.count - 10, reason: "string is not UTF-8")) {
            try GPSDReport.parse(bytes: bytes)
        }
    }

    @Test func linesOverEightKiBAreRejected() throws {
        let prefix = #"{"class":"TPV","mode":3,"pad":""#, suffix = #""}"#
        let fits = prefix + String(repeating: "x", count: GPSDReport.maxLineLength - prefix.utf8.count - suffix.utf8.count) + suffix
        #expect(fits.utf8.count == 8192)
        #expect(try GPSDReport.parse(fits)?.mode == 3)
        let over = prefix + "x" + String(fits.dropFirst(prefix.count))
        #expect(throws: GPSDError.lineTooLong(length: 8193, limit: 8192)) { try GPSDReport.parse(over) }
    }

    @Test func errorsNameTheirCause() {
        #expect("\(GPSDError.refused(host: "127.0.0.1", port: 2947))".contains("127.0.0.1:2947"))
        #expect("\(GPSDError.timeout(host: "gps.local", port: 2948, seconds: 5))".contains("gps.local:2948"))
        #expect("\(GPSDError.outOfRange(field: "speed", value: 200))".contains("speed"))
    }
}

/// The byte stream from gpsd: lines across reads, CR LF, an over-long line, counters.
@Suite struct GPSDStreamTests {
    @Test func linesSplitAcrossReadsAreReassembled() {
        let tpv = Array((GPSDReportParserTests.gpsd322TPV + "\r\n").utf8)
        let version = Array(#"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#.utf8) + [0x0A]
        let stream = version + tpv + Array("garbage\r\n\r\n".utf8) + tpv
        // Every cut position of the stream into two reads gives the same result.
        for cut in 0...stream.count {
            let client = GPSDClient.offline()
            client.receive(stream[..<cut], arrival: 1)
            client.receive(stream[cut...], arrival: 2)
            #expect(client.counters == GPSDCounters(reports: 2, garbled: 1), "cut at \(cut)")
            #expect(client.arrivals.map(\.report.speed) == [12, 12])
        }
    }

    @Test func anOverlongLineIsCountedOnceAndSkipped() {
        let client = GPSDClient.offline()
        // 100 KiB without a newline, in 1 KiB reads: one garbled line, memory bounded by the limit.
        for _ in 0..<100 { client.receive([UInt8](repeating: UInt8(ascii: "{"), count: 1024), arrival: 1) }
        client.receive(Array("\n".utf8) + Array((GPSDReportParserTests.gpsd322TPV + "\n").utf8), arrival: 2)
        #expect(client.counters == GPSDCounters(reports: 1, garbled: 1))
    }

    @Test func memoryIsBoundedToTheLastTenSeconds() {
        let client = GPSDClient.offline()
        for step in 0..<3000 {
            client.record(GPSDReport(mode: 3, speed: 10, track: 0), arrival: Double(step) * 0.01)
        }
        let kept = client.arrivals
        #expect(kept.count <= GPSDClient.capacity && (1000...1001).contains(kept.count), "the reports of 19.99 … 29.99 s")
        #expect((kept.first?.arrival ?? 0) >= 29.99 - GPSDClient.retention - 1e-9)
        #expect(client.counters.reports == 3000)
    }
}

/// The ego rule over injected reports: the constant-twist arc of `EgoDelta.arc`, as a recorded
/// drive computes it; nil without a usable fix.
@Suite struct GPSDEgoMotionTests {
    /// 10 Hz reports at `speed` with the course turning `turn` degrees per second (clockwise, as
    /// gpsd's track), GPS time `offset` seconds ahead of the monotonic arrival times 100 … 100 + 0.1·(n−1).
    func client(speed: Double, startTrack: Double, turn: Double, count: Int = 40, offset: Double = 1_717_243_200) -> GPSDClient {
        let client = GPSDClient.offline()
        for step in 0..<count {
            let t = 100 + Double(step) * 0.1
            var track = (startTrack + turn * Double(step) * 0.1).truncatingRemainder(dividingBy: 360)
            if track < 0 { track += 360 }
            client.record(GPSDReport(mode: 3, time: offset + t - 100, speed: speed, track: track, device: "/dev/ttyACM0"), arrival: t)
        }
        return client
    }

    func expectClose(_ delta: EgoDelta?, _ expected: EgoDelta, tolerance: Double = 1e-9, _ note: String = "") {
        guard let delta else {
            Issue.record("no ego delta \(note)")
            return
        }
        #expect(abs(delta.dx - expected.dx) <= tolerance && abs(delta.dy - expected.dy) <= tolerance, "\(delta) vs \(expected) \(note)")
        #expect(abs(delta.dyaw - expected.dyaw) <= tolerance && abs(delta.dt - expected.dt) <= 1e-12, "\(delta) vs \(expected) \(note)")
        #expect(delta.valid)
    }

    /// A turn at 3°/s through north (right: track 350° → 11.7°, left: 10° → 358.3°, so the wrap at
    /// 360° is crossed), frames at 30 Hz, so that some frame intervals hold a report and some none.
    /// Tolerance 1e-7 m and rad: GPS times near 1.7e9 s are rounded to 2.4e-7 s, a relative 5e-6 on a
    /// 0.1 s interval between reports, so the rate is off by up to 3e-7 rad/s.
    @Test(arguments: [(3.0, 350.0, "right"), (-3.0, 10.0, "left")])
    func constantSpeedAndTurnGiveTheArc(turn: Double, start: Double, side: String) {
        let client = client(speed: 12, startTrack: start, turn: turn)
        let yawRate = -turn * .pi / 180
        var frame = 100.5
        while frame + 1 / 30 < 103.8 {
            let next = frame + 1 / 30
            let expected = EgoDelta.arc(speed: 12, yawRate: yawRate, dt: next - frame)
            expectClose(client.egoDelta(from: frame, to: next), expected, tolerance: 1e-7, "at \(next)")
            frame = next
        }
        let second = client.egoDelta(from: 102, to: 103)
        // ISO 8855: a left turn is counter-clockwise, positive yaw, and drifts the ego left (+y).
        #expect(side == "left" ? (second?.dyaw ?? 0) > 0 && (second?.dy ?? 0) > 0 : (second?.dyaw ?? 0) < 0 && (second?.dy ?? 0) < 0)
        #expect(client.speed(at: 103) == 12)
    }

    /// gpsd repeats an epoch (a 2-D TPV, then the 3-D one with the same time): the repeat is not a
    /// zero-length interval, and the rate is still the true one.
    @Test func aRepeatedEpochDoesNotDisturbTheRate() {
        let client = GPSDClient.offline()
        for step in 0..<10 {
            let t = 100 + Double(step) * 0.1, track = 20 + 3 * Double(step) * 0.1
            client.record(GPSDReport(mode: 2, time: t, speed: 12, track: track), arrival: t)
            client.record(GPSDReport(mode: 3, time: t, speed: 12, track: track), arrival: t + 0.002)
        }
        let yawRate = -3 * Double.pi / 180
        expectClose(client.egoDelta(from: 100.45, to: 100.85), EgoDelta.arc(speed: 12, yawRate: yawRate, dt: 100.85 - 100.45))
        expectClose(client.egoDelta(from: 100.61, to: 100.62), EgoDelta.arc(speed: 12, yawRate: yawRate, dt: 100.62 - 100.61))
    }

    @Test func aLostFixGivesNil() {
        let client = client(speed: 12, startTrack: 90, turn: 0, count: 10)
        #expect(client.egoDelta(from: 100.85, to: 100.9) != nil)
        client.record(GPSDReport(mode: 1, time: 1_717_243_201, device: "/dev/ttyACM0"), arrival: 101.0)
        #expect(client.egoDelta(from: 100.95, to: 101.0) == nil)
        #expect(client.speed(at: 101.0) == nil)
        #expect(client.egoDelta(from: 100.85, to: 100.9) != nil, "before the loss, the fix was good")
        #expect(client.counters.fixLost == 1)
        // A fix again: the speed at once, the turn once two fixes give a rate (not across the loss).
        client.record(GPSDReport(mode: 3, time: 1_717_243_201.1, speed: 12, track: 90, device: "/dev/ttyACM0"), arrival: 101.1)
        #expect(client.speed(at: 101.1) == 12 && client.egoDelta(from: 101.05, to: 101.1) == nil)
        client.record(GPSDReport(mode: 3, time: 1_717_243_201.2, speed: 12, track: 90, device: "/dev/ttyACM0"), arrival: 101.2)
        expectClose(client.egoDelta(from: 101.15, to: 101.2), EgoDelta.arc(speed: 12, yawRate: 0, dt: 101.2 - 101.15))
        client.record(GPSDReport(mode: 0, device: "/dev/ttyACM0"), arrival: 101.3)
        #expect(client.counters.fixLost == 2 && client.egoDelta(from: 101.25, to: 101.3) == nil)
    }

    /// The last report arrived at 100.9: usable up to 2 s later (limit 2 s, the recorded-drive rule's;
    /// the times probed stay 0.01 s or more clear of it).
    @Test func reportsOlderThanTwoSecondsGiveNil() {
        let client = client(speed: 12, startTrack: 90, turn: 1, count: 10)
        #expect(client.egoDelta(from: 102.8, to: 102.85) != nil)
        #expect(client.egoDelta(from: 102.85, to: 102.91) == nil)
        #expect(client.speed(at: 102.89) == 12 && client.speed(at: 102.91) == nil)
        #expect(client.egoDelta(from: 99.0, to: 99.5) == nil, "before the first report")
        #expect(GPSDClient.offline().egoDelta(from: 0, to: 1) == nil, "no reports")
        #expect(client.egoDelta(from: 100.5, to: 100.5) == nil && client.egoDelta(from: 100.6, to: 100.5) == nil, "no time")
    }

    /// Below 0.5 m/s the course is noise: a wildly swinging track gives no turn.
    @Test func atWalkingPaceTheCourseIsIgnored() {
        let client = GPSDClient.offline()
        for step in 0..<10 {
            let t = 100 + Double(step) * 0.1
            client.record(GPSDReport(mode: 3, time: t, speed: 0.3, track: step.isMultiple(of: 2) ? 10 : 190), arrival: t)
        }
        expectClose(client.egoDelta(from: 100.5, to: 100.8), EgoDelta.arc(speed: 0.3, yawRate: 0, dt: 100.8 - 100.5))
    }

    /// A step back in GPS time (a replayed log starting over) is no interval to turn over.
    @Test func timeGoingBackGivesNoRate() {
        let client = GPSDClient.offline()
        client.record(GPSDReport(mode: 3, time: 200, speed: 12, track: 40), arrival: 100)
        client.record(GPSDReport(mode: 3, time: 188, speed: 12, track: 10), arrival: 100.1)
        #expect(client.egoDelta(from: 100.05, to: 100.1) == nil)
        client.record(GPSDReport(mode: 3, time: 188.1, speed: 12, track: 10.3), arrival: 100.2)
        let expected = EgoDelta.arc(speed: 12, yawRate: -3 * .pi / 180, dt: 100.2 - 100.15)
        expectClose(client.egoDelta(from: 100.15, to: 100.2), expected, tolerance: 1e-9)
    }
}

/// The socket side against a fake gpsd in the test: the WATCH command, reconnecting after a drop,
/// a refused connection, and `stop()` returning promptly from a silent gpsd.
@Suite struct GPSDConnectionTests {
    @Test func refusedAndBadPortsAreTypedErrors() throws {
        let port = try LoopbackListener.freePort()
        #expect(throws: GPSDError.refused(host: "127.0.0.1", port: port)) { try GPSDClient(port: port, connectTimeout: 1) }
        #expect(throws: GPSDError.cannotConnect(host: "127.0.0.1", port: 70_000, reason: "port out of range")) {
            try GPSDClient(port: 70_000)
        }
    }

    /// A gpsd whose accept queue is full: Linux drops the SYN, the connection never completes, and the
    /// client gives up after its connect timeout (0.3 s; the test allows 0.3 … 1.5 s).
    @Test func aConnectionThatNeverCompletesTimesOut() throws {
        let server = try LoopbackListener(backlog: 0)
        let filler = try GPSDClient(port: server.port, connectTimeout: 1)
        defer { filler.stop() }
        let started = Date()
        #expect(throws: GPSDError.timeout(host: "127.0.0.1", port: server.port, seconds: 0.3)) {
            try GPSDClient(port: server.port, connectTimeout: 0.3)
        }
        let took = Date().timeIntervalSince(started)
        #expect(took >= 0.3 && took < 1.5, "gave up after \(took) s")
    }

    @Test func sendsWatchReconnectsAfterADropAndStopsPromptly() throws {
        let server = try LoopbackListener()
        let client = try GPSDClient(host: "127.0.0.1", port: server.port, connectTimeout: 2)
        let watch = #"?WATCH={"enable":true,"json":true};"# + "\n"
        // First connection: the command, two reports, then gpsd goes away.
        let first = try #require(server.nextConnection(within: 2))
        #expect(server.receiveLine(first, within: 2) == watch)
        server.transmit(first, GPSDReportParserTests.gpsd322TPV + "\r\n" + GPSDReportParserTests.gpsd322TPV + "\r\n")
        close(first)
        // The client tries again a second later (limit 3 s).
        let second = try #require(server.nextConnection(within: 3))
        #expect(server.receiveLine(second, within: 2) == watch)
        server.transmit(second, "not json\r\n" + GPSDReportParserTests.gpsd322TPV + "\r\n")
        let deadline = Date().addingTimeInterval(2)
        while client.counters.reports < 3 && Date() < deadline { usleep(10_000) }
        #expect(client.counters == GPSDCounters(reports: 3, garbled: 1, fixLost: 0, reconnects: 1))
        // gpsd now silent, the connection open: stop returns within 0.5 s (the poll timeout is 0.1 s).
        let started = Date()
        client.stop()
        let took = Date().timeIntervalSince(started)
        #expect(took < 0.5, "stop took \(took) s")
        client.stop()
        // Closed by the client: the server reads the end of the stream.
        #expect(server.receiveLine(second, within: 1) == "")
        close(second)
    }
}

/// A real gpsd (Debian's gpsd 3.22 through `gpsfake`) replaying an NMEA log written by
/// tools/nmea_from_location.py from a drive's location.csv: 12 s at 10 Hz, 12 m/s, the course turning
/// right at 3°/s. gpsfake feeds gpsd through a pseudo-terminal (neither -t nor -u), and gpsd, without
/// -G, listens on loopback only (checked below), so nothing leaves the machine.
@Suite(.serialized) struct GPSDEndToEndTests {
    static let gpsfake = "/usr/bin/gpsfake", gpsd = "/usr/sbin/gpsd"
    static var installed: Bool {
        FileManager.default.isExecutableFile(atPath: gpsfake) && FileManager.default.isExecutableFile(atPath: gpsd)
    }

    @Test func nmeaToolSelfTestPasses() throws {
        let output = try GPSDEndToEndTests.python(["tools/nmea_from_location.py", "--self-test"])
        #expect(output.contains("self-test: passed"))
    }

    @Test(.enabled(if: GPSDEndToEndTests.installed, "needs Debian's gpsd and gpsd-clients (gpsfake)"), .timeLimit(.minutes(1)))
    func liveEgoMotionFromGpsfake() throws {
        let started = Date()
        let folder = try scratchFolder("gpsd")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let speed = 12.0, turn = 3.0
        try GPSDEndToEndTests.locationCSV(speed: speed, turn: turn).write(toFile: folder + "/location.csv", atomically: true, encoding: .utf8)
        _ = try GPSDEndToEndTests.python(["tools/nmea_from_location.py", folder + "/location.csv", "--out", folder + "/drive.nmea"])

        let port = try LoopbackListener.freePort()
        let fake = try GPSFake(log: folder + "/drive.nmea", port: port, folder: folder)
        defer { fake.terminate() }

        // gpsd listens once gpsfake has started it; keep trying for up to 20 s in all.
        let deadline = started.addingTimeInterval(20)
        var connected: GPSDClient?
        while connected == nil && Date() < deadline && fake.isRunning {
            do { connected = try GPSDClient(host: "127.0.0.1", port: port, connectTimeout: 1) } catch { usleep(100_000) }
        }
        let client = try #require(connected, "no gpsd at 127.0.0.1:\(port) within 20 s; gpsfake said: \(fake.errors)")
        let connectedAfter = Date().timeIntervalSince(started)
        defer { client.stop() }
        let listening = try GPSDEndToEndTests.listeningAddresses(port: port)
        #expect(!listening.isEmpty && listening.allSatisfy(GPSDEndToEndTests.isLoopback), "gpsd listens on loopback only: \(listening)")

        // 15 fixes (1.5 s of the log) with a speed.
        while client.arrivals.filter({ $0.report.hasFix && $0.report.speed != nil }).count < 15 && Date() < deadline { usleep(50_000) }
        let arrivals = client.arrivals
        let reportsAfter = Date().timeIntervalSince(started)
        try #require(arrivals.filter { $0.report.hasFix && $0.report.speed != nil }.count >= 15, "reports: \(client.counters)")
        let last = try #require(arrivals.last)

        // Speed: the log's 12 m/s through knots with 3 decimals (±0.0003 m/s); tolerance 0.05 m/s.
        let measured = try #require(client.speed(at: last.arrival))
        #expect(abs(measured - speed) <= 0.05, "speed \(measured)")
        // Yaw rate over the last second of reports (or what there is of it), and frame by frame:
        // −3°/s (right turn), tolerance 0.5°/s (course written to 0.01° at 10 Hz: ±0.1°/s a pair).
        let window = try #require(client.egoDelta(from: max(arrivals[0].arrival, last.arrival - 1), to: last.arrival))
        let rate = window.dyaw / window.dt * 180 / .pi
        #expect(abs(rate - -turn) <= 0.5, "yaw rate \(rate)°/s over \(window.dt) s")
        #expect(abs((window.speed ?? 0) - speed) <= 0.05)
        let frame = try #require(client.egoDelta(from: last.arrival - 1.0 / 30, to: last.arrival))
        #expect(abs(frame.dyaw / frame.dt * 180 / .pi - -turn) <= 0.5, "one frame: \(frame)")
        #expect(client.counters.garbled == 0 && client.counters.fixLost == 0, "\(client.counters)")

        client.stop()
        fake.terminate()
        #expect(!fake.isRunning)
        #expect(throws: GPSDError.refused(host: "127.0.0.1", port: port), "gpsd is gone with gpsfake") {
            try GPSDClient(host: "127.0.0.1", port: port, connectTimeout: 1)
        }
        print(
            String(
                format: "gpsd end to end: connected after %.1f s, 15 fixes after %.1f s, done after %.1f s; ", connectedAfter, reportsAfter,
                Date().timeIntervalSince(started)) + "\(arrivals.count) reports, speed \(measured) m/s, yaw rate \(rate)°/s"
                + (fake.killed ? "; gpsfake ignored SIGTERM for 5 s and was killed" : ""))
    }

    /// location.csv at 10 Hz for 12 s, t from 0 and no wall time (the tool then starts at its fixed
    /// epoch); the position integrates the speed along the course, so that gpsd sees a consistent track.
    static func locationCSV(speed: Double, turn: Double) -> String {
        var csv = "t,t_wall,lat,lon,alt,h_acc,v_acc,speed,speed_acc,course,course_acc\n"
        var north = 0.0, east = 0.0
        for step in 0...120 {
            let t = Double(step) / 10, course = 10 + turn * t
            let lat = 37.4 + north / 111_320, lon = -122.1 + east / (111_320 * cos(37.4 * .pi / 180))
            csv += String(format: "%.1f,,%.8f,%.8f,50.0,5,3,%.3f,0.3,%.3f,1\n", t, lat, lon, speed, course)
            north += speed * 0.1 * cos(course * .pi / 180)
            east += speed * 0.1 * sin(course * .pi / 180)
        }
        return csv
    }

    /// Runs python3 from the repository root; its standard output, or an error with its standard error.
    static func python(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        process.currentDirectoryURL = repositoryRoot
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw GPSFake.Failure(description: "python3 \(arguments): \(message)") }
        return text
    }

    /// Local addresses (hex, as /proc/net/tcp{,6} writes them) of the sockets listening on `port`.
    static func listeningAddresses(port: Int) throws -> [String] {
        let portHex = String(format: "%04X", port)
        var found: [String] = []
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                guard fields.count > 3, fields[3] == "0A" else { continue }
                let local = fields[1].split(separator: ":")
                if local.count == 2, local[1] == portHex { found.append(String(local[0])) }
            }
        }
        return found
    }

    /// 127.0.0.1 (little-endian hex) or ::1.
    static func isLoopback(_ hex: String) -> Bool {
        hex == "0100007F" || hex == "00000000000000000000000001000000"
    }
}

/// gpsfake under coreutils' `timeout`: `timeout` puts itself, gpsfake and the gpsd gpsfake starts in
/// a process group of their own, so that one signal to the group ends all three, and it ends them
/// itself after 60 s (SIGKILL 5 s later) should this test process die without its `defer`.
///
/// Spawned with `posix_spawn` rather than `Process`: a child inherits the spawning thread's signal
/// mask, and the test's threads block SIGTERM, so gpsfake would never see it (and could not stop its
/// gpsd); here the child starts with no signal blocked and the terminating signals at their defaults.
final class GPSFake: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private let pid: pid_t
    private let errorsPath: String
    private let lock = NSLock()
    private var exited = false
    /// Whether the last `terminate()` had to SIGKILL the group: SIGTERM left something running for 5 s.
    private(set) var killed = false

    /// `timeout -k 5 60 gpsfake -q -P PORT -c 0.05 LOG`: a sentence every 50 ms (RMC and GGA: one
    /// 10 Hz fix per 0.1 s), the log cycled until stopped; its control socket in `folder` (TMPDIR).
    init(log: String, port: Int, folder: String) throws {
        errorsPath = folder + "/gpsfake.log"
        let arguments = ["/usr/bin/timeout", "-k", "5", "60", GPSDEndToEndTests.gpsfake, "-q", "-P", String(port), "-c", "0.05", log]
        let environment = ["PATH=/usr/sbin:/usr/bin:/sbin:/bin", "TMPDIR=" + folder, "LANG=C.UTF-8"]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errorsPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var mask = sigset_t(), defaults = sigset_t()
        sigemptyset(&mask)
        sigemptyset(&defaults)
        for number in [SIGTERM, SIGINT, SIGHUP, SIGPIPE] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = arguments.map { strdup($0) } + [nil], envp = environment.map { strdup($0) } + [nil]
        defer { for string in argv + envp { free(string) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, arguments[0], &actions, &attributes, argv, envp)
        guard status == 0 else { throw Failure(description: "posix_spawn timeout gpsfake: \(String(cString: strerror(status)))") }
        pid = child
    }

    /// Whether `timeout` (and so gpsfake) is still running; reaps it once it has exited.
    var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        if !exited {
            var status: Int32 = 0
            exited = waitpid(pid, &status, WNOHANG) == pid
        }
        return !exited
    }

    /// What gpsfake and gpsd wrote to standard error.
    var errors: String { (try? String(contentsOfFile: errorsPath, encoding: .utf8)) ?? "" }

    /// SIGTERM to the group (gpsfake then stops its gpsd), SIGKILL to what is left of it after 5 s;
    /// returns once `timeout` has exited and been reaped. Safe to call more than once.
    func terminate() {
        if isRunning { kill(-pid, SIGTERM) }
        let deadline = Date().addingTimeInterval(5)
        while isRunning && Date() < deadline { usleep(10_000) }
        // The group outlives `timeout` while gpsd is still in it; kill(-pid, 0) fails once it is empty.
        if isRunning || kill(-pid, 0) == 0 {
            killed = killed || isRunning
            kill(-pid, SIGKILL)
        }
        while isRunning { usleep(10_000) }
    }
}

/// A listening TCP socket on 127.0.0.1 for the connection tests: a stand-in gpsd.
final class LoopbackListener: @unchecked Sendable {
    let port: Int
    private let listener: Int32

    /// Listening with room for `backlog` + 1 connections not yet accepted (Linux's rule).
    init(backlog: Int32 = 4) throws {
        (listener, port) = try LoopbackListener.bound()
        guard listen(listener, backlog) == 0 else { throw GPSFake.Failure(description: "listen: \(errno)") }
    }

    deinit {
        close(listener)
    }

    /// A port nothing listens on (bound, then released).
    static func freePort() throws -> Int {
        let (descriptor, port) = try bound()
        close(descriptor)
        return port
    }

    private static func bound() throws -> (Int32, Int) {
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw GPSFake.Failure(description: "socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        guard bound else {
            close(descriptor)
            throw GPSFake.Failure(description: "bind: \(errno)")
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// The next connection, or nil after `seconds`.
    func nextConnection(within seconds: Double) -> Int32? {
        var waiting = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        guard poll(&waiting, 1, Int32(seconds * 1000)) == 1 else { return nil }
        let connection = Glibc.accept(listener, nil, nil)
        return connection >= 0 ? connection : nil
    }

    /// What arrives on `connection` up to the first newline, the end of the stream ("") or `seconds`.
    func receiveLine(_ connection: Int32, within seconds: Double) -> String? {
        var bytes: [UInt8] = []
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            var descriptor = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 50) == 1 else { continue }
            var byte: UInt8 = 0
            guard recv(connection, &byte, 1, 0) == 1 else { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
        }
        return nil
    }

    func transmit(_ connection: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }
}
