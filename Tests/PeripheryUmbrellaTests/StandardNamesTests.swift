import Foundation
import Periphery
import Testing

// A program that writes `import Periphery` as a user's would, and then the standard library's and
// Foundation's names unqualified. A public type of the package named like one of them shadows it
// here and this file stops compiling: the test is the build of this target (it depends on the
// umbrella alone, without @testable).

/// A user's own Codable record, written the way Swift's documentation writes one.
private struct TripNote: Codable, Equatable {
    var title: String
    var picture: URL
    var thumbnail: Data
    var taken: Date

    enum CodingKeys: String, CodingKey { case title, picture, thumbnail, taken }

    init(title: String, picture: URL, thumbnail: Data, taken: Date) {
        self.title = title
        self.picture = picture
        self.thumbnail = thumbnail
        self.taken = taken
    }

    init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.decode(String.self, forKey: .title)
        picture = try container.decode(URL.self, forKey: .picture)
        thumbnail = try container.decode(Data.self, forKey: .thumbnail)
        taken = try container.decode(Date.self, forKey: .taken)
    }

    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(title, forKey: .title)
        try container.encode(picture, forKey: .picture)
        try container.encode(thumbnail, forKey: .thumbnail)
        try container.encode(taken, forKey: .taken)
    }
}

struct StandardNamesTests {
    /// The record round-trips through JSON next to the package's own types.
    @Test func standardNamesMeanTheStandardTypes() throws {
        let note = TripNote(
            title: "parked \(VehicleClass.lightVehicle.name)", picture: URL(fileURLWithPath: "/tmp/frame.png"), thumbnail: Data([1, 2, 3]),
            taken: Date(timeIntervalSince1970: 1_700_000_000))
        let decoded = try JSONDecoder().decode(TripNote.self, from: JSONEncoder().encode(note))
        #expect(decoded == note)
        let detections: Result<[Detection], any Error> = .success(DetectionDecoder.decode(.zeros(), settings: DecodeSettings(scoreThreshold: 0.9)))
        #expect(try detections.get().isEmpty)
    }
}
