// ARMv8.0 Advanced SIMD convolution. The ISA has no u8 × s8 product, so the activations are made
// signed after the load (a XOR 0x80 = a − 128) and pack.c's 128·Σw is added back before the
// epilogue (epilogue_neon.h). Weights are the AVX-VNNI layout [cout/16][k][k][cin4/4][16][4] int8
// (pack.c): one 4-channel group of a 16-channel block is 4 q registers of 4 output channels × 4
// input bytes. smull/smull2 multiply a broadcast input by one of them into 8 exact s16 products
// (|(a − 128)·w| ≤ 128²; an smlal adding a second product in s16 could overflow), and sadalp adds
// neighbouring pairs into s32, so each output channel has 2 partial sums until the tile's end.
// A tile is TILE = 2 output pixels of one row × 16 channels: 16 accumulators, 4 weight vectors and
// their high halves (clang turns smull2 of a broadcast into smull of the weights' upper half), the
// input and the products; TILE = 3 spills accumulators to the stack.
#if defined(__aarch64__)
#define PQ_TILED_RUN pq_conv_run_neon
#define TARGET PQ_TARGET_NEON
#define BLOCK 16
#define TILE 2
#define GROUP_BYTES (BLOCK * PQ_CHANNEL_GROUP)
#define WEIGHT int8_t
#define SIGNED_ACTIVATIONS 1
#include "epilogue_neon.h"

static inline __attribute__((always_inline)) TARGET void tile(const pq_conv *c, const geometry *g,
                                                             const uint8_t *origin, const int8_t *w, int o, int y,
                                                             int x, int pixels) {
    // acc[p][2j] holds output channels 4j, 4j + 1 as pairs of partial sums, acc[p][2j + 1] 4j + 2, 4j + 3.
    int32x4_t acc[TILE][8];
    for (int p = 0; p < pixels; p++) {
        for (int j = 0; j < 8; j++) acc[p][j] = vdupq_n_s32(0);
    }
    for (int ky = 0; ky < c->k; ky++) {
        for (int kx = 0; kx < c->k; kx++) {
            const uint8_t *tap = origin + ky * g->row_stride + kx * g->pixel_stride;
            for (int i = 0; i < g->groups; i++, w += GROUP_BYTES) {
                int8x16_t weights[4];
                for (int j = 0; j < 4; j++) weights[j] = vld1q_s8(w + 16 * j);
                // Clang 16 keeps these two loops, and the accumulators in memory, unless told (clang 21
                // and GCC at -O3 unroll them on their own); Debian's swiftlang builds with clang 17.
#pragma clang loop unroll(full)
                for (int p = 0; p < pixels; p++) {
                    // Flipped in a general register: a vector XOR would hold its constant in a q register.
                    const uint32_t bytes = (uint32_t)pq_load32(tap + p * g->pixel_step + i * PQ_CHANNEL_GROUP) ^ 0x80808080u;
                    const int8x16_t in = vreinterpretq_s8_u32(vdupq_n_u32(bytes));
#pragma clang loop unroll(full)
                    for (int j = 0; j < 4; j++) {
                        acc[p][2 * j] = vpadalq_s16(acc[p][2 * j], vmull_s8(vget_low_s8(in), vget_low_s8(weights[j])));
                        acc[p][2 * j + 1] = vpadalq_s16(acc[p][2 * j + 1], vmull_high_s8(in, weights[j]));
                    }
                }
            }
        }
    }
    // The pairs of partial sums added: one vector of 4 output channels each, indexed by constants
    // only, so that `acc` stays in registers.
    int32x4_t sums[TILE][4];
    for (int p = 0; p < pixels; p++) {
        for (int j = 0; j < 4; j++) sums[p][j] = vpaddq_s32(acc[p][2 * j], acc[p][2 * j + 1]);
    }
    tile_epilogue(c, g, sums, o, y, x, pixels);
}
#endif
