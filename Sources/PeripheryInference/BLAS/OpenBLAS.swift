import COpenBLAS
import Foundation

/// What the BLAS under the runtime is: kernel, threads and the outcome of its self-test.
package struct BLASInfo: Sendable, Hashable {
    /// Where the kernel choice came from.
    package enum CoreSource: String, Sendable {
        /// The user's `OPENBLAS_CORETYPE`, left untouched.
        case environment
        /// Chosen by this library from the CPU features.
        case cpuFeatures = "cpu-features"
        /// Left to OpenBLAS (no better choice known for this CPU).
        case library
    }

    /// Kernel OpenBLAS runs (`openblas_get_corename`), e.g. `Zen`, `Haswell`, `SkylakeX`.
    package let coreName: String
    /// The core type that was requested before loading, if any.
    package let requestedCore: String?
    /// Where the request came from.
    package let source: CoreSource
    /// OpenBLAS build configuration string.
    package let config: String
    /// Path that was loaded.
    package let libraryPath: String
    /// Max relative error of the load-time sgemm self-test against a naive product.
    package let selfTestError: Double

    /// A warning when the user's `OPENBLAS_CORETYPE` selects an older kernel family than this
    /// CPU runs (e.g. `Haswell` on an AVX-512 CPU, docs/results/benchmarks.md). Never for an ARM
    /// core name: OpenBLAS's ARM core types are not ranked (docs/guides/arm64.md).
    package var slowerKernelWarning: String? {
        // x86 kernel families by the widest instructions they use; ARM names are not ranked.
        let rank = ["prescott": 0, "nehalem": 1, "sandybridge": 2, "haswell": 3, "zen": 3, "skylakex": 4, "cooperlake": 4, "sapphirerapids": 4]
        guard source == .environment, let requested = requestedCore, let best = CPUFeatures.current.openBLASCoreType,
            let have = rank[requested.lowercased()], let could = rank[best.lowercased()], have < could
        else { return nil }
        return "OPENBLAS_CORETYPE=\(requested) selects slower FP32 kernels than this CPU supports (\(best)); unset it for full speed"
    }
}

/// Why OpenBLAS cannot be used.
public enum BLASError: Error, Equatable, CustomStringConvertible {
    /// No OpenBLAS shared library could be loaded.
    case libraryNotFound(tried: [String], reason: String)
    /// A required symbol is missing.
    case missingSymbol(String)
    /// The sgemm self-test disagreed with the naive product.
    case selfTestFailed(core: String, relativeError: Double)

    public var description: String {
        switch self {
        case .libraryNotFound(let tried, let reason):
            "OpenBLAS not found (tried \(tried.joined(separator: ", "))): \(reason); install libopenblas-dev"
        case .missingSymbol(let name): "OpenBLAS lacks symbol \(name)"
        case .selfTestFailed(let core, let error): "OpenBLAS sgemm self-test failed on core \(core): relative error \(error)"
        }
    }
}

/// The process's OpenBLAS, loaded on first use with the best correct kernel for this CPU.
///
/// OpenBLAS picks its kernel in a load-time constructor from `OPENBLAS_CORETYPE`, so the library is
/// not linked: it is `dlopen`ed here after setting that variable from the CPU features (unless the
/// user set it). A small sgemm is then checked against a naive product. Thread count is
/// process-wide: OpenBLAS has one thread pool per process.
package final class OpenBLAS: Sendable {
    typealias SgemmFunction =
        @convention(c) (
            CBLAS_ORDER, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, Int32, Int32, Int32, Float,
            UnsafePointer<Float>?, Int32, UnsafePointer<Float>?, Int32, Float, UnsafeMutablePointer<Float>?, Int32
        ) -> Void
    typealias CoreNameFunction = @convention(c) () -> UnsafeMutablePointer<CChar>?
    typealias SetThreadsFunction = @convention(c) (Int32) -> Void
    typealias GetThreadsFunction = @convention(c) () -> Int32

    let sgemmFunction: SgemmFunction
    let setThreadsFunction: SetThreadsFunction
    let getThreadsFunction: GetThreadsFunction
    /// What was loaded and how it tested.
    let info: BLASInfo

    /// Library names tried in order: by soname through the loader's search path, then in
    /// Debian's multiarch directory of this machine, for a loader cache that lacks it.
    static let candidates = ["libopenblas.so.0", "libopenblas.so", "/usr/lib/\(multiarchTriplet)/libopenblas.so.0"]

    /// The GNU triplet that names Debian's multiarch directory: `uname -m` and `-linux-gnu`
    /// (`x86_64-linux-gnu`, `aarch64-linux-gnu`).
    static var multiarchTriplet: String {
        var name = utsname()
        uname(&name)
        let machine = withUnsafeBytes(of: name.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return machine + "-linux-gnu"
    }

    /// The loaded library, or why it could not be loaded. Loaded once, thread-safely.
    package static let shared: Result<OpenBLAS, BLASError> = Result { () throws(BLASError) in try OpenBLAS() }

    /// The loaded library.
    ///
    /// - Throws: `BLASError` if OpenBLAS is missing or fails its self-test.
    package static func load() throws(BLASError) -> OpenBLAS { try shared.get() }

    private init() throws(BLASError) {
        let requested: String?, source: BLASInfo.CoreSource
        if let user = ProcessInfo.processInfo.environment["OPENBLAS_CORETYPE"], !user.isEmpty {
            (requested, source) = (user, .environment)
        } else if let chosen = CPUFeatures.current.openBLASCoreType {
            setenv("OPENBLAS_CORETYPE", chosen, 1)
            (requested, source) = (chosen, .cpuFeatures)
        } else {
            (requested, source) = (nil, .library)
        }
        var handle: UnsafeMutableRawPointer?
        var loaded = ""
        for name in OpenBLAS.candidates {
            handle = dlopen(name, RTLD_NOW | RTLD_LOCAL)
            if handle != nil {
                loaded = name
                break
            }
        }
        guard let handle else {
            let reason = dlerror().map { String(cString: $0) } ?? "dlopen failed"
            throw .libraryNotFound(tried: OpenBLAS.candidates, reason: reason)
        }
        func symbol<T>(_ name: String, as type: T.Type) throws(BLASError) -> T {
            guard let pointer = dlsym(handle, name) else { throw .missingSymbol(name) }
            return unsafeBitCast(pointer, to: type)
        }
        sgemmFunction = try symbol("cblas_sgemm", as: SgemmFunction.self)
        setThreadsFunction = try symbol("openblas_set_num_threads", as: SetThreadsFunction.self)
        getThreadsFunction = try symbol("openblas_get_num_threads", as: GetThreadsFunction.self)
        let coreName = try symbol("openblas_get_corename", as: CoreNameFunction.self)().map { String(cString: $0) } ?? "unknown"
        let config = try symbol("openblas_get_config", as: CoreNameFunction.self)().map { String(cString: $0) } ?? ""
        let error = OpenBLAS.selfTest(sgemmFunction)
        guard error <= 1e-5 else { throw .selfTestFailed(core: coreName, relativeError: error) }
        info = BLASInfo(
            coreName: coreName, requestedCore: requested, source: source, config: config,
            libraryPath: loaded, selfTestError: error)
    }

    /// Max relative error of a 37×29×41 sgemm (odd sizes, to reach the kernels' edge code) against
    /// a naive product accumulated in Double.
    static func selfTest(_ sgemm: SgemmFunction) -> Double {
        let m = 37, n = 29, k = 41
        var state: UInt32 = 12345
        func next() -> Float {
            state = state &* 1_664_525 &+ 1_013_904_223
            return Float(state >> 8) / Float(1 << 24) - 0.5
        }
        let a = (0..<(m * k)).map { _ in next() }, b = (0..<(k * n)).map { _ in next() }
        var c = [Float](repeating: 0, count: m * n)
        sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, Int32(m), Int32(n), Int32(k), 1, a, Int32(k), b, Int32(n), 0, &c, Int32(n))
        var worst = 0.0, scale = 0.0
        for i in 0..<m {
            for j in 0..<n {
                var sum = 0.0
                for p in 0..<k { sum += Double(a[i * k + p]) * Double(b[p * n + j]) }
                worst = max(worst, abs(Double(c[i * n + j]) - sum))
                scale = max(scale, abs(sum))
            }
        }
        return worst.isNaN ? .infinity : worst / max(scale, .leastNormalMagnitude)
    }

    /// OpenBLAS's own thread count (process-wide).
    var threads: Int { Int(getThreadsFunction()) }

    /// Sets OpenBLAS's own thread count (process-wide).
    func setThreads(_ count: Int) { setThreadsFunction(Int32(max(1, count))) }

    /// `C[m×n] = alpha · op(A) · op(B) + beta · C`, row-major, leading dimensions in elements.
    @inline(__always)
    func sgemm(
        transposeA: Bool = false, transposeB: Bool = false, m: Int, n: Int, k: Int, alpha: Float = 1,
        a: UnsafePointer<Float>, lda: Int, b: UnsafePointer<Float>, ldb: Int,
        beta: Float, c: UnsafeMutablePointer<Float>, ldc: Int
    ) {
        sgemmFunction(
            CblasRowMajor, transposeA ? CblasTrans : CblasNoTrans, transposeB ? CblasTrans : CblasNoTrans,
            Int32(m), Int32(n), Int32(k), alpha, a, Int32(lda), b, Int32(ldb), beta, c, Int32(ldc))
    }
}

/// The BLAS the runtime uses, for reporting.
package enum BLASRuntime {
    /// Loads OpenBLAS if needed and describes it.
    ///
    /// - Throws: `BLASError` if OpenBLAS is missing or fails its self-test.
    package static func info() throws(BLASError) -> BLASInfo { try OpenBLAS.load().info }

    /// OpenBLAS's own thread count, process-wide. A `Detector` sets it to 1: it splits each layer
    /// across its own workers and calls OpenBLAS single-threaded from each.
    package static func threads() throws(BLASError) -> Int { try OpenBLAS.load().threads }
}
