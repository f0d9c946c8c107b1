// Placeholder until the ARM kernels land: this build has the x86 kernels on x86-64 and only the
// naive one elsewhere.
#include "int8_kernels.h"

int pq_isa_compiled(pq_isa isa) {
    switch (isa) {
    case PQ_ISA_NAIVE: return 1;
#if defined(__x86_64__)
    case PQ_ISA_AVX2:
    case PQ_ISA_AVXVNNI:
    case PQ_ISA_AVX512VNNI:
    case PQ_ISA_AVX2_MADDUBS:
    case PQ_ISA_AVX2_MADDUBS6: return 1;
#endif
    default: return 0;
    }
}
