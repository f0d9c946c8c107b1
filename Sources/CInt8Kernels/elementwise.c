// The elementwise INT8 kernels around the convolutions. Plain C whose inner loops run over the
// contiguous channels (or pixels) of one row, so that the compiler vectorises them on any x86-64;
// the float formulas are the header's, in its order (see conv_internal.h on FP_CONTRACT), so a
// Swift or PyTorch reference reproduces them bit for bit.
#include "conv_internal.h"

// Compiled for AVX-512 and AVX2 as well as the x86-64 baseline, picked at load by the loader
// (ifunc): the same IEEE operations in the same order, so every copy gives the same bytes.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
// ThreadSanitizer instruments the ifunc resolvers, which the loader runs before its runtime is up.
#define PQ_NO_CLONES 1
#endif
#endif
// Clang 17 (Debian 13's swiftlang 6.0.3) crashes on the x86-64-v* clone names (an assertion in its
// X86TargetParser), so that compiler builds the baseline copy only: the same bytes, more slowly.
#if defined(__clang__) && __clang_major__ < 18
#define PQ_NO_CLONES 1
#endif
#if defined(__x86_64__) && !defined(PQ_NO_CLONES)
#define VECTORISED __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define VECTORISED
#endif

static inline uint8_t *pixel_at(pq_tensor t, int y, int x) {
    return t.data + y * pq_row_stride(t) + x * t.pixel_stride;
}

VECTORISED void pq_quantize_planar(const float *input, int channels, int height, int width, float inverse_scale, int zero,
                        pq_tensor output, int row_begin, int row_end) {
    const ptrdiff_t step = output.pixel_stride;
    if (channels == 3 && output.channels == 4 && step == 4) {
        // The network's image: one 32-bit word per pixel (little-endian, as on every target), so
        // that the loop vectorises.
        for (int y = row_begin; y < row_end; y++) {
            uint8_t *row = pixel_at(output, y, 0);
            const float *r = input + (size_t)y * (size_t)width, *g = r + (size_t)height * (size_t)width;
            const float *b = g + (size_t)height * (size_t)width;
            for (int x = 0; x < width; x++) {
                const uint32_t word = (uint32_t)pq_saturate_u8(r[x] * inverse_scale, zero) |
                                      (uint32_t)pq_saturate_u8(g[x] * inverse_scale, zero) << 8 |
                                      (uint32_t)pq_saturate_u8(b[x] * inverse_scale, zero) << 16 |
                                      (uint32_t)(uint8_t)zero << 24;
                memcpy(row + 4 * (ptrdiff_t)x, &word, 4);
            }
        }
        return;
    }
    for (int y = row_begin; y < row_end; y++) {
        uint8_t *row = pixel_at(output, y, 0);
        for (int c = 0; c < output.channels; c++) {
            // Plane-major: reading a plane's row is contiguous, and only the stores are strided.
            if (c < channels) {
                const float *plane = input + ((size_t)c * (size_t)height + (size_t)y) * (size_t)width;
                for (int x = 0; x < width; x++) row[x * step + c] = pq_saturate_u8(plane[x] * inverse_scale, zero);
            } else {
                for (int x = 0; x < width; x++) row[x * step + c] = (uint8_t)zero;
            }
        }
    }
}

void pq_dequantize_planar(pq_tensor input, float scale, int zero, float *output) {
    for (int c = 0; c < input.channels; c++) {
        for (int y = 0; y < input.height; y++) {
            const uint8_t *row = pixel_at(input, y, 0) + c;
            float *plane = output + ((size_t)c * (size_t)input.height + (size_t)y) * (size_t)input.width;
            for (int x = 0; x < input.width; x++) plane[x] = scale * (float)(row[x * input.pixel_stride] - zero);
        }
    }
}

void pq_fill_border(pq_tensor t, uint8_t value) {
    const int padded_width = t.width + 2 * t.border;
    const size_t side = (size_t)t.border * (size_t)t.channels;
    for (int y = -t.border; y < t.height + t.border; y++) {
        const int interior = y >= 0 && y < t.height;
        uint8_t *row = pixel_at(t, y, -t.border);
        if (t.pixel_stride == t.channels) {
            // Dense: a border row, or the two sides of an interior row, are one run each.
            if (!interior) {
                memset(row, value, (size_t)padded_width * (size_t)t.channels);
            } else {
                memset(row, value, side);
                memset(pixel_at(t, y, t.width), value, side);
            }
        } else {
            // A channel slice owns only its channels of each pixel.
            for (int x = 0; x < padded_width; x++) {
                if (interior && x >= t.border && x < t.border + t.width) continue;
                memset(row + (ptrdiff_t)x * t.pixel_stride, value, (size_t)t.channels);
            }
        }
    }
}

void pq_max_pool_3x3s2(pq_tensor input, pq_tensor output, int row_begin, int row_end) {
    const ptrdiff_t row_stride = pq_row_stride(input), step = input.pixel_stride;
    for (int y = row_begin; y < row_end; y++) {
        for (int x = 0; x < output.width; x++) {
            const uint8_t *window = pixel_at(input, 2 * y - 1, 2 * x - 1);
            uint8_t *out = pixel_at(output, y, x);
            for (int c = 0; c < output.channels; c++) {
                uint8_t m = window[c];
                for (int dy = 0; dy < 3; dy++) {
                    for (int dx = 0; dx < 3; dx++) {
                        const uint8_t v = window[dy * row_stride + dx * step + c];
                        m = v > m ? v : m;
                    }
                }
                out[c] = m;
            }
        }
    }
}

VECTORISED void pq_add_upsampled2x(pq_tensor a, float a_scale, int a_zero, pq_tensor b, float b_scale, int b_zero,
                        pq_tensor out, float out_inverse_scale, int out_zero, int row_begin, int row_end) {
    for (int y = row_begin; y < row_end; y++) {
        for (int x = 0; x < a.width; x++) {
            const uint8_t *pa = pixel_at(a, y, x), *pb = pixel_at(b, y / 2, x / 2);
            uint8_t *po = pixel_at(out, y, x);
            // `out` may be `a`: each channel is read before it is written, which vectorising keeps.
#pragma clang loop vectorize(assume_safety)
            for (int c = 0; c < a.channels; c++) {
                const float v = (float)(pa[c] - a_zero) * a_scale + (float)(pb[c] - b_zero) * b_scale;
                po[c] = pq_saturate_u8(v * out_inverse_scale, out_zero);
            }
        }
    }
}

VECTORISED void pq_resize_bilinear(pq_tensor input, float in_scale, int in_zero, pq_tensor output, float out_inverse_scale,
                        int out_zero, const int32_t *rows, const float *row_weights, const int32_t *columns,
                        const float *column_weights, int row_begin, int row_end) {
    for (int y = row_begin; y < row_end; y++) {
        const float r0 = row_weights[2 * y], r1 = row_weights[2 * y + 1];
        for (int x = 0; x < output.width; x++) {
            const float c0 = column_weights[2 * x], c1 = column_weights[2 * x + 1];
            const uint8_t *p00 = pixel_at(input, rows[2 * y], columns[2 * x]);
            const uint8_t *p01 = pixel_at(input, rows[2 * y], columns[2 * x + 1]);
            const uint8_t *p10 = pixel_at(input, rows[2 * y + 1], columns[2 * x]);
            const uint8_t *p11 = pixel_at(input, rows[2 * y + 1], columns[2 * x + 1]);
            uint8_t *out = pixel_at(output, y, x);
            for (int c = 0; c < output.channels; c++) {
                const float v00 = (float)(p00[c] - in_zero) * in_scale, v01 = (float)(p01[c] - in_zero) * in_scale;
                const float v10 = (float)(p10[c] - in_zero) * in_scale, v11 = (float)(p11[c] - in_zero) * in_scale;
                const float v = r0 * (c0 * v00 + c1 * v01) + r1 * (c0 * v10 + c1 * v11);
                out[c] = pq_saturate_u8(v * out_inverse_scale, out_zero);
            }
        }
    }
}

void pq_gather_bev(pq_tensor features, const int32_t *lut, const uint8_t *visible, int depth, uint8_t zero,
                   pq_tensor output, int begin, int end) {
    const size_t channels = (size_t)features.channels;
    for (int p = begin; p < end; p++) {
        uint8_t *out = pixel_at(output, p / output.width, p % output.width);
        for (int z = 0; z < depth; z++) {
            const size_t entry = (size_t)p * (size_t)depth + (size_t)z;
            uint8_t *slot = out + (size_t)z * channels;
            if (visible[entry]) {
                const int32_t source = lut[entry];
                memcpy(slot, pixel_at(features, source / features.width, source % features.width), channels);
            } else {
                memset(slot, zero, channels);
            }
        }
    }
}
