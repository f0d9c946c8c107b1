// AVX2 convolution for 6-bit weights (every weight in −32…31): like conv_avx2_maddubs.c, but two
// channel groups share one vpmaddwd:
//     acc += vpmaddwd(vpaddw(vpmaddubsw(in_g, w_g), vpmaddubsw(in_g+1, w_g+1)), ones16)
// With |w| ≤ 32 each s16 pair sum is at most 255·32·2 = 16320 and the sum of two of them at most
// 32640 < 32767, so neither vpmaddubsw nor vpaddw wraps or saturates: the integers are exactly
// vpdpbusd's (and the naive kernel's). Six multiply uops per pixel and two groups instead of eight.
//
// Weights are the AVX-VNNI layout [cout/16][k][k][cin4/4][16][4] int8 (pack.c). A tile is
// TILE = 3 output pixels of one row × 16 channels: 6 accumulators, 4 weight vectors (two groups ×
// two halves), the ones, two broadcast inputs and two s16 sums: 15 of the 16 ymm. An odd last
// group runs alone, as in conv_avx2_maddubs.c. The input is read through its zero-point border.
#if defined(__x86_64__)
#define PQ_TILED_RUN pq_conv_run_avx2_maddubs6
#define TARGET PQ_TARGET_AVX2
#define TILE 3
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
            int i = 0;
            for (; i + 1 < g->groups; i += 2, w += 2 * GROUP_BYTES) {
                const __m256i w00 = _mm256_load_si256((const __m256i *)w);
                const __m256i w01 = _mm256_load_si256((const __m256i *)(w + 32));
                const __m256i w10 = _mm256_load_si256((const __m256i *)(w + GROUP_BYTES));
                const __m256i w11 = _mm256_load_si256((const __m256i *)(w + GROUP_BYTES + 32));
                for (int p = 0; p < pixels; p++) {
                    const uint8_t *pixel = tap + p * g->pixel_step + i * PQ_CHANNEL_GROUP;
                    const __m256i in0 = _mm256_set1_epi32(pq_load32(pixel));
                    const __m256i in1 = _mm256_set1_epi32(pq_load32(pixel + PQ_CHANNEL_GROUP));
                    const __m256i sum0 = _mm256_add_epi16(_mm256_maddubs_epi16(in0, w00), _mm256_maddubs_epi16(in1, w10));
                    const __m256i sum1 = _mm256_add_epi16(_mm256_maddubs_epi16(in0, w01), _mm256_maddubs_epi16(in1, w11));
                    acc[p][0] = _mm256_add_epi32(acc[p][0], _mm256_madd_epi16(sum0, ones));
                    acc[p][1] = _mm256_add_epi32(acc[p][1], _mm256_madd_epi16(sum1, ones));
                }
            }
            if (i < g->groups) {
                const __m256i w0 = _mm256_load_si256((const __m256i *)w);
                const __m256i w1 = _mm256_load_si256((const __m256i *)(w + 32));
                for (int p = 0; p < pixels; p++) {
                    const __m256i in = _mm256_set1_epi32(pq_load32(tap + p * g->pixel_step + i * PQ_CHANNEL_GROUP));
                    acc[p][0] = _mm256_add_epi32(acc[p][0], _mm256_madd_epi16(_mm256_maddubs_epi16(in, w0), ones));
                    acc[p][1] = _mm256_add_epi32(acc[p][1], _mm256_madd_epi16(_mm256_maddubs_epi16(in, w1), ones));
                }
                w += GROUP_BYTES;
            }
        }
    }
    // A copy, so that `acc` is only indexed by constants and stays in registers.
    __m256i sums[TILE][2];
    for (int p = 0; p < pixels; p++) sums[p][0] = acc[p][0], sums[p][1] = acc[p][1];
    tile_epilogue(c, g, sums, o, y, x, pixels);
}
#endif
