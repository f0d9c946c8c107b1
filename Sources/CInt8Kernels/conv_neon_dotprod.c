// ARMv8.2 dot-product convolution (sdot). sdot is s8 × s8, so the activations are made signed after
// the load (a XOR 0x80 = a − 128) and pack.c's 128·Σw is added back before the epilogue
// (epilogue_neon.h). Weights are the AVX-VNNI layout [cout/16][k][k][cin4/4][16][4] int8 (pack.c):
// one 4-channel group of a 16-channel block is 4 q registers of 4 output channels × 4 input bytes,
// and one sdot of a broadcast input adds 4 output channels. A tile is TILE = 6 output pixels of
// one row × 16 channels: 24 accumulators, 4 weight vectors and the broadcast input of the 32 q
// registers.
#if defined(__aarch64__)
#define PQ_TILED_RUN pq_conv_run_neon_dotprod
#define TARGET PQ_TARGET_NEON_DOTPROD
#define BLOCK 16
#define TILE 6
#define GROUP_BYTES (BLOCK * PQ_CHANNEL_GROUP)
#define WEIGHT int8_t
#define SIGNED_ACTIVATIONS 1
#include "epilogue_neon.h"

static inline __attribute__((always_inline)) TARGET void tile(const pq_conv *c, const geometry *g,
                                                             const uint8_t *origin, const int8_t *w, int o, int y,
                                                             int x, int pixels) {
    int32x4_t acc[TILE][4];
    for (int p = 0; p < pixels; p++) {
        for (int j = 0; j < 4; j++) acc[p][j] = vdupq_n_s32(0);
    }
    for (int ky = 0; ky < c->k; ky++) {
        for (int kx = 0; kx < c->k; kx++) {
            const uint8_t *tap = origin + ky * g->row_stride + kx * g->pixel_stride;
            for (int i = 0; i < g->groups; i++, w += GROUP_BYTES) {
                int8x16_t weights[4];
                for (int j = 0; j < 4; j++) weights[j] = vld1q_s8(w + 16 * j);
                for (int p = 0; p < pixels; p++) {
                    // Flipped in a general register: a vector XOR would hold its constant in a q register.
                    const uint32_t bytes = (uint32_t)pq_load32(tap + p * g->pixel_step + i * PQ_CHANNEL_GROUP) ^ 0x80808080u;
                    const int8x16_t in = vreinterpretq_s8_u32(vdupq_n_u32(bytes));
                    for (int j = 0; j < 4; j++) acc[p][j] = vdotq_s32(acc[p][j], in, weights[j]);
                }
            }
        }
    }
    // A copy, so that `acc` is only indexed by constants and stays in registers.
    int32x4_t sums[TILE][4];
    for (int p = 0; p < pixels; p++) {
        for (int j = 0; j < 4; j++) sums[p][j] = acc[p][j];
    }
    tile_epilogue(c, g, sums, o, y, x, pixels);
}
#endif
