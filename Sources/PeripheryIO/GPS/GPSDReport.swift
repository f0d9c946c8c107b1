/// One gpsd TPV ("time-position-velocity") report, reduced to what ego motion needs, and the strict
/// parser of one line of gpsd's JSON protocol (https://gpsd.io/gpsd_json.html).
///
/// gpsd writes one JSON object per line, `{"class":"TPV","device":"/dev/ttyACM0","mode":3,
/// "time":"2024-06-01T12:00:04.100Z",…,"track":22.3000,…,"speed":12.000,…}`; the other classes
/// (VERSION, DEVICES, DEVICE, WATCH, SKY, GST, ATT, PPS, TOFF, ERROR, …) carry nothing ego motion
/// uses and are recognised and ignored. The parser is bounded, because the line comes from a socket:
/// at most `maxLineLength` bytes, at most `maxDepth` levels of nesting, no recursion beyond that, and
/// every rejection is a `GPSDError` that says why, never a trap.
public struct GPSDReport: Sendable, Hashable {
    /// gpsd's fix mode: 0 unknown, 1 no fix, 2 two-dimensional, 3 three-dimensional.
    public var mode: Int
    /// UTC time of the fix, seconds since 1970-01-01 (from the ISO 8601 `time`); nil when absent.
    public var time: Double?
    /// Speed over ground, m/s; nil when absent.
    public var speed: Double?
    /// Course over ground, degrees clockwise from true north in [0, 360]; nil when absent.
    public var track: Double?
    /// The receiver's device path, which tells reports of two receivers on one gpsd apart.
    public var device: String?

    /// Creates a report from its fields (tests and replays; gpsd's lines go through `parse`).
    public init(mode: Int, time: Double? = nil, speed: Double? = nil, track: Double? = nil, device: String? = nil) {
        self.mode = mode
        self.time = time
        self.speed = speed
        self.track = track
        self.device = device
    }

    /// Whether the receiver had a 2-D or 3-D fix (mode ≥ 2): only then do speed and track mean anything.
    public var hasFix: Bool { mode >= 2 }

    /// The longest line accepted, bytes without the newline; gpsd's longest (SKY with many
    /// satellites) stay well under it.
    public static let maxLineLength = 8192
    /// The deepest nesting of arrays and objects accepted; gpsd nests two levels (DEVICES, SKY).
    public static let maxDepth = 16
    /// The highest plausible ground speed, m/s (540 km/h): anything faster is a broken receiver or a
    /// hostile line, and would throw the tracker's ego motion far off.
    public static let maxSpeed = 150.0

    /// Parses one line of gpsd's JSON protocol (without its newline; a trailing CR is allowed).
    ///
    /// Returns the report of a TPV line and nil for a line of any other class. Throws when the line is
    /// not a JSON object with a string `class`, or a TPV line has a missing `mode`, a member of the
    /// wrong type, a number that is not finite, an implausible value or a malformed time.
    public static func parse(_ line: String) throws(GPSDError) -> GPSDReport? {
        try parse(bytes: Array(line.utf8))
    }

    /// Parses one line given as bytes; see `parse(_:)`.
    public static func parse(bytes line: some Collection<UInt8>) throws(GPSDError) -> GPSDReport? {
        guard line.count <= maxLineLength else { throw .lineTooLong(length: line.count, limit: maxLineLength) }
        var scanner = GPSDLineScanner(bytes: Array(line))
        let members = try scanner.topLevelObject()
        guard let members else { throw .notAReport }
        guard let classValue = members["class"] else { throw .notAReport }
        guard case .string(let className) = classValue else { throw .wrongType(field: "class", expected: "a string") }
        guard className == "TPV" else { return nil }
        return try tpv(members)
    }

    /// The report of a TPV object's members.
    static func tpv(_ members: [String: GPSDLineScanner.Value]) throws(GPSDError) -> GPSDReport {
        guard let modeValue = members["mode"] else { throw .missingField("mode") }
        guard case .number(let modeNumber, let integral) = modeValue, integral else { throw .wrongType(field: "mode", expected: "an integer") }
        guard (0...3).contains(modeNumber) else { throw .outOfRange(field: "mode", value: modeNumber) }
        var report = GPSDReport(mode: Int(modeNumber))
        if let value = members["time"] {
            guard case .string(let text) = value else { throw .wrongType(field: "time", expected: "a string") }
            guard let seconds = GPSDReport.unixTime(iso8601: text) else { throw .malformedTime(String(text.prefix(40))) }
            report.time = seconds
        }
        report.speed = try number(members, "speed", in: 0...maxSpeed)
        report.track = try number(members, "track", in: 0...360)
        if let value = members["device"] {
            guard case .string(let path) = value else { throw .wrongType(field: "device", expected: "a string") }
            report.device = path
        }
        return report
    }

    /// An optional finite number member within `range`.
    static func number(_ members: [String: GPSDLineScanner.Value], _ field: String, in range: ClosedRange<Double>) throws(GPSDError) -> Double? {
        guard let value = members[field] else { return nil }
        guard case .number(let number, _) = value else { throw .wrongType(field: field, expected: "a number") }
        guard range.contains(number) else { throw .outOfRange(field: field, value: number) }
        return number
    }

    /// Seconds since 1970-01-01T00:00:00Z of gpsd's `YYYY-MM-DDTHH:MM:SS[.fraction]Z` (fraction of 1
    /// to 9 digits), nil for anything else. Hand-written rather than a DateFormatter: strict, with no
    /// locale or shared state, and cheap enough for every report.
    public static func unixTime(iso8601 text: String) -> Double? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.count <= 30, bytes.last == UInt8(ascii: "Z") else { return nil }
        func digits(_ start: Int, _ count: Int) -> Int? {
            var value = 0
            for byte in bytes[start..<start + count] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        let separators: [(offset: Int, byte: UInt8)] = [
            (4, UInt8(ascii: "-")), (7, UInt8(ascii: "-")), (10, UInt8(ascii: "T")), (13, UInt8(ascii: ":")), (16, UInt8(ascii: ":")),
        ]
        guard separators.allSatisfy({ bytes[$0.offset] == $0.byte }),
            let year = digits(0, 4), let month = digits(5, 2), let day = digits(8, 2),
            let hour = digits(11, 2), let minute = digits(14, 2), let second = digits(17, 2),
            (1...12).contains(month), hour < 24, minute < 60, second <= 60
        else { return nil }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let monthDays = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...monthDays[month - 1]).contains(day) else { return nil }
        var fraction = 0.0
        if bytes.count > 20 {
            // ".d…dZ": 1 to 9 digits between the point and the Z.
            let count = bytes.count - 21
            guard bytes[19] == UInt8(ascii: "."), (1...9).contains(count), let value = digits(20, count) else { return nil }
            var scale = 1.0
            for _ in 0..<count { scale *= 10 }
            fraction = Double(value) / scale
        }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        return Double(days * 86_400 + hour * 3_600 + minute * 60 + second) + fraction
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's days_from_civil).
    static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

/// A strict JSON reader for one gpsd line (RFC 8259 grammar), keeping only the top-level object's
/// scalar members. Nested arrays and objects are checked and skipped; nesting is bounded by
/// `GPSDReport.maxDepth`, so the recursion is too. Foundation's JSONSerialization is not used because
/// it turns booleans into numbers (so `"mode":true` would read as 1) and leaves nesting unbounded.
struct GPSDLineScanner {
    /// What the parser keeps of a member's value.
    enum Value: Equatable {
        case string(String)
        /// A finite number; `integral` when written without a fraction or exponent.
        case number(Double, integral: Bool)
        case bool(Bool)
        case null
        /// An array or an object (checked, not kept).
        case composite
    }

    let bytes: [UInt8]
    var index = 0
    /// The top-level member being read, to name the field of a non-finite number.
    var member = ""

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The members of the line's top-level object, or nil when the line is valid JSON but not an object.
    mutating func topLevelObject() throws(GPSDError) -> [String: Value]? {
        skipWhitespace()
        guard index < bytes.count else { throw malformed("no value") }
        var members: [String: Value]? = nil
        if bytes[index] == UInt8(ascii: "{") {
            index += 1
            var found: [String: Value] = [:]
            try objectBody(depth: 1) { (key: String, value: Value) throws(GPSDError) in
                guard found.updateValue(value, forKey: key) == nil else { throw .duplicateField(String(key.prefix(40))) }
            }
            members = found
        } else {
            _ = try value(depth: 0)
        }
        skipWhitespace()
        guard index == bytes.count else { throw malformed("characters after the value") }
        return members
    }

    /// An object's members after its `{`, through its `}`; each (key, value) goes to `take`.
    mutating func objectBody(depth: Int, take: (String, Value) throws(GPSDError) -> Void) throws(GPSDError) {
        guard depth <= GPSDReport.maxDepth else { throw .nestedTooDeep(limit: GPSDReport.maxDepth) }
        skipWhitespace()
        if consume(UInt8(ascii: "}")) { return }
        while true {
            skipWhitespace()
            guard consume(UInt8(ascii: "\"")) else { throw malformed("expected a member name") }
            let key = try string()
            if depth == 1 { member = key }
            skipWhitespace()
            guard consume(UInt8(ascii: ":")) else { throw malformed("expected ':'") }
            let element = try value(depth: depth)
            try take(key, element)
            skipWhitespace()
            if consume(UInt8(ascii: ",")) { continue }
            guard consume(UInt8(ascii: "}")) else { throw malformed("expected ',' or '}'") }
            return
        }
    }

    /// An array's elements after its `[`, through its `]`.
    mutating func arrayBody(depth: Int) throws(GPSDError) {
        guard depth <= GPSDReport.maxDepth else { throw .nestedTooDeep(limit: GPSDReport.maxDepth) }
        skipWhitespace()
        if consume(UInt8(ascii: "]")) { return }
        while true {
            _ = try value(depth: depth)
            skipWhitespace()
            if consume(UInt8(ascii: ",")) { continue }
            guard consume(UInt8(ascii: "]")) else { throw malformed("expected ',' or ']'") }
            return
        }
    }

    /// One value at nesting `depth` (of its container).
    mutating func value(depth: Int) throws(GPSDError) -> Value {
        skipWhitespace()
        guard index < bytes.count else { throw malformed("unexpected end of line") }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            index += 1
            try objectBody(depth: depth + 1) { (_: String, _: Value) throws(GPSDError) in }
            return .composite
        case UInt8(ascii: "["):
            index += 1
            try arrayBody(depth: depth + 1)
            return .composite
        case UInt8(ascii: "\""):
            index += 1
            return .string(try string())
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try number()
        default:
            return try word()
        }
    }

    /// `true`, `false`, `null`; NaN and infinities in their usual spellings are named as such
    /// (they are not JSON, but a buggy producer's printf writes them), anything else is malformed.
    mutating func word() throws(GPSDError) -> Value {
        let start = index
        while index < bytes.count, isLetter(bytes[index]) { index += 1 }
        switch String(decoding: bytes[start..<index], as: UTF8.self) {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "null": return .null
        case "NaN", "nan", "Infinity", "inf": throw .notFinite(field: String(member.prefix(40)))
        default:
            index = start
            throw malformed("unexpected character")
        }
    }

    /// A number by the JSON grammar `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
    mutating func number() throws(GPSDError) -> Value {
        let start = index
        _ = consume(UInt8(ascii: "-"))
        if index < bytes.count, isLetter(bytes[index]) {
            // "-Infinity", "-inf", "-nan".
            _ = try word()
        }
        if consume(UInt8(ascii: "0")) {
            // A leading zero stands alone: "012" is not JSON.
        } else {
            guard digitRun() > 0 else { throw malformed("expected a digit") }
        }
        var integral = true
        if consume(UInt8(ascii: ".")) {
            integral = false
            guard digitRun() > 0 else { throw malformed("expected a digit after '.'") }
        }
        if consume(UInt8(ascii: "e")) || consume(UInt8(ascii: "E")) {
            integral = false
            if !consume(UInt8(ascii: "+")) { _ = consume(UInt8(ascii: "-")) }
            guard digitRun() > 0 else { throw malformed("expected an exponent") }
        }
        // The grammar above admits only what Double(_:) reads; 1e400 reads as infinity.
        guard let parsed = Double(String(decoding: bytes[start..<index], as: UTF8.self)) else { throw malformed("bad number") }
        guard parsed.isFinite else { throw .notFinite(field: String(member.prefix(40))) }
        return .number(parsed, integral: integral)
    }

    /// A string's contents after its opening quote, through the closing quote, escapes resolved;
    /// the bytes must be UTF-8 and free of raw control characters.
    mutating func string() throws(GPSDError) -> String {
        var text: [UInt8] = []
        while true {
            guard index < bytes.count else { throw malformed("unterminated string") }
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let decoded = String(validating: text, as: UTF8.self) else { throw malformed("string is not UTF-8") }
                return decoded
            case UInt8(ascii: "\\"):
                try escape(into: &text)
            case 0..<0x20:
                index -= 1
                throw malformed("control character in a string")
            default:
                text.append(byte)
            }
        }
    }

    /// One escape after its backslash, appended as UTF-8.
    mutating func escape(into text: inout [UInt8]) throws(GPSDError) {
        guard index < bytes.count else { throw malformed("unterminated escape") }
        let byte = bytes[index]
        index += 1
        let simple: [UInt8: UInt8] = [
            UInt8(ascii: "\""): 0x22, UInt8(ascii: "\\"): 0x5C, UInt8(ascii: "/"): 0x2F, UInt8(ascii: "b"): 0x08,
            UInt8(ascii: "f"): 0x0C, UInt8(ascii: "n"): 0x0A, UInt8(ascii: "r"): 0x0D, UInt8(ascii: "t"): 0x09,
        ]
        if let replacement = simple[byte] {
            text.append(replacement)
            return
        }
        guard byte == UInt8(ascii: "u") else { throw malformed("unknown escape") }
        var code = try hex4()
        if (0xD800..<0xDC00).contains(code) {
            // A high surrogate must be followed by an escaped low one.
            guard consume(UInt8(ascii: "\\")), consume(UInt8(ascii: "u")) else { throw malformed("lone surrogate") }
            let low = try hex4()
            guard (0xDC00..<0xE000).contains(low) else { throw malformed("lone surrogate") }
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00..<0xE000).contains(code) {
            throw malformed("lone surrogate")
        }
        guard let scalar = Unicode.Scalar(code) else { throw malformed("bad code point") }
        text.append(contentsOf: String(Character(scalar)).utf8)
    }

    /// Four hexadecimal digits.
    mutating func hex4() throws(GPSDError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw malformed("short \\u escape") }
        var code: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw malformed("bad \\u escape")
            }
            code = code << 4 | UInt32(digit)
            index += 1
        }
        return code
    }

    /// Consumes a run of decimal digits and returns its length.
    mutating func digitRun() -> Int {
        let start = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        return index - start
    }

    /// Consumes `byte` if it is next.
    mutating func consume(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    func malformed(_ reason: String) -> GPSDError {
        .malformedJSON(offset: index, reason: reason)
    }
}
