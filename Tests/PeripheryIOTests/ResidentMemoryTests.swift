import Testing

@testable import PeripheryIO

/// `periphery soak` trusts these numbers: text that is not a statm line must give no number (it
/// once gave 0, and a soak without memory figures passed).
struct ResidentMemoryTests {
    @Test func readsTheSecondFieldInPages() {
        #expect(ResidentMemory.bytes(statm: "10510 4929 1234 1 0 5678 0\n", pageSize: 4096) == 4929 * 4096)
    }

    @Test(arguments: ["", "\n", "10510", "10510 x 3", "10510 -4 3", "a b c"])
    func refusesWhatIsNotAStatmLine(_ text: String) {
        #expect(ResidentMemory.bytes(statm: text, pageSize: 4096) == nil)
    }

    @Test func thisProcessHasResidentMemory() throws {
        let bytes = try #require(ResidentMemory.current())
        #expect(bytes > 1 << 20)
    }
}
