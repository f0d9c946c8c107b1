// The convolution epilogue on 4 channels in a q register, shared by the NEON kernels (it needs
// ARMv8.0 Advanced SIMD only). Every operation is conv_naive.c's, in its order, so the results are
// bit-identical: vfmaq_f32 where it says fmaf, a separate vmulq_f32 elsewhere (GCC must be told
// -ffp-contract=off, as it ignores conv_internal.h's pragma). Included by a NEON kernel's file
// after the macros of conv_tiled.h and SIGNED_ACTIVATIONS, 1 when its products are (a − 128)·w,
// so that tile_epilogue adds pack.c's 128·Σw back. AArch64 only, like its kernels.
#ifndef PERIPHERY_EPILOGUE_NEON_H
#define PERIPHERY_EPILOGUE_NEON_H

#if defined(__aarch64__)
#include "conv_tiled.h"

#include <arm_neon.h>

/// The first n ≤ 4 lanes of 4 bytes at p, zero beyond: partial vectors go through a local copy,
/// never past lane n; a whole vector's 16 bytes in one copy, which the common n = 4 needs to be.
static inline uint32x4_t pq_load_lanes(const void *p, int n) {
    uint32_t lanes[4] = {0, 0, 0, 0};
    if (n == 4) {
        memcpy(lanes, p, sizeof lanes);
    } else {
        memcpy(lanes, p, (size_t)n * sizeof lanes[0]);
    }
    return vld1q_u32(lanes);
}

/// Stores the first n ≤ 4 lanes of `v` at p.
static inline void pq_store_lanes(void *p, uint32x4_t v, int n) {
    uint32_t lanes[4];
    vst1q_u32(lanes, v);
    if (n == 4) {
        memcpy(p, lanes, sizeof lanes);
    } else {
        memcpy(p, lanes, (size_t)n * sizeof lanes[0]);
    }
}

/// The first n ≤ 4 bytes at p, as in pq_load_lanes.
static inline uint32_t pq_load_bytes4(const uint8_t *p, int n) {
    uint32_t bytes = 0;
    if (n == 4) {
        memcpy(&bytes, p, 4);
    } else {
        memcpy(&bytes, p, (size_t)n);
    }
    return bytes;
}

/// Epilogue of the accumulators of channels o … o + n − 1 (1 ≤ n ≤ 4) of output pixel (y, x).
static inline __attribute__((always_inline)) void pq_epilogue4(const pq_conv *c, int32x4_t acc, int o, int n, int y,
                                                               int x) {
    const size_t pixel = (size_t)y * (size_t)c->out_width + (size_t)x;
    if (c->out_s32) pq_store_lanes(c->out_s32 + pixel * (size_t)c->cout + (size_t)o, vreinterpretq_u32_s32(acc), n);
    if (!c->output.data && !c->out_f32) return;
    const int32x4_t compensation = vreinterpretq_s32_u32(pq_load_lanes(c->compensation + o, n));
    const float32x4_t scale = vreinterpretq_f32_u32(pq_load_lanes(c->scale + o, n));
    const float32x4_t bias = vreinterpretq_f32_u32(pq_load_lanes(c->bias + o, n));
    float32x4_t v = vfmaq_f32(bias, vcvtq_f32_s32(vsubq_s32(acc, compensation)), scale);
    if (c->residual.data) {
        const uint8_t *r = c->residual.data + y * pq_row_stride(c->residual) + x * c->residual.pixel_stride + o;
        const uint16x8_t words = vmovl_u8(vcreate_u8(pq_load_bytes4(r, n)));
        const int32x4_t residual = vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(words)));
        v = vfmaq_f32(v, vcvtq_f32_s32(vsubq_s32(residual, vdupq_n_s32(c->residual_zero))),
                      vdupq_n_f32(c->residual_scale));
    }
    // v > 0 ? v : 0 by compare and select: vmaxq_f32 would keep NaN, the scalar turns it into +0.
    const float32x4_t zero = vdupq_n_f32(0.0f);
    if (c->relu) v = vbslq_f32(vcgtq_f32(v, zero), v, zero);
    if (c->output.data) {
        // pq_saturate_u8's clamps, NaN included (it fails t < 1024 and becomes 1024, so 255); then
        // vcvtnq rounds to nearest even exactly like its 1.5·2²³ trick on |t| ≤ 1024, and the
        // saturating narrows clamp to 0…255 (t + zero lies in −1024…1279).
        const float32x4_t high = vdupq_n_f32(1024.0f), low = vdupq_n_f32(-1024.0f);
        float32x4_t t = vmulq_f32(v, vdupq_n_f32(c->output_inverse_scale));
        t = vbslq_f32(vcltq_f32(t, high), t, high);
        t = vbslq_f32(vcgtq_f32(t, low), t, low);
        const int16x4_t q = vqmovn_s32(vaddq_s32(vcvtnq_s32_f32(t), vdupq_n_s32(c->output_zero)));
        const uint8x8_t bytes = vqmovun_s16(vcombine_s16(q, q));
        const uint32_t word = vget_lane_u32(vreinterpret_u32_u8(bytes), 0);
        uint8_t *out = c->output.data + y * pq_row_stride(c->output) + x * c->output.pixel_stride + o;
        if (n == 4) {
            memcpy(out, &word, 4);
        } else {
            memcpy(out, &word, (size_t)n);
        }
    }
    if (c->out_f32) pq_store_lanes(c->out_f32 + pixel * (size_t)c->out_f32_stride + (size_t)o, vreinterpretq_u32_f32(v), n);
}

/// Epilogue of the accumulators `sums[pixel][vector]` of a tile of 16 channels at o, of which the
/// first g->channels are real; out of line, so that the tile's instantiations stay small.
static __attribute__((noinline)) TARGET void tile_epilogue(const pq_conv *c, const geometry *g,
                                                          const int32x4_t sums[TILE][4], int o, int y, int x,
                                                          int pixels) {
#if SIGNED_ACTIVATIONS
    // pack.c's table after the weights of every block, padded to whole blocks.
    const int32_t *table = (const int32_t *)((const int8_t *)c->packed +
                                             (size_t)((c->cout + BLOCK - 1) / BLOCK) * g->block_bytes) + o;
#endif
    for (int p = 0; p < pixels; p++) {
        for (int j = 0; 4 * j < g->channels; j++) {
            int32x4_t acc = sums[p][j];
#if SIGNED_ACTIVATIONS
            acc = vaddq_s32(acc, vld1q_s32(table + 4 * j));
#endif
            const int n = g->channels - 4 * j;
            pq_epilogue4(c, acc, o + 4 * j, n < 4 ? n : 4, y, x + p);
        }
    }
}

#endif
#endif
