// Shared by the kernel files of this target, not part of the API (include/int8_kernels.h is).
#ifndef PERIPHERY_CONV_INTERNAL_H
#define PERIPHERY_CONV_INTERNAL_H

#include "int8_kernels.h"

#include <string.h>

// The float formulas of the header are reproduced operation by operation (fmaf where it says fmaf,
// a rounded product and a rounded sum elsewhere), so that every ISA and a Swift reference agree
// bit for bit; letting the compiler fuse a·b + c into an FMA in one kernel would break that.
#pragma STDC FP_CONTRACT OFF

/// Input channels of every packed layout are padded to this many (one vpdpbusd or sdot dword).
#define PQ_CHANNEL_GROUP 4

// Per-function target attributes, so that the package builds for the architecture's baseline
// (x86-64, armv8-a) and picks a kernel at run time. Advanced SIMD is part of armv8-a itself. Clang
// takes an AArch64 extension by name; GCC's arm_neon.h declares sdot and usdot for
// "arch=armv8.2-a+…" (a bare "+dotprod" fails to inline them), which replaces the command line's
// -march, so a GCC build of these files is for a baseline below armv8.2-a (the default).
#if defined(__x86_64__)
#define PQ_TARGET_AVX2 __attribute__((target("avx2,fma")))
#define PQ_TARGET_AVXVNNI __attribute__((target("avx2,fma,avxvnni")))
#define PQ_TARGET_AVX512VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))
#elif defined(__aarch64__)
#define PQ_TARGET_NEON
#if defined(__clang__)
#define PQ_TARGET_NEON_DOTPROD __attribute__((target("dotprod")))
#define PQ_TARGET_NEON_I8MM __attribute__((target("i8mm")))
#else
#define PQ_TARGET_NEON_DOTPROD __attribute__((target("arch=armv8.2-a+dotprod")))
#define PQ_TARGET_NEON_I8MM __attribute__((target("arch=armv8.2-a+i8mm")))
#endif
#endif

static inline int pq_round_up(int value, int multiple) { return (value + multiple - 1) / multiple * multiple; }

/// Unaligned 4-byte load without the undefined behaviour of a cast pointer (compiles to one mov
/// or a broadcast from memory).
static inline int32_t pq_load32(const uint8_t *p) {
    int32_t value;
    memcpy(&value, p, sizeof value);
    return value;
}

/// The shared saturation of every quantising kernel: clamp(nearbyintf(t) + zero, 0, 255).
///
/// Clamping `t` to ±1024 first changes nothing (rounding is monotonic, and any |t| ≥ 1024 saturates
/// to 0 or 255 for a zero point in 0…255), but makes the round-to-nearest-even exact with the
/// 1.5·2²³ trick, which vectorises on plain SSE2 where nearbyintf would be a libm call, and is
/// bit-identical to the vector kernels' vminps(t, 1024) and vcvtps2dq. NaN becomes 255, as it
/// does there (vminps returns its second operand).
static inline uint8_t pq_saturate_u8(float t, int zero) {
    const float magic = 12582912.0f;
    t = t < 1024.0f ? t : 1024.0f;
    t = t > -1024.0f ? t : -1024.0f;
    int q = (int)((t + magic) - magic) + zero;
    q = q > 0 ? q : 0;
    return (uint8_t)(q < 255 ? q : 255);
}

/// The per-ISA convolutions behind pq_conv_run; their arguments are pq_conv_run's.
void pq_conv_run_naive(const pq_conv *conv, pq_tensor input, int row_begin, int row_end, int block_begin,
                       int block_end);
void pq_conv_run_avx2(const pq_conv *conv, pq_tensor input, int row_begin, int row_end, int block_begin,
                      int block_end);
void pq_conv_run_avx2_maddubs(const pq_conv *conv, pq_tensor input, int row_begin, int row_end, int block_begin,
                              int block_end);
void pq_conv_run_avx2_maddubs6(const pq_conv *conv, pq_tensor input, int row_begin, int row_end, int block_begin,
                               int block_end);
void pq_conv_run_avxvnni(const pq_conv *conv, pq_tensor input, int row_begin, int row_end, int block_begin,
                         int block_end);
void pq_conv_run_avx512vnni(const pq_conv *conv, pq_tensor input, int row_begin, int row_end, int block_begin,
                            int block_end);
void pq_conv_run_neon(const pq_conv *conv, pq_tensor input, int row_begin, int row_end, int block_begin,
                      int block_end);
void pq_conv_run_neon_dotprod(const pq_conv *conv, pq_tensor input, int row_begin, int row_end, int block_begin,
                              int block_end);
void pq_conv_run_neon_i8mm(const pq_conv *conv, pq_tensor input, int row_begin, int row_end, int block_begin,
                           int block_end);

#endif
