/// A view of a `[channels, height, width]` float32 tensor (batch 1, NCHW) inside an arena.
///
/// A plain struct over a pointer: it does not own its memory. The arena that planned it keeps the
/// storage alive for as long as the network that uses it.
struct Tensor {
    /// First element; channel-major, then rows, then columns.
    let data: UnsafeMutablePointer<Float>
    let channels: Int
    let height: Int
    let width: Int

    /// Elements per channel.
    var plane: Int { height * width }
    /// All elements.
    var count: Int { channels * plane }

    /// The `[channels, height, width]` view of channels `range`.
    func channels(_ range: Range<Int>) -> Tensor {
        Tensor(data: data + range.lowerBound * plane, channels: range.count, height: height, width: width)
    }
}

/// One allocation that holds every activation and scratch buffer of a network, planned once.
final class TensorArena {
    private let raw: UnsafeMutableRawPointer
    private let storage: UnsafeMutableBufferPointer<Float>
    private var used = 0

    /// Allocates `capacity` floats, 64-byte aligned and zeroed.
    init(capacity: Int) {
        let count = max(1, capacity)
        raw = UnsafeMutableRawPointer.allocate(
            byteCount: count * MemoryLayout<Float>.stride, alignment: TensorArena.alignment * MemoryLayout<Float>.stride)
        storage = UnsafeMutableBufferPointer(start: raw.initializeMemory(as: Float.self, repeating: 0, count: count), count: count)
    }

    deinit { raw.deallocate() }

    /// Alignment of every buffer, in floats (64 bytes).
    static let alignment = 16

    /// Carves `count` floats, 64-byte aligned, out of the arena.
    func take(_ count: Int) -> UnsafeMutablePointer<Float> {
        let start = (used + TensorArena.alignment - 1) & ~(TensorArena.alignment - 1)
        precondition(start + count <= storage.count, "arena of \(storage.count) floats exhausted")
        guard let base = storage.baseAddress else { preconditionFailure("empty arena") }
        used = start + count
        return base + start
    }

    /// Carves a `[channels, height, width]` tensor.
    func tensor(_ channels: Int, _ height: Int, _ width: Int) -> Tensor {
        Tensor(data: take(channels * height * width), channels: channels, height: height, width: width)
    }
}
