import Foundation

/// `periphery-fuzz HARNESS [libFuzzer options] [CORPUS… | INPUT…]`: libFuzzer over one of the
/// library's parsers (`make fuzz`). Built only with PERIPHERY_FUZZ=1 and -sanitize=fuzzer,address.
typealias Harness = @convention(c) (UnsafePointer<UInt8>, Int) -> CInt

let harnesses: [(name: String, run: Harness)] = [
    ("safetensors", { fuzzSafetensors($0, $1) }),
    ("image", { fuzzImage($0, $1) }),
    ("calibration", { fuzzCalibration($0, $1) }),
    ("drive-csv", { fuzzDriveCSV($0, $1) }),
    ("detection-stream", { fuzzDetectionStream($0, $1) }),
    ("video", { fuzzVideo($0, $1) }),
    ("gpsd", { fuzzGPSD($0, $1) }),
    ("foxglove-client", { fuzzFoxgloveClient($0, $1) }),
]

/// libFuzzer's driver for a harness that is not called LLVMFuzzerTestOneInput.
@_silgen_name("LLVMFuzzerRunDriver")
func runDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ harness: Harness) -> CInt

let arguments = CommandLine.arguments
guard arguments.count >= 2, let harness = harnesses.first(where: { $0.name == arguments[1] }) else {
    FileHandle.standardError.write(Data("usage: periphery-fuzz {\(harnesses.map(\.name).joined(separator: "|"))} [libFuzzer options] [corpus…]\n".utf8))
    exit(2)
}
// libFuzzer parses argv itself: hand it the program name and everything after the harness name.
var driverArguments = ([arguments[0]] + arguments.dropFirst(2)).map { strdup($0) } + [nil]
var argc = CInt(driverArguments.count - 1)
exit(driverArguments.withUnsafeMutableBufferPointer { buffer in
    var argv = buffer.baseAddress
    return runDriver(&argc, &argv, harness.run)
})
