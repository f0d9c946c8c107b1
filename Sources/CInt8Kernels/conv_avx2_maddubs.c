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
#if defined(__x86_64__)
#define PQ_TILED_RUN pq_conv_run_avx2_maddubs
#define TARGET PQ_TARGET_AVX2
#define TILE 5
#define BLOCK 16
#define GROUP_BYTES (BLOCK * PQ_CHANNEL_GROUP)
#define WEIGHT int8_t
#include "epilogue_avx2.h"

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
    tile_epilogue(c, g, sums, o, y, x, pixels);
}
#endif
