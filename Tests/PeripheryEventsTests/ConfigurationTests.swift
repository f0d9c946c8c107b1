import Testing

@testable import PeripheryEvents

/// Bad configuration values are typed errors that name the field.
struct ConfigurationTests {
    @Test func defaultsAreValid() throws {
        try SafetyEventConfiguration().validate()
        _ = try SafetyEventDetector(configuration: SafetyEventConfiguration())
    }

    /// The default configuration with one change.
    private static func changed(_ change: (inout SafetyEventConfiguration) -> Void) -> SafetyEventConfiguration {
        var configuration = SafetyEventConfiguration()
        change(&configuration)
        return configuration
    }

    static let badConfigurations: [(field: String, configuration: SafetyEventConfiguration)] = [
        ("forwardCollision.timeToCollisionSeconds", changed { $0.forwardCollision.timeToCollisionSeconds = -1 }),
        ("forwardCollision.timeToCollisionSeconds", changed { $0.forwardCollision.timeToCollisionSeconds = 0 }),
        ("corridorWidthMetres", changed { $0.corridorWidthMetres = 25 }),
        ("closeFollowing.headwaySeconds", changed { $0.closeFollowing.headwaySeconds = .nan }),
        ("accelerationMinimumSpanSeconds", changed { $0.accelerationMinimumSpanSeconds = 3.5 }),
        ("accelerationOnsetMinimumSeconds", changed { $0.accelerationOnsetMinimumSeconds = 3.5 }),
        ("cutIn.confirmationFrames", changed { $0.cutIn.confirmationFrames = 0 }),
        ("egoFrontMetres", changed { $0.egoFrontMetres = 500 }),
        ("forwardCollision.refractorySeconds", changed { $0.forwardCollision.refractorySeconds = .infinity }),
        ("closeFollowing.minimumEgoSpeed", changed { $0.closeFollowing.minimumEgoSpeed = -5 }),
        ("cutIn.maximumRangeMetres", changed { $0.cutIn.maximumRangeMetres = -10 }),
        ("continuitySeconds", changed { $0.continuitySeconds = -1 }),
        ("continuityRangeFraction", changed { $0.continuityRangeFraction = 2 }),
        ("continuityRangeSigmas", changed { $0.continuityRangeSigmas = -1 }),
        ("continuityLateralMetres", changed { $0.continuityLateralMetres = .nan }),
        ("farEdgeMarginMetres", changed { $0.farEdgeMarginMetres = 41 }),
    ]

    @Test func badValueNamesItsField() {
        for (field, configuration) in Self.badConfigurations {
            #expect(throws: SafetyEventConfigurationError.self) { try configuration.validate() }
            do throws(SafetyEventConfigurationError) {
                _ = try SafetyEventDetector(configuration: configuration)
                Issue.record("\(field): accepted")
            } catch {
                #expect(error.field == field)
                #expect(error.description.contains(field))
            }
        }
    }

    @Test func corridorAsWideAsTheGridIsAccepted() throws {
        var configuration = SafetyEventConfiguration()
        configuration.corridorWidthMetres = 20
        try configuration.validate()
        #expect(SafetyEventConfiguration.maximumCorridorWidthMetres == 20)
    }
}
