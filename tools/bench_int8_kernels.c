// One round of the INT8 convolution kernels on Safety40's kinds of layer, single-threaded, for
// tools/bench_int8_kernels.py, which builds it against two versions of Sources/CInt8Kernels and
// alternates them (docs/results/benchmarks.md). Built against the module's public header only, so
// that any version of the sources with the same API links.
//
//   bench_int8_kernels ISA...   (avx512-vnni, avx-vnni, avx2, avx2-maddubs, avx2-maddubs6)
//
// Prints one line per ISA and layer: `ISA LAYER MS CHECKSUM`, MS the milliseconds of one whole
// convolution (all rows, all blocks, u8 output with ReLU; the mean of the fastest of 5 batches),
// CHECKSUM a hash of the output bytes, which two versions must agree on.
#include "int8_kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    const char *name;
    int cin, cout, k, stride, height, width, residual;
} layer;

// ResNet-18 at the 352×640 input: layer1's 3×3 at stride 4 (with its residual), layer2's first
// 3×3 and its 1×1 downsample at stride 2, a 3×3 at 11×20 and an FPN lateral 1×1.
static const layer layers[] = {
    {"3x3-64-88x160", 64, 64, 3, 1, 88, 160, 1},
    {"3x3s2-64-128-88x160", 64, 128, 3, 2, 88, 160, 0},
    {"1x1s2-64-128-88x160", 64, 128, 1, 2, 88, 160, 0},
    {"3x3-256-11x20", 256, 256, 3, 1, 11, 20, 0},
    {"1x1-256-64-22x40", 256, 64, 1, 1, 22, 40, 0},
};

typedef struct {
    const char *name;
    pq_isa isa;
    /// The widest weights the kernel is exact on.
    int weight_bits;
} kernel;

static const kernel kernels[] = {
    {"avx512-vnni", PQ_ISA_AVX512VNNI, 8}, {"avx-vnni", PQ_ISA_AVXVNNI, 8},         {"avx2", PQ_ISA_AVX2, 8},
    {"avx2-maddubs", PQ_ISA_AVX2_MADDUBS, 7}, {"avx2-maddubs6", PQ_ISA_AVX2_MADDUBS6, 6},
};

static uint32_t state = 12345;

static uint32_t next(void) {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
}

static void *allocate(size_t bytes) {
    void *p = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/// A random tensor with a one-pixel border holding `zero`.
static pq_tensor make_tensor(int height, int width, int channels, uint8_t zero) {
    const size_t size = (size_t)(height + 2) * (size_t)(width + 2) * (size_t)channels;
    uint8_t *storage = allocate(size);
    for (size_t i = 0; i < size; i++) storage[i] = (uint8_t)next();
    pq_tensor t = {storage + ((size_t)(width + 2) + 1) * (size_t)channels, height, width, channels, 1, channels};
    pq_fill_border(t, zero);
    return t;
}

static void bench(const kernel *kernel, const layer *l) {
    const int out_height = (l->height + 2 * (l->k / 2) - l->k) / l->stride + 1;
    const int out_width = (l->width + 2 * (l->k / 2) - l->k) / l->stride + 1;
    const size_t count = (size_t)l->cout * (size_t)l->cin * (size_t)l->k * (size_t)l->k;
    int8_t *weights = allocate(count);
    const int half = 1 << (kernel->weight_bits - 1);
    for (size_t i = 0; i < count; i++) weights[i] = (int8_t)((int)(next() % (uint32_t)(2 * half)) - half);
    void *packed = allocate(pq_packed_size(kernel->isa, l->cout, l->cin, l->k));
    int32_t *sums = allocate((size_t)l->cout * sizeof(int32_t)), *compensation = allocate((size_t)l->cout * sizeof(int32_t));
    float *scale = allocate((size_t)l->cout * sizeof(float)), *bias = allocate((size_t)l->cout * sizeof(float));
    pq_pack_weights(kernel->isa, weights, l->cout, l->cin, l->k, packed, sums);
    for (int o = 0; o < l->cout; o++) {
        compensation[o] = 3 * sums[o];
        scale[o] = 1e-3f * (float)(1 + o % 7);
        bias[o] = (float)(o % 11) - 5;
    }
    const pq_tensor input = make_tensor(l->height, l->width, l->cin, 3);
    const pq_tensor output = make_tensor(out_height, out_width, l->cout, 0);
    const pq_tensor residual = make_tensor(out_height, out_width, l->cout, 0);
    pq_conv conv;
    memset(&conv, 0, sizeof conv);
    conv.cin = l->cin, conv.cout = l->cout, conv.k = l->k, conv.stride = l->stride, conv.pad = l->k / 2;
    conv.packed = packed, conv.compensation = compensation, conv.scale = scale, conv.bias = bias;
    if (l->residual) conv.residual = residual, conv.residual_scale = 0.05f, conv.residual_zero = 7;
    conv.relu = 1;
    conv.output = output, conv.output_inverse_scale = 0.5f, conv.output_zero = 0;
    conv.out_height = out_height, conv.out_width = out_width;
    const int blocks = (l->cout + pq_output_block(kernel->isa) - 1) / pq_output_block(kernel->isa);

    // Batches of about 40 ms after a warm-up call; the fastest batch, the one least disturbed by
    // other work on the machine.
    pq_conv_run(kernel->isa, &conv, input, 0, out_height, 0, blocks);
    double start = now();
    pq_conv_run(kernel->isa, &conv, input, 0, out_height, 0, blocks);
    const double once = now() - start;
    const int repetitions = once > 0.04 ? 1 : (int)(0.04 / (once > 1e-6 ? once : 1e-6)) + 1;
    double ms = 1e30;
    for (int batch = 0; batch < 5; batch++) {
        start = now();
        for (int r = 0; r < repetitions; r++) pq_conv_run(kernel->isa, &conv, input, 0, out_height, 0, blocks);
        const double batch_ms = (now() - start) * 1e3 / repetitions;
        if (batch_ms < ms) ms = batch_ms;
    }

    uint32_t checksum = 2166136261u;
    for (int y = 0; y < out_height; y++) {
        for (int x = 0; x < out_width; x++) {
            const uint8_t *pixel = output.data + y * pq_row_stride(output) + x * output.pixel_stride;
            for (int o = 0; o < l->cout; o++) checksum = (checksum ^ pixel[o]) * 16777619u;
        }
    }
    printf("%s %s %.4f %08x\n", kernel->name, l->name, ms, checksum);
    free(weights), free(packed), free(sums), free(compensation), free(scale), free(bias);
    free(input.data - pq_row_stride(input) - input.pixel_stride);
    free(output.data - pq_row_stride(output) - output.pixel_stride);
    free(residual.data - pq_row_stride(residual) - residual.pixel_stride);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: bench_int8_kernels ISA...\n");
        return 2;
    }
    for (int a = 1; a < argc; a++) {
        const kernel *found = NULL;
        for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
            if (strcmp(kernels[i].name, argv[a]) == 0) found = &kernels[i];
        }
        if (!found) {
            fprintf(stderr, "unknown ISA %s\n", argv[a]);
            return 2;
        }
        state = 12345;
        for (size_t i = 0; i < sizeof layers / sizeof layers[0]; i++) bench(found, &layers[i]);
    }
    return 0;
}
