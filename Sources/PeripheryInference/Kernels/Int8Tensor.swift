import CInt8Kernels

/// A uint8 NHWC activation (`pq_tensor`, see int8_kernels.h) with the quantization of the point
/// that wrote it.
struct Int8Tensor {
    let view: pq_tensor
    let quantization: ActivationQuantization

    var height: Int { Int(view.height) }
    var width: Int { Int(view.width) }
    var channels: Int { Int(view.channels) }

    /// The view of channels `range` (same pixels, same stride).
    func channels(_ range: Range<Int>, quantization: ActivationQuantization) -> Int8Tensor {
        var slice = view
        slice.data = view.data + range.lowerBound
        slice.channels = Int32(range.count)
        return Int8Tensor(view: slice, quantization: quantization)
    }

    /// Dequantized planar `[channels, height, width]` copy (dumps and tests, not the hot path).
    func planarFloats() -> [Float] {
        var out = [Float](repeating: 0, count: channels * height * width)
        out.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            pq_dequantize_planar(view, quantization.scale, Int32(quantization.zeroPoint), base)
        }
        return out
    }
}

/// One 64-byte-aligned, zeroed allocation of bytes that holds every INT8 activation of a network.
final class ByteArena {
    private let raw: UnsafeMutableRawPointer
    private let capacity: Int
    private var used = 0

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        raw = .allocate(byteCount: self.capacity, alignment: 64)
        raw.initializeMemory(as: UInt8.self, repeating: 0, count: self.capacity)
    }

    deinit { raw.deallocate() }

    /// Bytes a tensor of this geometry takes, rounded up to the alignment.
    static func bytes(height: Int, width: Int, channels: Int, border: Int) -> Int {
        ((height + 2 * border) * (width + 2 * border) * channels + 63) & ~63
    }

    /// Carves an NHWC tensor with a border filled with `quantization`'s zero point.
    func tensor(height: Int, width: Int, channels: Int, border: Int, quantization: ActivationQuantization) -> Int8Tensor {
        let count = ByteArena.bytes(height: height, width: width, channels: channels, border: border)
        precondition(used + count <= capacity, "byte arena of \(capacity) exhausted")
        let base = (raw + used).assumingMemoryBound(to: UInt8.self)
        used += count
        let view = pq_tensor(
            data: base + (border * (width + 2 * border) + border) * channels, height: Int32(height), width: Int32(width),
            channels: Int32(channels), border: Int32(border), pixel_stride: Int32(channels))
        pq_fill_border(view, quantization.zeroPoint)
        return Int8Tensor(view: view, quantization: quantization)
    }
}
