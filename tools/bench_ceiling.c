// What this CPU can do at most for the Safety40 network's arithmetic (docs/results/benchmarks-history.md, "The
// ceiling"): one core's FP32 FMA throughput, its BF16 and INT8 dot-product throughput, and the
// speed of the 36 small GEMMs of one Winograd layer — through OpenBLAS, and through a plain
// AVX-512 kernel with weights packed ahead of time (what a GEMM of our own would do), each on cold
// operands.
//
// Build and run (`make bench-ceiling` does both, OpenBLAS on the runtime's kernel, one thread):
//   gcc -O3 -mavx512f -mavx512bf16 -mfma tools/bench_ceiling.c -o .build/bench-ceiling -lopenblas
//   OPENBLAS_CORETYPE=SkylakeX OPENBLAS_NUM_THREADS=1 .build/bench-ceiling
// Needs AVX-512F and AVX512_BF16 (it says so and exits otherwise).
#include <cblas.h>
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

// 12 independent accumulators: more than FMA latency × ports, so throughput is the limit.
#define TWELVE(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)

// Best of 5 runs of 12·n zmm FMAs (32 flops each), in GFLOP/s.
static double fmaPeak(long n) {
    double best = 1e30;
    float sink = 0;
    for (int run = 0; run < 5; run++) {
#define DECLARE(i) __m512 a##i = _mm512_set1_ps((float)(i) * 1e-9f);
        TWELVE(DECLARE)
        __m512 x = _mm512_set1_ps(1.0001f), y = _mm512_set1_ps(0.9999f);
        double t = now();
        for (long i = 0; i < n; i++) {
#define STEP(i) a##i = _mm512_fmadd_ps(x, y, a##i);
            TWELVE(STEP)
            __asm__ volatile("" : "+v"(x));
        }
        t = now() - t;
#define SUM(i) sink += _mm512_reduce_add_ps(a##i);
        TWELVE(SUM)
        if (t < best) best = t;
    }
    if (sink == 12345) puts("");
    return 12.0 * n * 32 / best * 1e-9;
}

// Best of 5 runs of 12·n zmm vdpbf16ps (32 multiply-adds, 64 flops each), in GFLOP/s.
static double bf16Peak(long n) {
    double best = 1e30;
    float sink = 0;
    for (int run = 0; run < 5; run++) {
        TWELVE(DECLARE)
        __m512bh x = (__m512bh)_mm512_set1_epi32(0x3f803f80), y = x;
        double t = now();
        for (long i = 0; i < n; i++) {
#define DOT(i) a##i = _mm512_dpbf16_ps(a##i, x, y);
            TWELVE(DOT)
            __asm__ volatile("" : "+v"(x));
        }
        t = now() - t;
        TWELVE(SUM)
        if (t < best) best = t;
    }
    if (sink == 12345) puts("");
    return 12.0 * n * 64 / best * 1e-9;
}

// Best of 5 runs of 12·n zmm vpdpbusd (64 u8×s8 multiply-adds, 128 ops each), in GOP/s: the
// INT8 convolutions' ceiling (0 where the CPU lacks AVX512_VNNI).
__attribute__((target("avx512f,avx512vnni"))) static double vnniPeak(long n) {
    double best = 1e30;
    int sink = 0;
    for (int run = 0; run < 5; run++) {
#define DECLARE_I(i) __m512i a##i = _mm512_set1_epi32(i);
        TWELVE(DECLARE_I)
        __m512i x = _mm512_set1_epi32(0x01020304), y = _mm512_set1_epi32(0x01010101);
        double t = now();
        for (long i = 0; i < n; i++) {
#define DPBUSD(i) a##i = _mm512_dpbusd_epi32(a##i, x, y);
            TWELVE(DPBUSD)
            __asm__ volatile("" : "+v"(x));
        }
        t = now() - t;
#define SUM_I(i) sink += _mm512_reduce_add_epi32(a##i);
        TWELVE(SUM_I)
        if (t < best) best = t;
    }
    if (sink == 12345) puts("");
    return 12.0 * n * 128 / best * 1e-9;
}

// The hand-written GEMM: C [M × N] = A [M × K] · B [K × N], row-major, B and C with row stride N.
// A is packed once into panels of MR rows, [panel][k][MR]; B is read in place, NR = 48 columns
// (3 zmm) at a time, the last ones masked; K in blocks of KC so that a B micro-panel stays in L1.
enum { MR = 8, NV = 3, NR = 16 * NV, KC = 192 };

static void packWeights(int m, int k, const float *a, float *packed) {
    for (int p = 0; p < (m + MR - 1) / MR; p++)
        for (int kk = 0; kk < k; kk++)
            for (int i = 0; i < MR; i++) {
                int row = p * MR + i;
                packed[((size_t)p * k + kk) * MR + i] = row < m ? a[(size_t)row * k + kk] : 0;
            }
}

static inline __mmask16 lanes(int n) { return n >= 16 ? 0xFFFF : n <= 0 ? 0 : (__mmask16)((1u << n) - 1); }

static void microKernel(int kc, const float *a, const float *b, int ldb, float *c, int ldc, int first, int rows,
                        const __mmask16 *mask) {
    __m512 acc[MR][NV];
    for (int i = 0; i < MR; i++)
        for (int v = 0; v < NV; v++) acc[i][v] = _mm512_setzero_ps();
    for (int kk = 0; kk < kc; kk++) {
        __m512 bv[NV];
        for (int v = 0; v < NV; v++) bv[v] = _mm512_maskz_loadu_ps(mask[v], b + (size_t)kk * ldb + 16 * v);
        for (int i = 0; i < MR; i++) {
            __m512 ai = _mm512_set1_ps(a[kk * MR + i]);
            for (int v = 0; v < NV; v++) acc[i][v] = _mm512_fmadd_ps(ai, bv[v], acc[i][v]);
        }
    }
    for (int i = 0; i < rows; i++)
        for (int v = 0; v < NV; v++) {
            float *out = c + (size_t)i * ldc + 16 * v;
            __m512 x = acc[i][v];
            if (!first) x = _mm512_add_ps(x, _mm512_maskz_loadu_ps(mask[v], out));
            _mm512_mask_storeu_ps(out, mask[v], x);
        }
}

static void packedGemm(int m, int n, int k, const float *packed, const float *b, float *c) {
    for (int k0 = 0; k0 < k; k0 += KC) {
        int kc = k - k0 < KC ? k - k0 : KC;
        for (int j = 0; j < n; j += NR) {
            __mmask16 mask[NV];
            for (int v = 0; v < NV; v++) mask[v] = lanes(n - j - 16 * v);
            for (int p = 0; p < (m + MR - 1) / MR; p++) {
                int rows = m - p * MR < MR ? m - p * MR : MR;
                microKernel(kc, packed + ((size_t)p * k + k0) * MR, b + (size_t)k0 * n + j, n,
                            c + (size_t)p * MR * n + j, n, k0 == 0, rows, mask);
            }
        }
    }
}

static float *floats(size_t count) {
    float *p = aligned_alloc(64, (count * sizeof(float) + 63) / 64 * 64);
    if (!p) { fputs("out of memory\n", stderr); exit(1); }
    return p;
}

// 36 GEMMs [cout × cin] · [cin × tiles] on distinct operands, as one Winograd layer runs them,
// after touching 64 MB so that the operands come from the outer caches as in the network.
static void winogradLayer(const char *name, int cout, int cin, int tiles) {
    enum { X = 36 };
    size_t sa = (size_t)cout * cin, sb = (size_t)cin * tiles, sc = (size_t)cout * tiles;
    size_t sp = (size_t)((cout + MR - 1) / MR) * MR * cin;
    float *a = floats(sa * X), *b = floats(sb * X), *c1 = floats(sc * X), *c2 = floats(sc * X), *packed = floats(sp * X);
    float *flush = floats(16u << 20);
    srand(1);
    for (size_t i = 0; i < sa * X; i++) a[i] = rand() / (float)RAND_MAX - 0.5f;
    for (size_t i = 0; i < sb * X; i++) b[i] = rand() / (float)RAND_MAX - 0.5f;
    for (size_t i = 0; i < (16u << 20); i++) flush[i] = 0;
    for (int x = 0; x < X; x++) packWeights(cout, cin, a + x * sa, packed + x * sp);
    double bestBLAS = 1e30, bestOwn = 1e30;
    for (int run = 0; run < 9; run++) {
        for (size_t i = 0; i < (16u << 20); i += 16) flush[i] += 1;
        double t = now();
        for (int x = 0; x < X; x++)
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, cout, tiles, cin, 1, a + x * sa, cin,
                        b + x * sb, tiles, 0, c1 + x * sc, tiles);
        t = now() - t;
        if (t < bestBLAS) bestBLAS = t;
        for (size_t i = 0; i < (16u << 20); i += 16) flush[i] += 1;
        t = now();
        for (int x = 0; x < X; x++) packedGemm(cout, tiles, cin, packed + x * sp, b + x * sb, c2 + x * sc);
        t = now() - t;
        if (t < bestOwn) bestOwn = t;
    }
    double worst = 0;
    for (size_t i = 0; i < sc * X; i++) {
        double d = c1[i] - c2[i];
        if (d < 0) d = -d;
        if (d > worst) worst = d;
    }
    double flops = 2.0 * X * cout * cin * tiles;
    printf("%-34s 36 × [%3d × %3d]·[%3d × %3d]  OpenBLAS %6.2f ms %4.0f GFLOP/s   packed kernel %6.2f ms %4.0f GFLOP/s   max |diff| %.1e\n",
           name, cout, cin, cin, tiles, bestBLAS * 1e3, flops / bestBLAS * 1e-9, bestOwn * 1e3, flops / bestOwn * 1e-9, worst);
    free(a); free(b); free(c1); free(c2); free(packed); free(flush);
}

int main(void) {
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512bf16")) {
        puts("bench_ceiling needs AVX-512F and AVX512_BF16; this CPU lacks one of them");
        return 1;
    }
    printf("one core: FP32 FMA (zmm) %.0f GFLOP/s, BF16 dot product (vdpbf16ps zmm) %.0f GFLOP/s, "
           "INT8 dot product (vpdpbusd zmm) %.0f GOP/s\n",
           fmaPeak(40000000), bf16Peak(20000000), __builtin_cpu_supports("avx512vnni") ? vnniPeak(20000000) : 0.0);
    // Shapes of the network's Winograd GEMMs: 64×128 maps run in blocks of 2–3 rows of 32 tiles,
    // smaller maps whole (16×32 map: 32 tiles; 41×80: 220).
    winogradLayer("backbone.layer1 (one block)", 64, 64, 96);
    winogradLayer("backbone.layer3 (whole map)", 256, 256, 32);
    winogradLayer("neck_fuse_0 (one block)", 64, 256, 96);
    winogradLayer("neck_3d.model.0 (whole map)", 256, 256, 220);
    return 0;
}
