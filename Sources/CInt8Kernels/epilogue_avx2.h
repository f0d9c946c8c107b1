// The convolution epilogue on 8 channels in a ymm register, shared by the AVX2 and AVX-VNNI
// kernels (it needs AVX2 and FMA only); the operation order is conv_naive.c's epilogue. Included
// by a kernel's file after the macros of conv_tiled.h, whose TILE and geometry its tile_epilogue
// takes. x86-64 only, like its kernels.
#ifndef PERIPHERY_EPILOGUE_AVX2_H
#define PERIPHERY_EPILOGUE_AVX2_H

#if defined(__x86_64__)
#include "conv_tiled.h"

#include <immintrin.h>

/// The first n ≤ 8 bytes at p; a whole vector's 8 in one load, which the common n = 8 needs to be.
static inline uint64_t pq_load_bytes8(const uint8_t *p, int n) {
    uint64_t bytes = 0;
    if (n == 8) {
        memcpy(&bytes, p, 8);
    } else {
        memcpy(&bytes, p, (size_t)n);
    }
    return bytes;
}

/// Stores the first n ≤ 8 bytes of `bytes` at p.
static inline void pq_store_bytes8(uint8_t *p, uint64_t bytes, int n) {
    if (n == 8) {
        memcpy(p, &bytes, 8);
    } else {
        memcpy(p, &bytes, (size_t)n);
    }
}

/// Epilogue of the accumulators of channels o … o + n − 1 (1 ≤ n ≤ 8) of output pixel (y, x).
/// Partial vectors are read and written through masks or a bounce buffer, never past channel n.
static inline __attribute__((always_inline)) PQ_TARGET_AVX2 void pq_epilogue8(const pq_conv *c, __m256i acc, int o,
                                                                            int n, int y, int x) {
    const size_t pixel = (size_t)y * (size_t)c->out_width + (size_t)x;
    const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    if (c->out_s32) _mm256_maskstore_epi32(c->out_s32 + pixel * (size_t)c->cout + (size_t)o, mask, acc);
    if (!c->output.data && !c->out_f32) return;
    const __m256i compensation = _mm256_maskload_epi32(c->compensation + o, mask);
    const __m256 scale = _mm256_maskload_ps(c->scale + o, mask), bias = _mm256_maskload_ps(c->bias + o, mask);
    __m256 v = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(acc, compensation)), scale, bias);
    if (c->residual.data) {
        const uint8_t *r = c->residual.data + y * pq_row_stride(c->residual) + x * c->residual.pixel_stride + o;
        const __m256i residual = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)pq_load_bytes8(r, n)));
        v = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(residual, _mm256_set1_epi32(c->residual_zero))),
                            _mm256_set1_ps(c->residual_scale), v);
    }
    if (c->relu) v = _mm256_max_ps(v, _mm256_setzero_ps());
    if (c->output.data) {
        // pq_saturate_u8: below −2³¹ (and only there) vcvtps2dq gives INT32_MIN, which the
        // saturating packs turn into 0 like the scalar clamp at −1024.
        const __m256 t = _mm256_min_ps(_mm256_mul_ps(v, _mm256_set1_ps(c->output_inverse_scale)),
                                       _mm256_set1_ps(1024.0f));
        const __m256i q = _mm256_add_epi32(_mm256_cvtps_epi32(t), _mm256_set1_epi32(c->output_zero));
        const __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
        pq_store_bytes8(c->output.data + y * pq_row_stride(c->output) + x * c->output.pixel_stride + o,
                        (uint64_t)_mm_cvtsi128_si64(_mm_packus_epi16(words, words)), n);
    }
    if (c->out_f32) _mm256_maskstore_ps(c->out_f32 + pixel * (size_t)c->out_f32_stride + (size_t)o, mask, v);
}

/// Epilogue of the accumulators `sums[pixel][vector]` of a tile of 16 channels at o; out of line,
/// so that the tile's instantiations stay small.
static __attribute__((noinline)) PQ_TARGET_AVX2 void tile_epilogue(const pq_conv *c, const geometry *g,
                                                                  const __m256i sums[TILE][2], int o, int y, int x,
                                                                  int pixels) {
    const int n = g->channels;
    for (int p = 0; p < pixels; p++) {
        pq_epilogue8(c, sums[p][0], o, n < 8 ? n : 8, y, x + p);
        if (n > 8) pq_epilogue8(c, sums[p][1], o + 8, n - 8, y, x + p);
    }
}

#endif
#endif
