// AVX2 convolution: u8 inputs and s8 weights widened to s16 and multiplied with vpmaddwd, which is
// exact (vpmaddubsw would saturate its s16 pair sums with full-range weights). Weights
// [cout/16][k][k][cin4/4][2][16][2] int16 (pack.c): per 4-channel group, for each channel pair,
// 2 ymm of 8 output channels × 2 s16. The 4 input bytes of a pixel are broadcast and spread by
// vpshufb into the two zero-extended pairs. A tile is TILE output pixels of one row × 16 channels.
#if defined(__x86_64__)
#define PQ_TILED_RUN pq_conv_run_avx2
#define TARGET PQ_TARGET_AVX2
#define BLOCK 16
#define TILE 4
#define GROUP_VALUES (2 * BLOCK * 2)
#define GROUP_BYTES (GROUP_VALUES * sizeof(int16_t))
#define WEIGHT int16_t
#include "epilogue_avx2.h"

static inline __attribute__((always_inline)) TARGET void tile(const pq_conv *c, const geometry *g,
                                                             const uint8_t *origin, const int16_t *w, int o, int y,
                                                             int x, int pixels) {
    // Bytes 0, 1 and 2, 3 of each dword, zero-extended to s16 pairs.
    const __m256i low_pair = _mm256_set1_epi32((int)0x80018000u);
    const __m256i high_pair = _mm256_set1_epi32((int)0x80038002u);
    __m256i acc[TILE][2];
    for (int p = 0; p < pixels; p++) acc[p][0] = acc[p][1] = _mm256_setzero_si256();
    for (int ky = 0; ky < c->k; ky++) {
        for (int kx = 0; kx < c->k; kx++) {
            const uint8_t *tap = origin + ky * g->row_stride + kx * g->pixel_stride;
            for (int i = 0; i < g->groups; i++, w += GROUP_VALUES) {
                const __m256i w00 = _mm256_load_si256((const __m256i *)w);
                const __m256i w01 = _mm256_load_si256((const __m256i *)(w + 16));
                const __m256i w10 = _mm256_load_si256((const __m256i *)(w + 32));
                const __m256i w11 = _mm256_load_si256((const __m256i *)(w + 48));
                for (int p = 0; p < pixels; p++) {
                    const __m256i in = _mm256_set1_epi32(pq_load32(tap + p * g->pixel_step + i * PQ_CHANNEL_GROUP));
                    const __m256i low = _mm256_shuffle_epi8(in, low_pair), high = _mm256_shuffle_epi8(in, high_pair);
                    acc[p][0] = _mm256_add_epi32(
                        acc[p][0], _mm256_add_epi32(_mm256_madd_epi16(low, w00), _mm256_madd_epi16(high, w10)));
                    acc[p][1] = _mm256_add_epi32(
                        acc[p][1], _mm256_add_epi32(_mm256_madd_epi16(low, w01), _mm256_madd_epi16(high, w11)));
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
