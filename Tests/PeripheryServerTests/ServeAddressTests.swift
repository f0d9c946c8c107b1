import Testing

@testable import PeripheryServer

struct ServeAddressTests {
    @Test(arguments: [
        ("8080", "127.0.0.1", 8080, true), ("0.0.0.0:9000", "0.0.0.0", 9000, false), ("127.0.0.5:1", "127.0.0.5", 1, true),
        ("localhost:80", "127.0.0.1", 80, true), ("[::1]:8080", "::1", 8080, true), ("[::]:8080", "::", 8080, false),
        ("192.168.1.20:0", "192.168.1.20", 0, false),
    ])
    func parses(text: String, host: String, port: Int, loopback: Bool) throws {
        let address = try ServeAddress(parsing: text)
        #expect(address.host == host && address.port == port && address.isLoopback == loopback)
    }

    @Test(arguments: ["", "http", "65536", "-1", "1.2.3:80", "256.1.1.1:80", "example.com:80", "[::1]8080", "[::1", ":80x"])
    func refuses(text: String) {
        #expect(throws: LiveViewServerError.self) { try ServeAddress(parsing: text) }
    }

    @Test func authorityBracketsIPv6() throws {
        #expect(try ServeAddress(parsing: "[::1]:8080").authority == "[::1]:8080")
        #expect(try ServeAddress(parsing: "8080").authority == "127.0.0.1:8080")
    }
}
