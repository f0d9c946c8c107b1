// AVX2 convolution for 7-bit weights (every weight in −64…63): vpdpbusd emulated with
//     acc += vpmaddwd(vpmaddubsw(in, w), ones16)
// vpmaddubsw multiplies u8 inputs by s8 weights and adds neighbouring products into s16 with
// saturation; with |w| ≤ 64 a pair sum is at most 255·64·2 = 32640 < 32767, so it never
// saturates and the result equals vpdpbusd's (and the naive kernel's) exactly. vpmaddwd with
// ones then adds the two pairs of each dword into s32. Wider weights must take conv_avx2.c
// (the loader checks the range, Int8Convolution.swift).
//
// Weights are the AVX-VNNI layout [cout/16][k][k][cin4/4][16][4] int8 (pack.c): one 4-channel
// group of a 16-channel block is 2 ymm of 8 output channels × 4 input bytes.
// A tile is TILE = 5 output pixels of one row × 16 channels: 10 accumulators, 2 weight vectors,
// the ones, one broadcast input and two s16 products fill the 16 ymm (TILE = 6 would spill: the
// compiler keeps the weights in registers). The input is read through its zero-point border, so
// the inner loop has no bounds checks.
#include "epilogue_avx2.h"

#define TARGET PQ_TARGET_AVX2

enum { BLOCK = 16, TILE = 5, GROUP_BYTES = BLOCK * PQ_CHANNEL_GROUP };

/// Input addressing of one convolution.
typedef struct {
    ptrdiff_t row_stride, pixel_stride;
    /// Bytes between the receptive fields of neighbouring output pixels (stride · pixel_stride).
    ptrdiff_t pixel_step;
    int groups;
} geometry;

/// Epilogue of the accumulators `sums[pixel][vector]` of a tile; out of line, so that the tile's
/// instantiations stay small.
static __attribute__((noinline)) TARGET void tile_epilogue(const pq_conv *c, const __m256i sums[TILE][2], int o,
                                                          int y, int x, int pixels) {
    const int n = c->cout - o;
    for (int p = 0; p < pixels; p++) {
        pq_epilogue8(c, sums[p][0], o, n < 8 ? n : 8, y, x + p);
        if (n > 8) pq_epilogue8(c, sums[p][1], o + 8, n < 16 ? n - 8 : 8, y, x + p);
    }
}

/// Output pixels (y, x … x + pixels − 1), channels o … o + 15; `origin` is the input pixel under
/// tap (0, 0) of output pixel x, `w` the block's packed weights. `pixels` is a constant after
/// inlining, so the accumulators live in registers.
static inline __attribute__((always_inline)) TARGET void tile(const pq_conv *c, const geometry *g,
                                                             const uint8_t *origin, const int8_t *w, int o, int y,
                                                             int x, int pixels) {
    const __m256i ones = _mm256_set1_epi16(1);
    __m256i acc[TILE][2];
    for (int p = 0; p < pixels; p++) acc[p][0] = acc[p][1] = _mm256_setzero_si256();
    for (int ky = 0; ky < c->k; ky++) {
        for (int kx = 0; kx < c->k; kx++) {
            const uint8_t *tap = origin + ky * g->row_stride + kx * g->pixel_stride;
            for (int i = 0; i < g->groups; i++, w += GROUP_BYTES) {
                const __m256i *w0 = (const __m256i *)w, *w1 = (const __m256i *)(w + 32);
                for (int p = 0; p < pixels; p++) {
                    const __m256i in = _mm256_set1_epi32(pq_load32(tap + p * g->pixel_step + i * PQ_CHANNEL_GROUP));
                    const __m256i pairs0 = _mm256_maddubs_epi16(in, _mm256_load_si256(w0));
                    const __m256i pairs1 = _mm256_maddubs_epi16(in, _mm256_load_si256(w1));
                    acc[p][0] = _mm256_add_epi32(acc[p][0], _mm256_madd_epi16(pairs0, ones));
                    acc[p][1] = _mm256_add_epi32(acc[p][1], _mm256_madd_epi16(pairs1, ones));
                }
            }
        }
    }
    // A copy, so that `acc` is only indexed by constants and stays in registers.
    __m256i sums[TILE][2];
    for (int p = 0; p < pixels; p++) sums[p][0] = acc[p][0], sums[p][1] = acc[p][1];
    tile_epilogue(c, sums, o, y, x, pixels);
}

/// One output row y of the block at channel o: whole tiles, then one narrower tile.
static TARGET void row(const pq_conv *c, const geometry *g, const uint8_t *origin, const int8_t *w, int o, int y) {
    int x = 0;
    for (; x + TILE <= c->out_width; x += TILE) tile(c, g, origin + x * g->pixel_step, w, o, y, x, TILE);
    const uint8_t *rest = origin + x * g->pixel_step;
    switch (c->out_width - x) {
    case 4: tile(c, g, rest, w, o, y, x, 4); break;
    case 3: tile(c, g, rest, w, o, y, x, 3); break;
    case 2: tile(c, g, rest, w, o, y, x, 2); break;
    case 1: tile(c, g, rest, w, o, y, x, 1); break;
    default: break;
    }
}

TARGET void pq_conv_run_avx2_maddubs(const pq_conv *c, pq_tensor in, int row_begin, int row_end, int block_begin,
                                     int block_end) {
    const geometry g = {
        .row_stride = pq_row_stride(in),
        .pixel_stride = in.pixel_stride,
        .pixel_step = (ptrdiff_t)c->stride * in.pixel_stride,
        .groups = pq_round_up(c->cin, PQ_CHANNEL_GROUP) / PQ_CHANNEL_GROUP,
    };
    const size_t block_bytes = (size_t)(c->k * c->k * g.groups) * GROUP_BYTES;
    // Block-major, so that a block's weights stay in L2 across the rows.
    for (int b = block_begin; b < block_end && b * BLOCK < c->cout; b++) {
        const int8_t *w = (const int8_t *)c->packed + (size_t)b * block_bytes;
        for (int y = row_begin; y < row_end; y++) {
            const uint8_t *origin = in.data + (y * c->stride - c->pad) * g.row_stride - c->pad * g.pixel_stride;
            row(c, &g, origin, w, b * BLOCK, y);
        }
    }
}
