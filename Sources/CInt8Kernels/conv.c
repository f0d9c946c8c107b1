// Dispatch of pq_conv_run. The caller picks `isa` from the CPU's features among the compiled ones
// (pq_isa_compiled); the kernels behind it are compiled with per-function target attributes, so
// this file and the naive path run anywhere.
#include "conv_internal.h"

#include <stdio.h>
#include <stdlib.h>

int pq_isa_compiled(pq_isa isa) {
    switch (isa) {
    case PQ_ISA_NAIVE:
        return 1;
    case PQ_ISA_AVX2:
    case PQ_ISA_AVXVNNI:
    case PQ_ISA_AVX512VNNI:
    case PQ_ISA_AVX2_MADDUBS:
    case PQ_ISA_AVX2_MADDUBS6:
#if defined(__x86_64__)
        return 1;
#else
        return 0;
#endif
    case PQ_ISA_NEON:
    case PQ_ISA_NEON_DOTPROD:
    case PQ_ISA_NEON_I8MM:
#if defined(__aarch64__)
        return 1;
#else
        return 0;
#endif
    }
    return 0;
}

void pq_conv_run(pq_isa isa, const pq_conv *conv, pq_tensor input, int row_begin, int row_end, int block_begin,
                 int block_end) {
    switch (isa) {
#if defined(__x86_64__)
    case PQ_ISA_AVX512VNNI:
        pq_conv_run_avx512vnni(conv, input, row_begin, row_end, block_begin, block_end);
        return;
    case PQ_ISA_AVXVNNI:
        pq_conv_run_avxvnni(conv, input, row_begin, row_end, block_begin, block_end);
        return;
    case PQ_ISA_AVX2_MADDUBS6:
        pq_conv_run_avx2_maddubs6(conv, input, row_begin, row_end, block_begin, block_end);
        return;
    case PQ_ISA_AVX2_MADDUBS:
        pq_conv_run_avx2_maddubs(conv, input, row_begin, row_end, block_begin, block_end);
        return;
    case PQ_ISA_AVX2:
        pq_conv_run_avx2(conv, input, row_begin, row_end, block_begin, block_end);
        return;
#endif
#if defined(__aarch64__)
    case PQ_ISA_NEON_I8MM:
        pq_conv_run_neon_i8mm(conv, input, row_begin, row_end, block_begin, block_end);
        return;
    case PQ_ISA_NEON_DOTPROD:
        pq_conv_run_neon_dotprod(conv, input, row_begin, row_end, block_begin, block_end);
        return;
    case PQ_ISA_NEON:
        pq_conv_run_neon(conv, input, row_begin, row_end, block_begin, block_end);
        return;
#endif
    case PQ_ISA_NAIVE:
        pq_conv_run_naive(conv, input, row_begin, row_end, block_begin, block_end);
        return;
    default:
        break;
    }
    // A kernel this build lacks: its weights were packed for a layout no compiled kernel reads, so
    // running another one would silently compute garbage. A caller's programming error (the Swift
    // side checks pq_isa_compiled), hence an abort like a failed precondition.
    fprintf(stderr, "pq_conv_run: the kernel of pq_isa %d is not compiled into this build\n", (int)isa);
    abort();
}
