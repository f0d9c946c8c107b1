// AVX-VNNI convolution (VEX vpdpbusd on ymm). Weights [cout/16][k][k][cin4/4][16][4] (pack.c):
// one 4-channel group of a 16-channel block is 2 ymm of 8 output channels × 4 input bytes.
// A tile is TILE output pixels of one row × 16 channels: 2·TILE accumulators, 2 weight registers
// and a broadcast fill 15 of the 16 ymm. The input is read through its zero-point border, so the
// inner loop has no bounds checks.
#if defined(__x86_64__)
#define PQ_TILED_RUN pq_conv_run_avxvnni
#define TARGET PQ_TARGET_AVXVNNI
#define TILE 6
#define BLOCK 16
#define GROUP_BYTES (BLOCK * PQ_CHANNEL_GROUP)
#define WEIGHT int8_t
#include "epilogue_avx2.h"

static inline __attribute__((always_inline)) TARGET void tile(const pq_conv *c, const geometry *g,
                                                             const uint8_t *origin, const int8_t *w, int o, int y,
                                                             int x, int pixels) {
    __m256i acc[TILE][2];
    for (int p = 0; p < pixels; p++) acc[p][0] = acc[p][1] = _mm256_setzero_si256();
    for (int ky = 0; ky < c->k; ky++) {
        for (int kx = 0; kx < c->k; kx++) {
            const uint8_t *tap = origin + ky * g->row_stride + kx * g->pixel_stride;
            for (int i = 0; i < g->groups; i++, w += GROUP_BYTES) {
                const __m256i w0 = _mm256_load_si256((const __m256i *)w);
                const __m256i w1 = _mm256_load_si256((const __m256i *)(w + 32));
                for (int p = 0; p < pixels; p++) {
                    const __m256i in = _mm256_set1_epi32(pq_load32(tap + p * g->pixel_step + i * PQ_CHANNEL_GROUP));
                    acc[p][0] = _mm256_dpbusd_avx_epi32(acc[p][0], in, w0);
                    acc[p][1] = _mm256_dpbusd_avx_epi32(acc[p][1], in, w1);
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
