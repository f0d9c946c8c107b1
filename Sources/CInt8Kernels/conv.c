// Dispatch of pq_conv_run. The caller picks `isa` from the CPU's features; the kernels behind it
// are compiled with per-function target attributes, so this file and the naive path run anywhere.
#include "conv_internal.h"

void pq_conv_run(pq_isa isa, const pq_conv *conv, pq_tensor input, int row_begin, int row_end, int block_begin,
                 int block_end) {
    switch (isa) {
    case PQ_ISA_AVX512VNNI:
        pq_conv_run_avx512vnni(conv, input, row_begin, row_end, block_begin, block_end);
        break;
    case PQ_ISA_AVXVNNI:
        pq_conv_run_avxvnni(conv, input, row_begin, row_end, block_begin, block_end);
        break;
    case PQ_ISA_AVX2_MADDUBS6:
        pq_conv_run_avx2_maddubs6(conv, input, row_begin, row_end, block_begin, block_end);
        break;
    case PQ_ISA_AVX2_MADDUBS:
        pq_conv_run_avx2_maddubs(conv, input, row_begin, row_end, block_begin, block_end);
        break;
    case PQ_ISA_AVX2:
        pq_conv_run_avx2(conv, input, row_begin, row_end, block_begin, block_end);
        break;
    case PQ_ISA_NAIVE:
    default:
        pq_conv_run_naive(conv, input, row_begin, row_end, block_begin, block_end);
        break;
    }
}
