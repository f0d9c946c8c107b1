import Foundation
import PeripheryCore
import Testing

@testable import PeripheryIO

/// The hand-written JSON of the Foxglove messages, read back by Foundation's parser.
struct FoxgloveJSONTests {
    private func object(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func stringsAreEscapedAndNumbersRoundTrip() throws {
        var j = JSONText()
        j.raw("{\"s\":")
        j.string("quote \" backslash \\ newline \n tab \t bell \u{7} é 🚗")
        j.raw(",\"n\":")
        j.numbers([0, -1.5, 1e-7, 123_456_789.125, .nan, .infinity])
        j.raw("}")
        let parsed = try object(j.data)
        #expect(parsed["s"] as? String == "quote \" backslash \\ newline \n tab \t bell \u{7} é 🚗")
        let numbers = try #require(parsed["n"] as? [Any])
        #expect(numbers.prefix(4).compactMap { ($0 as? NSNumber)?.doubleValue } == [0, -1.5, 1e-7, 123_456_789.125])
        #expect(numbers.suffix(2).allSatisfy { $0 is NSNull })
    }

    @Test func sceneUpdateHasEveryFieldFoxgloveExpects() throws {
        let time = Foxglove.Time(seconds: 12.25)
        let box = VehicleBox(x: 20, y: -2, z: 0.8, length: 4.5, width: 1.8, height: 1.5, yaw: 0.1)
        let detection = Detection(score: 0.9, label: 1, box: box, candidate: 0)
        let scene = FoxgloveEncoder.scene(detections: [detection], tracks: [], time: time)
        let parsed = try object(scene.json)
        let entity = try #require((parsed["entities"] as? [[String: Any]])?.first)
        #expect(entity["id"] as? String == "detections" && entity["frame_locked"] as? Bool == true)
        #expect((entity["timestamp"] as? [String: Any])?["nsec"] as? Int == 250_000_000)
        for empty in ["arrows", "spheres", "cylinders", "lines", "triangles", "models"] {
            #expect((entity[empty] as? [Any])?.isEmpty == true, "\(empty)")
        }
        let cube = try #require((entity["cubes"] as? [[String: Any]])?.first)
        let size = try #require(cube["size"] as? [String: Any])
        #expect(size["x"] as? Double == 4.5 && size["y"] as? Double == 1.8 && size["z"] as? Double == 1.5)
        #expect((parsed["deletions"] as? [[String: Any]])?.first?["type"] as? Int == 1)
    }

    @Test func imageDataIsBase64() throws {
        let bytes = Data((0..<1000).map { UInt8(truncatingIfNeeded: $0 * 7) })
        let image = Foxglove.CompressedImage(timestamp: Foxglove.Time(seconds: 1), frameId: "camera", data: bytes, format: "jpeg")
        let parsed = try object(image.json)
        #expect(Data(base64Encoded: try #require(parsed["data"] as? String)) == bytes && parsed["format"] as? String == "jpeg")
    }
}
