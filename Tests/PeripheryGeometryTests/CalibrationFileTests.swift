import Foundation
import Testing

@testable import PeripheryCore
@testable import PeripheryGeometry

/// The calibration file: parsing, the named error of each bad file, and encode → parse.
struct CalibrationFileTests {
    static let intrinsics = #""fx": 910, "fy": 910, "cx": 582, "cy": 437, "width": 1164, "height": 874"#
    static let kForm = #""K": [[910, 0, 582], [0, 910, 437], [0, 0, 1]], "width": 1164, "height": 874"#
    static let mount = #""pitch_deg": -3.659, "roll_deg": 0, "yaw_deg": 0, "height_m": 1.2, "forward_of_origin_m": 1.65"#

    static func file(intrinsics: String = intrinsics, mount: String = mount) -> Data {
        Data("{\"intrinsics\": {\(intrinsics)}, \"mount\": {\(mount)}}".utf8)
    }

    static func expectComma(_ s: CameraSetup, lateral: Double = 0) {
        let k = s.intrinsics
        #expect(k.fx == 910 && k.fy == 910 && k.cx == 582 && k.cy == 437 && k.skew == 0)
        #expect(k.width == 1164 && k.height == 874)
        #expect(abs(deg(s.pose.pitch) - -3.659) < 1e-12)
        #expect(s.pose.roll == 0 && s.pose.yaw == 0)
        #expect(s.pose.height == 1.2 && s.pose.forwardOfOrigin == 1.65)
        #expect(s.pose.lateralOffset == lateral)
    }

    // MARK: Valid files

    @Test func explicitFormParses() throws {
        Self.expectComma(try CalibrationFile.parse(Self.file()))
    }

    @Test func matrixFormParses() throws {
        Self.expectComma(try CalibrationFile.parse(Self.file(intrinsics: Self.kForm)))
    }

    @Test(arguments: [Self.intrinsics, Self.kForm])
    func lateralOffsetIsOptional(intrinsics: String) throws {
        let with = try CalibrationFile.parse(Self.file(intrinsics: intrinsics, mount: Self.mount + #", "lateral_offset_m": -0.4"#))
        Self.expectComma(with, lateral: -0.4)
        Self.expectComma(try CalibrationFile.parse(Self.file(intrinsics: intrinsics)), lateral: 0)
    }

    @Test func matrixFormKeepsSkew() throws {
        let s = try CalibrationFile.parse(
            Self.file(
                intrinsics: #""K": [[900, 1.5, 600], [0, 905, 400], [0, 0, 1]], "width": 1200, "height": 800"#))
        #expect(s.intrinsics.fx == 900 && s.intrinsics.skew == 1.5 && s.intrinsics.cx == 600)
        #expect(s.intrinsics.fy == 905 && s.intrinsics.cy == 400)
    }

    @Test func anglesAreReadInDegrees() throws {
        let s = try CalibrationFile.parse(
            Self.file(
                mount: #""pitch_deg": 2, "roll_deg": -3, "yaw_deg": 4.5, "height_m": 1.5, "forward_of_origin_m": 0"#))
        #expect(abs(s.pose.pitch - 2 * Double.pi / 180) < 1e-15)
        #expect(abs(s.pose.roll - -3 * Double.pi / 180) < 1e-15)
        #expect(abs(s.pose.yaw - 4.5 * Double.pi / 180) < 1e-15)
    }

    @Test func projectDocumentedExampleParses() throws {
        // The example in CalibrationFile's documentation, verbatim.
        let text = """
            {"intrinsics": {"fx": 910, "fy": 910, "cx": 582, "cy": 437, "width": 1164, "height": 874},
             "mount": {"pitch_deg": -3.659, "roll_deg": 0, "yaw_deg": 0, "height_m": 1.2,
                       "forward_of_origin_m": 1.65}}
            """
        Self.expectComma(try CalibrationFile.parse(Data(text.utf8)))
    }

    // MARK: Bad files

    struct Bad: Sendable, CustomTestStringConvertible {
        var name: String
        var error: CalibrationError
        var testDescription: String { name }
        /// Held as an array: LeakSanitizer cannot follow the packed pointers of a `Data` held in a
        /// static, and reports it as leaked (`make test-asan`).
        private var bytes: [UInt8]
        var data: Data { Data(bytes) }

        init(name: String, data: Data, error: CalibrationError) {
            self.name = name
            self.error = error
            bytes = Array(data)
        }
    }

    static let badFiles: [Bad] = [
        Bad(
            name: "missing fx",
            data: file(intrinsics: #""fy": 910, "cx": 582, "cy": 437, "width": 1164, "height": 874"#),
            error: .missingField("intrinsics.fx")),
        Bad(
            name: "missing height_m",
            data: file(mount: #""pitch_deg": -3.659, "roll_deg": 0, "yaw_deg": 0, "forward_of_origin_m": 1.65"#),
            error: .missingField("mount.height_m")),
        Bad(
            name: "missing width", data: file(intrinsics: #""fx": 910, "fy": 910, "cx": 582, "cy": 437, "height": 874"#),
            error: .missingField("intrinsics.width")),
        Bad(
            name: "missing mount", data: Data(#"{"intrinsics": {"fx": 910, "fy": 910, "cx": 582, "cy": 437, "width": 1164, "height": 874}}"#.utf8),
            error: .missingField("mount")),
        Bad(
            name: "fx = 0", data: file(intrinsics: intrinsics.replacingOccurrences(of: #""fx": 910"#, with: #""fx": 0"#)),
            error: .outOfRange(field: "intrinsics.fx", value: 0, allowed: "> 0")),
        Bad(
            name: "fx < 0", data: file(intrinsics: intrinsics.replacingOccurrences(of: #""fx": 910"#, with: #""fx": -910"#)),
            error: .outOfRange(field: "intrinsics.fx", value: -910, allowed: "> 0")),
        Bad(
            name: "fx string", data: file(intrinsics: intrinsics.replacingOccurrences(of: #""fx": 910"#, with: #""fx": "910""#)),
            error: .wrongType(field: "intrinsics.fx", expected: "a number")),
        Bad(
            name: "fx boolean", data: file(intrinsics: intrinsics.replacingOccurrences(of: #""fx": 910"#, with: #""fx": true"#)),
            error: .wrongType(field: "intrinsics.fx", expected: "a number")),
        Bad(
            name: "height_m boolean", data: file(mount: mount.replacingOccurrences(of: #""height_m": 1.2"#, with: #""height_m": false"#)),
            error: .wrongType(field: "mount.height_m", expected: "a number")),
        Bad(
            name: "height_m null", data: file(mount: mount.replacingOccurrences(of: #""height_m": 1.2"#, with: #""height_m": null"#)),
            error: .wrongType(field: "mount.height_m", expected: "a number")),
        Bad(
            name: "cx outside frame", data: file(intrinsics: intrinsics.replacingOccurrences(of: #""cx": 582"#, with: #""cx": 1200"#)),
            error: .outOfRange(field: "intrinsics.cx", value: 1200, allowed: "0 ... width 1164")),
        Bad(
            name: "cy negative", data: file(intrinsics: intrinsics.replacingOccurrences(of: #""cy": 437"#, with: #""cy": -1"#)),
            error: .outOfRange(field: "intrinsics.cy", value: -1, allowed: "0 ... height 874")),
        Bad(
            name: "width not integer", data: file(intrinsics: intrinsics.replacingOccurrences(of: #""width": 1164"#, with: #""width": 1164.5"#)),
            error: .wrongType(field: "intrinsics.width", expected: "an integer")),
        Bad(
            name: "pitch 40°", data: file(mount: mount.replacingOccurrences(of: #""pitch_deg": -3.659"#, with: #""pitch_deg": 40"#)),
            error: .outOfRange(field: "mount.pitch_deg", value: 40, allowed: "|angle| ≤ 25.0°")),
        Bad(
            name: "height 5 m", data: file(mount: mount.replacingOccurrences(of: #""height_m": 1.2"#, with: #""height_m": 5"#)),
            error: .outOfRange(field: "mount.height_m", value: 5, allowed: "0.3 < h < 3.0")),
        Bad(
            name: "lateral 2 m", data: file(mount: mount + #", "lateral_offset_m": 2"#),
            error: .outOfRange(field: "mount.lateral_offset_m", value: 2, allowed: "|offset| ≤ 1.3")),
        Bad(
            name: "K 2×3", data: file(intrinsics: #""K": [[910, 0, 582], [0, 910, 437]], "width": 1164, "height": 874"#),
            error: .wrongType(field: "intrinsics.K", expected: "a 3×3 array of numbers")),
        Bad(
            name: "K 3×2", data: file(intrinsics: #""K": [[910, 0], [0, 910], [0, 0]], "width": 1164, "height": 874"#),
            error: .wrongType(field: "intrinsics.K", expected: "a 3×3 array of numbers")),
        Bad(
            name: "K not an array", data: file(intrinsics: #""K": 910, "width": 1164, "height": 874"#),
            error: .wrongType(field: "intrinsics.K", expected: "an array of rows")),
        Bad(
            name: "K cell string", data: file(intrinsics: #""K": [[910, "0", 582], [0, 910, 437], [0, 0, 1]], "width": 1164, "height": 874"#),
            error: .wrongType(field: "intrinsics.K[0][1]", expected: "a number")),
        Bad(
            name: "K fx ≤ 0", data: file(intrinsics: #""K": [[-910, 0, 582], [0, 910, 437], [0, 0, 1]], "width": 1164, "height": 874"#),
            error: .outOfRange(field: "intrinsics.K[0][0]", value: -910, allowed: "> 0")),
        Bad(
            name: "K last row", data: file(intrinsics: #""K": [[910, 0, 582], [0, 910, 437], [0, 0, 2]], "width": 1164, "height": 874"#),
            error: .outOfRange(field: "intrinsics.K[2][2]", value: 2, allowed: "1")),
        Bad(
            name: "root not an object", data: Data("[1, 2, 3]".utf8),
            error: .wrongType(field: "<root>", expected: "an object")),
        Bad(
            name: "intrinsics not an object", data: Data(#"{"intrinsics": 3, "mount": {}}"#.utf8),
            error: .wrongType(field: "intrinsics", expected: "an object")),
    ]

    @Test(arguments: badFiles)
    func badFileNamesField(bad: Bad) {
        #expect(throws: bad.error) { try CalibrationFile.parse(bad.data) }
    }

    @Test(arguments: ["not json", "{\"intrinsics\": ", "", "{'a': 1}"])
    func notJSONIsUnreadable(text: String) {
        do {
            _ = try CalibrationFile.parse(Data(text.utf8))
            Issue.record("parsed \(text)")
        } catch {
            guard case .unreadable = error else {
                Issue.record("expected unreadable, got \(error)")
                return
            }
            #expect(error.field == nil)
        }
    }

    // MARK: CalibrationError.field

    @Test func fieldOfEachCase() {
        #expect(CalibrationError.missingField("intrinsics.fx").field == "intrinsics.fx")
        #expect(CalibrationError.wrongType(field: "mount.height_m", expected: "a number").field == "mount.height_m")
        #expect(CalibrationError.nonFinite(field: "intrinsics.cy").field == "intrinsics.cy")
        #expect(CalibrationError.outOfRange(field: "mount.pitch_deg", value: 40, allowed: "").field == "mount.pitch_deg")
        #expect(CalibrationError.unreadable(path: "a.json", reason: "not valid JSON").field == nil)
        #expect(CalibrationError.inFile(path: "a.json", .missingField("mount.height_m")).field == "mount.height_m")
        #expect(CalibrationError.inFile(path: "a.json", .unreadable(path: "a", reason: "b")).field == nil)
    }

    @Test func descriptionsNameFields() {
        #expect(CalibrationError.missingField("intrinsics.fx").description == "missing field 'intrinsics.fx'")
        #expect(
            CalibrationError.inFile(path: "cal.json", .missingField("intrinsics.fx")).description
                == "cal.json: missing field 'intrinsics.fx'")
    }

    // MARK: Files on disk

    static func temporaryFile(_ data: Data) throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("periphery-calibration-\(UUID().uuidString).json")
        try data.write(to: url)
        return url
    }

    @Test func loadValidFile() throws {
        let url = try Self.temporaryFile(Self.file())
        defer { try? FileManager.default.removeItem(at: url) }
        Self.expectComma(try CalibrationFile.load(path: url.path))
    }

    @Test func loadWrapsFieldErrorsWithPath() throws {
        let url = try Self.temporaryFile(Self.badFiles[0].data)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(throws: CalibrationError.inFile(path: url.path, .missingField("intrinsics.fx"))) {
            try CalibrationFile.load(path: url.path)
        }
        do {
            _ = try CalibrationFile.load(path: url.path)
        } catch {
            #expect(error.field == "intrinsics.fx")
        }
    }

    @Test func loadNotJSONIsUnreadableWithPath() throws {
        let url = try Self.temporaryFile(Data("# not json".utf8))
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(throws: CalibrationError.unreadable(path: url.path, reason: "not valid JSON")) {
            try CalibrationFile.load(path: url.path)
        }
    }

    @Test func loadMissingFileIsUnreadable() {
        let path = "/nonexistent-\(UUID().uuidString)/cal.json"
        do {
            _ = try CalibrationFile.load(path: path)
            Issue.record("loaded a missing file")
        } catch {
            guard case .unreadable(let p, _) = error else {
                Issue.record("expected unreadable, got \(error)")
                return
            }
            #expect(p == path)
        }
    }

    // MARK: Round trip

    @Test(arguments: [
        (910.0, 910.0, 582.0, 437.0, 0.0, 1164, 874, -3.659, 0.0, 0.0, 1.2, 1.65, 0.0),
        (1402.5, 1399.75, 955.25, 541.5, 0.0, 1920, 1080, 2.25, -4.5, 3.125, 1.45, 2.1, -0.35),
        (900.0, 905.0, 600.0, 400.0, 1.5, 1200, 800, -7.0, 12.0, -20.0, 0.9, -1.5, 1.3),
    ])
    func encodeParseRoundTrip(
        fx: Double, fy: Double, cx: Double, cy: Double, skew: Double, w: Int, h: Int,
        pitch: Double, roll: Double, yaw: Double, height: Double, forward: Double, lateral: Double
    ) throws {
        let setup = CameraSetup(
            intrinsics: try CameraIntrinsics(fx: fx, fy: fy, cx: cx, cy: cy, skew: skew, width: w, height: h),
            pose: MountPose(
                pitchDegrees: pitch, rollDegrees: roll, yawDegrees: yaw, height: height,
                forwardOfOrigin: forward, lateralOffset: lateral))
        let data = CalibrationFile.encode(setup)
        let back = try CalibrationFile.parse(data)
        #expect(back.intrinsics == setup.intrinsics)
        // Degrees → radians → degrees may move the last bit.
        #expect(abs(back.pose.pitch - setup.pose.pitch) < 1e-15)
        #expect(abs(back.pose.roll - setup.pose.roll) < 1e-15)
        #expect(abs(back.pose.yaw - setup.pose.yaw) < 1e-15)
        #expect(back.pose.height == height && back.pose.forwardOfOrigin == forward && back.pose.lateralOffset == lateral)
        // The encoding is the documented format: angles in degrees, K only when there is skew.
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let mount = try #require(object["mount"] as? [String: Any])
        let pitchDeg = try #require((mount["pitch_deg"] as? NSNumber)?.doubleValue)
        #expect(abs(pitchDeg - pitch) < 1e-12)
        let intrinsicsObject = try #require(object["intrinsics"] as? [String: Any])
        #expect((intrinsicsObject["K"] != nil) == (skew != 0))
        #expect((intrinsicsObject["fx"] != nil) == (skew == 0))
    }
}
