import Periphery

/// `periphery selfcheck`: the reference self-check against the conformance vectors.
enum SelfCheckCommand: Command {
    static let name = "selfcheck"
    static let summary = "Check contract, geometry, LUT and decode against the reference's golden vectors."
    static let help = """
        USAGE: periphery selfcheck [--vectors DIR]

        Runs the reference self-check items 1–8 and prints one line per check with its measured
        error: items 1–6 (voxel points, anchors, focal-matched crop, projection, projection LUT,
        decode) against the golden vectors, items 7–8 (mount-axis signs, focus-of-expansion round
        trip) as consistency checks of the project's own geometry, marked so. Exits 0 only if every
        check passes.

        OPTIONS:
          --vectors DIR   directory with selfcheck.json, selfcheck_grid.safetensors,
                          selfcheck_head.safetensors and selfcheck_lut.bin
                          (default: the copy bundled with the library)
          --help          show this help
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(arguments, options: ["vectors"], flags: [])
        try args.expectNoPositional()
        let vectors = try args.value("vectors").map(SelfCheckVectors.init(directory:)) ?? SelfCheckVectors.bundled()
        let results = SelfCheck.run(vectors)
        for r in results {
            let basis = r.basis == .consistency ? " (consistency check, no golden)" : ""
            print("\(r.passed ? "PASS" : "FAIL")  \(r.number). \(r.name)\(basis): \(r.detail)")
        }
        let passed = results.filter(\.passed).count
        let golden = results.filter { $0.basis == .golden }.count
        print("\(passed)/\(results.count) checks passed (\(golden) against the golden vectors, \(results.count - golden) consistency checks)")
        return passed == results.count ? 0 : 1
    }
}
