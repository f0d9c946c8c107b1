import Foundation
import PeripheryTestSupport
import Testing

@testable import PeripheryEvents

/// A configuration file (`periphery run --events FILE`): settings by the fields' names, the rest
/// the defaults; every fault a typed error naming the file and the field.
struct ConfigurationFileTests {
    private func read(_ text: String) throws(SafetyEventConfigurationFileError) -> SafetyEventConfiguration {
        try SafetyEventConfiguration(json: Data(text.utf8), name: "events.json")
    }

    @Test func settingsReplaceTheDefaultsTheyName() throws {
        let read = try read(
            #"{"corridorWidthMetres": 3.25, "forwardCollision": {"timeToCollisionSeconds": 2.5, "confirmationFrames": 4}, "cutIn": {}}"#)
        var expected = SafetyEventConfiguration()
        expected.corridorWidthMetres = 3.25
        expected.forwardCollision.timeToCollisionSeconds = 2.5
        expected.forwardCollision.confirmationFrames = 4
        #expect(read == expected)
        #expect(try self.read("{}") == SafetyEventConfiguration())
    }

    /// Every field the validation names can be set from a file, by that name.
    @Test func everyFieldIsASetting() throws {
        let fields: [(String, String)] = [
            ("egoFrontMetres", "2"), ("corridorWidthMetres", "3"), ("maximumRangeMetres", "50"), ("minimumMovingSpeed", "2"),
            ("kinematicsWindowSeconds", "2.5"), ("accelerationMinimumSpanSeconds", "1"), ("accelerationSignificance", "4"),
            ("accelerationOnsetMinimumSeconds", "0.7"),
            ("minimumSpeedSpanSeconds", "0.7"), ("speedSignificance", "3"), ("rangeNoiseMetres", "0.4"),
            ("rangeNoiseGrowth", "0.002"), ("farEdgeMarginMetres", "2"), ("continuitySeconds", "2"), ("continuityRangeMetres", "3"),
            ("continuityRangeFraction", "0.2"), ("continuityRangeSigmas", "2"), ("continuityLateralMetres", "1.5"),
            ("maximumClosingAcceleration", "8"), ("forwardCollision.timeToCollisionSeconds", "2"),
            ("forwardCollision.hysteresisSeconds", "1"), ("forwardCollision.minimumEgoSpeed", "4"),
            ("forwardCollision.minimumClosingSpeed", "2"), ("forwardCollision.confirmationFrames", "5"),
            ("forwardCollision.refractorySeconds", "6"), ("closeFollowing.headwaySeconds", "0.8"),
            ("closeFollowing.hysteresisSeconds", "0.1"), ("closeFollowing.minimumDurationSeconds", "15"),
            ("closeFollowing.minimumEgoSpeed", "20"), ("cutIn.maximumRangeMetres", "20"), ("cutIn.lateralMarginMetres", "0.5"),
            ("cutIn.confirmationFrames", "2"), ("cutIn.durationSeconds", "3"), ("cutIn.minimumEgoSpeed", "6"),
        ]
        // The list above names every stored setting, so that a new one without its file name fails here.
        #expect(Set(fields.map(\.0)) == Set(Self.storedSettings(of: SafetyEventConfiguration())))
        for (field, value) in fields {
            let parts = field.split(separator: ".")
            let text = parts.count == 1 ? "{\"\(field)\": \(value)}" : "{\"\(parts[0])\": {\"\(parts[1])\": \(value)}}"
            #expect(try read(text) != SafetyEventConfiguration(), "\(field) was not read")
        }
    }

    @Test(arguments: [
        (#"{"forwardCollision": {"ttc": 2}}"#, "forwardCollision.ttc", "is not a safety-event setting"),
        (#"{"timeToCollisionSeconds": 2}"#, "timeToCollisionSeconds", "is not a safety-event setting"),
        (#"{"corridorWidthMetres": "wide"}"#, "corridorWidthMetres", "must be a number"),
        (#"{"corridorWidthMetres": true}"#, "corridorWidthMetres", "must be a number"),
        (#"{"cutIn": {"confirmationFrames": 2.5}}"#, "cutIn.confirmationFrames", "must be a whole number"),
        (#"{"closeFollowing": 1}"#, "closeFollowing", "must be an object"),
        (#"{"corridorWidthMetres": 25}"#, "corridorWidthMetres", "expected more than 0 and at most the grid's width"),
        (#"{"forwardCollision": {"timeToCollisionSeconds": -1}}"#, "forwardCollision.timeToCollisionSeconds", "expected more than 0"),
    ])
    func faultsNameTheFileAndTheField(text: String, field: String, words: String) {
        #expect {
            try read(text)
        } throws: { error in
            guard let error = error as? SafetyEventConfigurationFileError else { return false }
            return error.field == field && error.description.hasPrefix("events.json: ") && error.description.contains(words)
                && error.description.contains(field)
        }
    }

    @Test func aFileThatIsNoObjectOrCannotBeReadIsNamed() throws {
        #expect(throws: SafetyEventConfigurationFileError.notAnObject(path: "events.json")) { try read("[1, 2]") }
        #expect(throws: SafetyEventConfigurationFileError.notAnObject(path: "events.json")) { try read("{\"a\": ") }
        let missing = "/nonexistent/events.json"
        #expect(throws: SafetyEventConfigurationFileError.unreadable(path: missing)) {
            try SafetyEventConfiguration(contentsOfFile: missing)
        }
        let folder = try scratchFolder("events-file")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let large = folder + "/large.json"
        try Data(repeating: 0x20, count: SafetyEventConfiguration.maximumFileBytes + 1).write(to: URL(fileURLWithPath: large))
        #expect(throws: SafetyEventConfigurationFileError.tooLarge(path: large, bytes: SafetyEventConfiguration.maximumFileBytes + 1)) {
            try SafetyEventConfiguration(contentsOfFile: large)
        }
    }

    /// The paths of a configuration's stored settings (`forwardCollision.hysteresisSeconds`), by reflection.
    static func storedSettings(of value: Any, prefix: String = "") -> [String] {
        Mirror(reflecting: value).children.flatMap { child -> [String] in
            guard let label = child.label else { return [] }
            let path = prefix + label
            return Mirror(reflecting: child.value).children.isEmpty ? [path] : storedSettings(of: child.value, prefix: path + ".")
        }
    }
}
