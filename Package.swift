// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Periphery",
    products: [
        .library(name: "Periphery", targets: ["Periphery"]),
        .library(name: "PeripheryCore", targets: ["PeripheryCore"]),
        .library(name: "PeripheryGeometry", targets: ["PeripheryGeometry"]),
        .library(name: "PeripheryRendering", targets: ["PeripheryRendering"]),
        .library(name: "PeripheryIO", targets: ["PeripheryIO"]),
        .library(name: "PeripherySynthetic", targets: ["PeripherySynthetic"]),
        .library(name: "PeripheryInference", targets: ["PeripheryInference"]),
        .library(name: "PeripheryRun", targets: ["PeripheryRun"]),
        .library(name: "PeripheryServer", targets: ["PeripheryServer"]),
        .executable(name: "periphery", targets: ["periphery-cli"]),
        // The C API (periphery.h): `make install` puts it in place as libperiphery.so (its soname).
        .library(name: "PeripheryC", type: .dynamic, targets: ["PeripheryC"]),
    ],
    targets: [
        .target(name: "PeripheryCore"),
        .target(name: "PeripheryGeometry", dependencies: ["PeripheryCore"]),
        .target(name: "PeripheryRendering", dependencies: ["PeripheryCore", "PeripheryGeometry"]),
        .systemLibrary(name: "CLibPNG", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CJPEG", providers: [.apt(["libjpeg-dev"])]),
        // Video files, cameras and streams: FFmpeg's libraries (CFFmpeg) behind a small C reader and
        // H.264 writer (CVideo).
        .systemLibrary(
            name: "CFFmpeg", pkgConfig: "libavformat",
            providers: [.apt(["libavdevice-dev", "libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswscale-dev"])]),
        .target(name: "CVideo", dependencies: ["CFFmpeg"]),
        .target(name: "PeripheryIO", dependencies: ["PeripheryCore", "PeripheryGeometry", "CLibPNG", "CJPEG", "CFFmpeg", "CVideo"]),
        .target(name: "PeripherySynthetic", dependencies: ["PeripheryCore", "PeripheryGeometry", "PeripheryIO"]),
        // Headers only: the library is loaded at run time by BLAS/OpenBLAS.swift (see shim.h).
        .systemLibrary(name: "COpenBLAS", providers: [.apt(["libopenblas-dev"])]),
        // INT8 convolution kernels (AVX2, AVX-VNNI, AVX-512 VNNI, NEON and a naive reference), chosen at load.
        .target(name: "CInt8Kernels"),
        .target(
            name: "PeripheryInference",
            dependencies: ["PeripheryCore", "PeripheryGeometry", "COpenBLAS", "CInt8Kernels"],
            resources: [.copy("Resources/Conformance")]
        ),
        // A run above the engine: an input opened (`FrameInput`), the session over its frames and the
        // session's outputs (sidecar, MCAP, composites).
        .target(
            name: "PeripheryRun", dependencies: ["PeripheryCore", "PeripheryGeometry", "PeripheryRendering", "PeripheryIO", "PeripheryInference"]
        ),
        // The live view (docs/guides/live.md): an HTTP + WebSocket server over Debian's libwebsockets
        // (CLibWebSockets) behind a small C layer that owns its thread (CLiveServer), the Foxglove
        // WebSocket protocol and the page.
        .systemLibrary(name: "CLibWebSockets", providers: [.apt(["libwebsockets-dev"])]),
        .target(name: "CLiveServer", dependencies: ["CLibWebSockets"]),
        .target(
            name: "PeripheryServer",
            dependencies: ["PeripheryCore", "PeripheryIO", "PeripheryRun", "CLibWebSockets", "CLiveServer"],
            resources: [.copy("Page")]
        ),
        // The umbrella: `import Periphery` is the one import a program needs.
        .target(
            name: "Periphery",
            dependencies: [
                "PeripheryCore", "PeripheryGeometry", "PeripheryRendering", "PeripheryIO", "PeripherySynthetic", "PeripheryInference",
                "PeripheryRun", "PeripheryServer",
            ]
        ),
        .executableTarget(name: "periphery-cli", dependencies: ["Periphery"]),
        // The C API's boundary: periphery.h and the thread-local error message (CPeriphery), the
        // exported functions over the library (PeripheryC).
        .target(name: "CPeriphery"),
        .target(
            name: "PeripheryC",
            dependencies: ["CPeriphery", "PeripheryCore", "PeripheryGeometry", "PeripheryIO", "PeripheryInference", "PeripheryRun"],
            linkerSettings: [.unsafeFlags(["-Xlinker", "-soname=libperiphery.so"])]
        ),
        // The README's first Swift block, built and run by `make test` (Tests/e2e/test_readme.py).
        .executableTarget(name: "periphery-example", dependencies: ["Periphery"], path: "Examples/QuickStart"),
        // The README's live-stream block, run against a UDP stream by Tests/e2e/test_live.py.
        .executableTarget(name: "periphery-live-example", dependencies: ["Periphery"], path: "Examples/LiveStream"),
        .testTarget(
            name: "PeripheryCoreTests",
            dependencies: ["PeripheryCore", "PeripheryTestSupport"],
            // Read through #filePath, so that tests see the checked-in bytes.
            exclude: ["Fixtures"]
        ),
        .testTarget(name: "PeripheryGeometryTests", dependencies: ["PeripheryCore", "PeripheryGeometry", "PeripheryTestSupport"]),
        .testTarget(
            name: "PeripheryRenderingTests",
            dependencies: ["PeripheryCore", "PeripheryGeometry", "PeripheryRendering", "PeripheryTestSupport"]
        ),
        .testTarget(
            name: "PeripheryIOTests",
            dependencies: ["PeripheryCore", "PeripheryGeometry", "PeripheryIO", "PeripheryTestSupport"],
            // Read through #filePath, so that tests see the checked-in bytes.
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "PeripherySyntheticTests",
            dependencies: ["PeripheryCore", "PeripheryGeometry", "PeripheryIO", "PeripherySynthetic", "PeripheryTestSupport"]
        ),
        // Test support shared by the test targets: the repository root, a seeded generator, the golden
        // calibration and a scratch folder per test.
        .target(name: "PeripheryTestSupport", dependencies: ["PeripheryGeometry"], path: "Tests/TestSupport"),
        // Test support: a counting malloc for the allocation-free hot-path test (see its source).
        .target(name: "CAllocationCounter", path: "Tests/CAllocationCounter"),
        .testTarget(
            name: "PeripheryServerTests",
            dependencies: ["PeripheryCore", "PeripheryIO", "PeripheryRun", "PeripheryServer", "CLiveServer", "PeripheryTestSupport"]
        ),
        // A program as a user writes it: `import Periphery` and the standard library's and Foundation's
        // names (`Decoder`, `Encoder`, `Data`, `URL`) unqualified; it stops compiling if a public type shadows one.
        .testTarget(name: "PeripheryUmbrellaTests", dependencies: ["Periphery"]),
        .testTarget(
            name: "PeripheryInferenceTests",
            dependencies: [
                "PeripheryCore", "PeripheryGeometry", "PeripheryRendering", "PeripheryIO", "PeripheryInference", "PeripheryTestSupport",
                "CAllocationCounter", "CInt8Kernels",
            ],
            // Read through #filePath, so that tests see the checked-in bytes.
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "PeripheryRunTests",
            dependencies: [
                "PeripheryCore", "PeripheryGeometry", "PeripheryIO", "PeripheryInference", "PeripheryRun", "PeripheryTestSupport",
            ]
        ),
        // Tests across modules: the synthetic world rendered and run through the engine end to end.
        .testTarget(
            name: "PeripheryIntegrationTests",
            dependencies: [
                "PeripheryCore", "PeripheryGeometry", "PeripheryIO", "PeripherySynthetic", "PeripheryInference", "PeripheryRun",
                "PeripheryTestSupport",
            ],
            // Read through #filePath, so that tests see the checked-in bytes.
            exclude: ["Fixtures"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// libFuzzer harnesses (Fuzz/, `make fuzz`): only with PERIPHERY_FUZZ=1, because the executable
// links only with -sanitize=fuzzer, which supplies LLVMFuzzerRunDriver.
if Context.environment["PERIPHERY_FUZZ"] == "1" {
    package.targets.append(.executableTarget(
        name: "periphery-fuzz", dependencies: ["Periphery"],
        path: "Fuzz/Harnesses"))
}
