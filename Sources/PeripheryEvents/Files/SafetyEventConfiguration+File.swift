import Foundation

extension SafetyEventConfiguration {
    /// The largest configuration file read, bytes: far more than every field takes.
    public static let maximumFileBytes = 65_536

    /// The defaults with the settings of the JSON file at `path` (`periphery run --events FILE`).
    ///
    /// The file is one object whose keys are the fields' names, the three events' rules as nested
    /// objects, each setting optional: `{"forwardCollision": {"timeToCollisionSeconds": 2.5},
    /// "corridorWidthMetres": 3.4}`. Numbers are in the fields' units; frame counts are whole.
    ///
    /// - Throws: `SafetyEventConfigurationFileError` naming the file, and the field where one is at
    ///   fault: an unknown key, a value of the wrong kind, or one `validate()` refuses.
    public init(contentsOfFile path: String) throws(SafetyEventConfigurationFileError) {
        // Checked before reading, so that a path naming a large file by mistake is not read whole.
        let size = ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue
        if let size, size > Self.maximumFileBytes { throw .tooLarge(path: path, bytes: size) }
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(path: path) }
        if data.count > Self.maximumFileBytes { throw .tooLarge(path: path, bytes: data.count) }
        try self.init(json: data, name: path)
    }

    /// The defaults with the settings of a JSON object, as `init(contentsOfFile:)` reads a file;
    /// `name` names the data in the errors.
    ///
    /// - Throws: `SafetyEventConfigurationFileError`.
    public init(json data: Data, name: String) throws(SafetyEventConfigurationFileError) {
        guard case .object(let settings)? = try? JSONDecoder().decode(SettingValue.self, from: data) else {
            throw .notAnObject(path: name)
        }
        self.init()
        try apply(settings, prefix: "", name: name)
        do throws(SafetyEventConfigurationError) {
            try validate()
        } catch {
            throw .invalid(path: name, error)
        }
    }

    private mutating func apply(_ settings: [String: SettingValue], prefix: String, name: String) throws(SafetyEventConfigurationFileError) {
        // Sorted, so that of several faults the same one is reported every time.
        for (key, value) in settings.sorted(by: { $0.key < $1.key }) {
            let field = prefix + key
            if prefix.isEmpty, Self.groups.contains(key) {
                guard case .object(let nested) = value else { throw .wrongType(path: name, field: field, expected: "an object") }
                try apply(nested, prefix: field + ".", name: name)
                continue
            }
            guard let setting = Self.settings[field] else { throw .unknownField(path: name, field: field) }
            guard case .number(let number) = value else {
                throw .wrongType(path: name, field: field, expected: setting.isCount ? "a whole number" : "a number")
            }
            switch setting {
            case .measure(let keyPath): self[keyPath: keyPath] = number
            case .count(let keyPath):
                guard number == number.rounded(), abs(number) <= 1_000_000 else {
                    throw .wrongType(path: name, field: field, expected: "a whole number")
                }
                self[keyPath: keyPath] = Int(number)
            }
        }
    }

    /// The nested objects: the events' rules.
    private static let groups: Set = ["forwardCollision", "closeFollowing", "cutIn"]

    /// One setting of the file: a measure, or a count of frames.
    private enum Setting {
        case measure(WritableKeyPath<SafetyEventConfiguration, Double>)
        case count(WritableKeyPath<SafetyEventConfiguration, Int>)

        var isCount: Bool {
            if case .count = self { true } else { false }
        }
    }

    /// Every setting by its path, the name `validate()` gives it.
    private static var settings: [String: Setting] {
        [
            "egoFrontMetres": .measure(\.egoFrontMetres),
            "corridorWidthMetres": .measure(\.corridorWidthMetres),
            "maximumRangeMetres": .measure(\.maximumRangeMetres),
            "minimumMovingSpeed": .measure(\.minimumMovingSpeed),
            "kinematicsWindowSeconds": .measure(\.kinematicsWindowSeconds),
            "accelerationMinimumSpanSeconds": .measure(\.accelerationMinimumSpanSeconds),
            "accelerationSignificance": .measure(\.accelerationSignificance),
            "accelerationOnsetMinimumSeconds": .measure(\.accelerationOnsetMinimumSeconds),
            "minimumSpeedSpanSeconds": .measure(\.minimumSpeedSpanSeconds),
            "speedSignificance": .measure(\.speedSignificance),
            "rangeNoiseMetres": .measure(\.rangeNoiseMetres),
            "rangeNoiseGrowth": .measure(\.rangeNoiseGrowth),
            "farEdgeMarginMetres": .measure(\.farEdgeMarginMetres),
            "maximumClosingAcceleration": .measure(\.maximumClosingAcceleration),
            "continuitySeconds": .measure(\.continuitySeconds),
            "continuityRangeMetres": .measure(\.continuityRangeMetres),
            "continuityRangeFraction": .measure(\.continuityRangeFraction),
            "continuityRangeSigmas": .measure(\.continuityRangeSigmas),
            "continuityLateralMetres": .measure(\.continuityLateralMetres),
            "forwardCollision.timeToCollisionSeconds": .measure(\.forwardCollision.timeToCollisionSeconds),
            "forwardCollision.hysteresisSeconds": .measure(\.forwardCollision.hysteresisSeconds),
            "forwardCollision.minimumEgoSpeed": .measure(\.forwardCollision.minimumEgoSpeed),
            "forwardCollision.minimumClosingSpeed": .measure(\.forwardCollision.minimumClosingSpeed),
            "forwardCollision.confirmationFrames": .count(\.forwardCollision.confirmationFrames),
            "forwardCollision.refractorySeconds": .measure(\.forwardCollision.refractorySeconds),
            "closeFollowing.headwaySeconds": .measure(\.closeFollowing.headwaySeconds),
            "closeFollowing.hysteresisSeconds": .measure(\.closeFollowing.hysteresisSeconds),
            "closeFollowing.minimumDurationSeconds": .measure(\.closeFollowing.minimumDurationSeconds),
            "closeFollowing.minimumEgoSpeed": .measure(\.closeFollowing.minimumEgoSpeed),
            "cutIn.maximumRangeMetres": .measure(\.cutIn.maximumRangeMetres),
            "cutIn.lateralMarginMetres": .measure(\.cutIn.lateralMarginMetres),
            "cutIn.confirmationFrames": .count(\.cutIn.confirmationFrames),
            "cutIn.durationSeconds": .measure(\.cutIn.durationSeconds),
            "cutIn.minimumEgoSpeed": .measure(\.cutIn.minimumEgoSpeed),
        ]
    }
}

/// A JSON value of a configuration file, by kind: `JSONDecoder` tells a number from `true`, which
/// `JSONSerialization`'s `NSNumber` does not on every platform.
private indirect enum SettingValue: Decodable {
    case number(Double)
    case object([String: SettingValue])
    case other

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if (try? container.decode(Bool.self)) != nil {
            self = .other
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let object = try? container.decode([String: SettingValue].self) {
            self = .object(object)
        } else {
            self = .other
        }
    }
}
