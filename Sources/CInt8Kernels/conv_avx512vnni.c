// AVX-512 VNNI convolution (vpdpbusd on zmm). Weights [cout/64][k][k][cin4/4][64][4] (pack.c):
// one 4-channel group of a 64-channel block is 4 zmm of 16 output channels × 4 input bytes.
// A tile is TILE output pixels of one row × 64 channels: for each tap and channel group it loads
// the 4 weight vectors once and broadcasts each pixel's 4 input bytes, 4·TILE vpdpbusd on
// 4·TILE accumulators (24 + 4 weights + 1 broadcast of the 32 zmm). The input is read through its
// zero-point border, so the inner loop has no bounds checks.
#if defined(__x86_64__)
#define PQ_TILED_RUN pq_conv_run_avx512vnni
#define TARGET PQ_TARGET_AVX512VNNI
#define BLOCK 64
#define VECTORS (BLOCK / 16)
#define TILE 6
#define GROUP_BYTES (BLOCK * PQ_CHANNEL_GROUP)
#define WEIGHT int8_t
#include "conv_tiled.h"

#include <immintrin.h>

/// Epilogue of a tile's accumulators `sums[pixel][vector]`: output pixels (y, x … x + pixels − 1),
/// channels o … o + 63, of which only the real ones (g->channels) are read and written. The order of
/// operations is conv_naive.c's. Out of line, so that the tile's instantiations stay small.
static __attribute__((noinline)) TARGET void tile_epilogue(const pq_conv *c, const geometry *g,
                                                          const __m512i sums[TILE][VECTORS], int o, int y, int x,
                                                          int pixels) {
    const size_t pixel = (size_t)y * (size_t)c->out_width + (size_t)x;
    __mmask16 masks[VECTORS];
    for (int j = 0; j < VECTORS; j++) {
        const int n = g->channels - 16 * j;
        masks[j] = n >= 16 ? (__mmask16)0xFFFF : n > 0 ? (__mmask16)((1u << n) - 1) : 0;
    }
    const __mmask64 store_mask = g->channels == BLOCK ? ~(__mmask64)0 : ((__mmask64)1 << g->channels) - 1;
    if (c->out_s32) {
        for (int p = 0; p < pixels; p++) {
            int32_t *out = c->out_s32 + (pixel + (size_t)p) * (size_t)c->cout + (size_t)o;
            for (int j = 0; j < VECTORS; j++) _mm512_mask_storeu_epi32(out + 16 * j, masks[j], sums[p][j]);
        }
    }
    if (!c->output.data && !c->out_f32) return;
    const uint8_t *residual =
        c->residual.data ? c->residual.data + y * pq_row_stride(c->residual) + x * c->residual.pixel_stride + o : NULL;
    uint8_t *out = c->output.data ? c->output.data + y * pq_row_stride(c->output) + x * c->output.pixel_stride + o
                                  : NULL;
    float *out_f32 = c->out_f32 ? c->out_f32 + pixel * (size_t)c->out_f32_stride + (size_t)o : NULL;
    const __m512i residual_zero = _mm512_set1_epi32(c->residual_zero), output_zero = _mm512_set1_epi32(c->output_zero);
    const __m512 residual_scale = _mm512_set1_ps(c->residual_scale);
    const __m512 inverse_scale = _mm512_set1_ps(c->output_inverse_scale);
    // Padding channels load as zero and are computed along, but never stored.
    __m512i compensation[VECTORS];
    __m512 scale[VECTORS], bias[VECTORS];
    for (int j = 0; j < VECTORS; j++) {
        compensation[j] = _mm512_maskz_loadu_epi32(masks[j], c->compensation + o + 16 * j);
        scale[j] = _mm512_maskz_loadu_ps(masks[j], c->scale + o + 16 * j);
        bias[j] = _mm512_maskz_loadu_ps(masks[j], c->bias + o + 16 * j);
    }
    for (int p = 0; p < pixels; p++) {
        __m512i q[VECTORS];
        for (int j = 0; j < VECTORS; j++) {
            __m512 v = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(sums[p][j], compensation[j])), scale[j],
                                       bias[j]);
            if (residual) {
                const __m128i bytes =
                    _mm_maskz_loadu_epi8(masks[j], residual + p * c->residual.pixel_stride + 16 * j);
                v = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(_mm512_cvtepu8_epi32(bytes), residual_zero)),
                                    residual_scale, v);
            }
            if (c->relu) v = _mm512_max_ps(v, _mm512_setzero_ps());
            if (out_f32) _mm512_mask_storeu_ps(out_f32 + p * c->out_f32_stride + 16 * j, masks[j], v);
            // pq_saturate_u8: below −2³¹ (and only there) vcvtps2dq gives INT32_MIN, which saturates
            // to 0 like the scalar clamp at −1024.
            q[j] = _mm512_add_epi32(
                _mm512_cvtps_epi32(_mm512_min_ps(_mm512_mul_ps(v, inverse_scale), _mm512_set1_ps(1024.0f))),
                output_zero);
        }
        if (out) {
            // Saturating packs s32 → u16 → u8 of the 4 vectors (in −2³¹ … 1279, so the u16 stage
            // never exceeds s16) interleave them by 128-bit lane; vpermd restores channel order.
            const __m512i bytes = _mm512_packus_epi16(_mm512_packus_epi32(q[0], q[1]), _mm512_packus_epi32(q[2], q[3]));
            const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
            _mm512_mask_storeu_epi8(out + p * c->output.pixel_stride, store_mask,
                                    _mm512_permutexvar_epi32(order, bytes));
        }
    }
}

/// Output pixels (y, x … x + pixels − 1), channels o … o + 63; `origin` is the input pixel under
/// tap (0, 0) of output pixel x, `w` the block's packed weights. `pixels` is a constant after
/// inlining, so the accumulators live in registers.
static inline __attribute__((always_inline)) TARGET void tile(const pq_conv *c, const geometry *g,
                                                             const uint8_t *origin, const int8_t *w, int o, int y,
                                                             int x, int pixels) {
    __m512i acc[TILE][VECTORS];
    for (int p = 0; p < pixels; p++) {
        for (int j = 0; j < VECTORS; j++) acc[p][j] = _mm512_setzero_si512();
    }
    for (int ky = 0; ky < c->k; ky++) {
        for (int kx = 0; kx < c->k; kx++) {
            const uint8_t *tap = origin + ky * g->row_stride + kx * g->pixel_stride;
            for (int i = 0; i < g->groups; i++, w += GROUP_BYTES) {
                __m512i weights[VECTORS];
                for (int j = 0; j < VECTORS; j++) weights[j] = _mm512_load_si512(w + 64 * j);
                for (int p = 0; p < pixels; p++) {
                    const __m512i in = _mm512_set1_epi32(pq_load32(tap + p * g->pixel_step + i * PQ_CHANNEL_GROUP));
                    for (int j = 0; j < VECTORS; j++) acc[p][j] = _mm512_dpbusd_epi32(acc[p][j], in, weights[j]);
                }
            }
        }
    }
    // A copy, so that `acc` is only indexed by constants and stays in registers.
    __m512i sums[TILE][VECTORS];
    for (int p = 0; p < pixels; p++) {
        for (int j = 0; j < VECTORS; j++) sums[p][j] = acc[p][j];
    }
    tile_epilogue(c, g, sums, o, y, x, pixels);
}
#endif
