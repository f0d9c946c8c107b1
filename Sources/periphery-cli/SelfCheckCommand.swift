import Periphery

/// `periphery selfcheck`: the reference self-check against the conformance vectors.
enum SelfCheckCommand: Command {
    static let name = "selfcheck"
    static let summary = "Check contract, geometry, LUT and decode against the reference's golden vectors."
    static let help = """
        USAGE: periphery selfcheck [--vectors DIR]

        Runs the reference self-check items 1–8 (voxel points, anchors, focal-matched crop,
        projection, projection LUT, decode, mount-axis signs, focus-of-expansion round trip) and
        prints one line per check with its measured error. Exits 0 only if every check passes.

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
            print("\(r.passed ? "PASS" : "FAIL")  \(r.number). \(r.name): \(r.detail)")
        }
        let passed = results.filter(\.passed).count
        print("\(passed)/\(results.count) checks passed")
        return passed == results.count ? 0 : 1
    }
}
