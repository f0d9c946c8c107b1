// Weight packing for each ISA's micro-kernel. Packing runs once per network load, so it is
// plain C indexed the way the kernels read, and every padded slot is written as zero.
//
// Layouts, with cin4 = cin rounded up to 4, G = cin4 / 4 channel groups, B the output block:
//   naive        int8  [cout/B][B][k][k][cin4]          (B = 16; one channel's taps contiguous)
//   AVX-512 VNNI int8  [cout/B][k][k][G][B][4]          (B = 64: one group is 4 zmm of 16 dwords)
//   AVX-VNNI     int8  [cout/B][k][k][G][B][4]          (B = 16: 2 ymm of 8 dwords; also the
//                                                        AVX2 vpmaddubsw kernels' and the NEON
//                                                        ones': 4 q registers of 4 channels)
//   AVX2         int16 [cout/B][k][k][G][2][B][2]       (B = 16: per channel pair, 2 ymm of 8
//                                                        s16 pairs for vpmaddwd)
// NEON and NEON dotprod multiply signed activations (a − 128), so their weights are followed by
// int32 [cout rounded up to B], 128 · Σ w[o] (zero for padding channels), which they add back to
// each accumulator: Σ (a − 128)·w + 128·Σ w = Σ a·w.
#include "conv_internal.h"

int pq_weights_fit_maddubs(const int8_t *weights, size_t count) {
    for (size_t i = 0; i < count; i++) {
        if (weights[i] < -64 || weights[i] > 63) return 0;
    }
    return 1;
}

int pq_weights_fit_maddubs6(const int8_t *weights, size_t count) {
    for (size_t i = 0; i < count; i++) {
        if (weights[i] < -32 || weights[i] > 31) return 0;
    }
    return 1;
}

int pq_output_block(pq_isa isa) { return isa == PQ_ISA_AVX512VNNI ? 64 : 16; }

/// Whether `isa`'s kernel multiplies signed activations and needs the correction table.
static int has_correction(pq_isa isa) { return isa == PQ_ISA_NEON || isa == PQ_ISA_NEON_DOTPROD; }

/// Bytes of the weights alone, where the correction table starts.
static size_t weight_bytes(pq_isa isa, int cout, int cin, int k) {
    const size_t values = (size_t)pq_round_up(cout, pq_output_block(isa)) * (size_t)k * (size_t)k *
                          (size_t)pq_round_up(cin, PQ_CHANNEL_GROUP);
    return isa == PQ_ISA_AVX2 ? values * sizeof(int16_t) : values;
}

size_t pq_packed_size(pq_isa isa, int cout, int cin, int k) {
    const size_t correction = has_correction(isa) ? (size_t)pq_round_up(cout, pq_output_block(isa)) * sizeof(int32_t) : 0;
    return weight_bytes(isa, cout, cin, k) + correction;
}

/// Offset in values (int8, or int16 for AVX2) of weight (o, c, ky, kx) in `isa`'s layout.
static size_t packed_index(pq_isa isa, int o, int c, int ky, int kx, int cin4, int k) {
    const int block = pq_output_block(isa);
    const size_t b = (size_t)(o / block), ob = (size_t)(o % block);
    const size_t taps = (size_t)k * (size_t)k, tap = (size_t)ky * (size_t)k + (size_t)kx;
    const size_t groups = (size_t)cin4 / PQ_CHANNEL_GROUP, g = (size_t)c / PQ_CHANNEL_GROUP;
    const size_t lane = (size_t)c % PQ_CHANNEL_GROUP;
    switch (isa) {
    case PQ_ISA_AVX512VNNI:
    case PQ_ISA_AVXVNNI:
    case PQ_ISA_AVX2_MADDUBS:
    case PQ_ISA_AVX2_MADDUBS6:
    case PQ_ISA_NEON:
    case PQ_ISA_NEON_DOTPROD:
    case PQ_ISA_NEON_I8MM:
        return (((b * taps + tap) * groups + g) * (size_t)block + ob) * PQ_CHANNEL_GROUP + lane;
    case PQ_ISA_AVX2:
        return ((((b * taps + tap) * groups + g) * 2 + lane / 2) * (size_t)block + ob) * 2 + lane % 2;
    case PQ_ISA_NAIVE:
    default:
        return (((b * (size_t)block + ob) * taps + tap) * (size_t)cin4) + (size_t)c;
    }
}

void pq_pack_weights(pq_isa isa, const int8_t *weights, int cout, int cin, int k, void *packed, int32_t *weight_sums) {
    const int cin4 = pq_round_up(cin, PQ_CHANNEL_GROUP);
    memset(packed, 0, pq_packed_size(isa, cout, cin, k));
    int8_t *bytes = packed;
    int16_t *pairs = packed;
    int32_t *correction = has_correction(isa) ? (int32_t *)(bytes + weight_bytes(isa, cout, cin, k)) : NULL;
    for (int o = 0; o < cout; o++) {
        int32_t sum = 0;
        for (int c = 0; c < cin; c++) {
            for (int ky = 0; ky < k; ky++) {
                for (int kx = 0; kx < k; kx++) {
                    const int8_t w = weights[(((size_t)o * (size_t)cin + (size_t)c) * (size_t)k + (size_t)ky) * (size_t)k + (size_t)kx];
                    const size_t index = packed_index(isa, o, c, ky, kx, cin4, k);
                    if (isa == PQ_ISA_AVX2) {
                        pairs[index] = w;
                    } else {
                        bytes[index] = w;
                    }
                    sum += w;
                }
            }
        }
        weight_sums[o] = sum;
        // In uint32, which wraps like the kernel's vector adds instead of overflowing.
        if (correction) correction[o] = (int32_t)(128u * (uint32_t)sum);
    }
}
