/*
 * The NEON convolutions of CInt8Kernels against its naive kernel, bit for bit: the accumulators
 * (also against the formula written out here), the u8 and f32 epilogue outputs, and every byte
 * around them that a call must not write. Built from the module's sources for aarch64 and run under
 * qemu-aarch64 at several CPUs by `make test-int8-arm64`, so that x86 machines test every ARM
 * path; it mirrors the module (Tests/<Module>Tests) and is no SwiftPM target.
 *
 *   conv_neon_exact EXPECTED
 *
 * EXPECTED is the path the CPU's hardware capabilities should select (neon, neon-dotprod or
 * neon-i8mm). The test fails when its dispatcher picks another one, runs every path the CPU has
 * on random shapes (odd channel counts, 1×1/3×3/7×7, stride 2, borders, row and block sub-ranges,
 * residual, ReLU, f32 out) and on extreme values (0/255 activations, −128/127 weights, huge, infinite
 * and NaN scales), and reports the paths the CPU lacks as skipped: they would die with SIGILL.
 */
#include "int8_kernels.h"

#include <asm/hwcap.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

/// A NEON path and the hardware capabilities (getauxval AT_HWCAP / AT_HWCAP2) it needs.
typedef struct {
    pq_isa isa;
    const char *name;
    unsigned long hwcap, hwcap2;
} path;

/// From the slowest to the fastest, so that the dispatcher takes the last one the CPU has.
static const path paths[] = {
    {PQ_ISA_NEON, "neon", HWCAP_ASIMD, 0},
    {PQ_ISA_NEON_DOTPROD, "neon-dotprod", HWCAP_ASIMD | HWCAP_ASIMDDP, 0},
    {PQ_ISA_NEON_I8MM, "neon-i8mm", HWCAP_ASIMD, HWCAP2_I8MM},
};
enum { PATHS = sizeof paths / sizeof paths[0] };

static int runs(const path *p) {
    return (getauxval(AT_HWCAP) & p->hwcap) == p->hwcap && (getauxval(AT_HWCAP2) & p->hwcap2) == p->hwcap2;
}

/// The path a loader would choose here, NULL on a CPU without Advanced SIMD.
static const path *best_path(void) {
    const path *best = NULL;
    for (int i = 0; i < PATHS; i++) {
        if (runs(&paths[i])) best = &paths[i];
    }
    return best;
}

// MARK: - Random numbers (splitmix64: seeded, the same on every CPU)

static uint64_t state;

static uint64_t next(void) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/// Uniform in lo…hi.
static int uniform(int lo, int hi) { return lo + (int)(next() % (uint64_t)(hi - lo + 1)); }
static int chance(int percent) { return uniform(0, 99) < percent; }
static float uniform_float(float lo, float hi) { return lo + (hi - lo) * (float)(next() >> 40) / (float)(1 << 24); }

// MARK: - Tensors

/// An NHWC tensor inside its border, as int8_kernels.h describes, with its storage.
typedef struct {
    uint8_t *storage;
    size_t size;
    pq_tensor view;
} tensor;

static void *allocate(size_t bytes) {
    void *p = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}

/// `channels` values at byte `offset` of pixels `pixel_stride` bytes apart, every byte `fill`.
static tensor make_tensor(int height, int width, int channels, int border, int pixel_stride, int offset, uint8_t fill) {
    tensor t;
    t.size = (size_t)(height + 2 * border) * (size_t)(width + 2 * border) * (size_t)pixel_stride;
    t.storage = allocate(t.size);
    memset(t.storage, fill, t.size);
    const size_t origin = ((size_t)border * (size_t)(width + 2 * border) + (size_t)border) * (size_t)pixel_stride;
    t.view = (pq_tensor){t.storage + origin + offset, height, width, channels, border, pixel_stride};
    return t;
}

// MARK: - Cases

/// How a case draws its values.
typedef enum {
    VALUES_RANDOM,
    /// Activations 0 or 255, weights −128 or 127: the largest accumulators of either sign.
    VALUES_EXTREME_INTEGERS,
    /// Activations 255 and weights −128 everywhere: the most negative accumulator.
    VALUES_SATURATED,
    /// Huge, infinite, NaN and signed-zero scales and biases, and a huge output scale.
    VALUES_EXTREME_FLOATS,
} values;

typedef struct {
    int cin, cout, k, stride, height, width;
    int relu, residual, u8, f32, s32, slice, input_zero;
    values values;
    /// Output rows and blocks run (the whole extent when split_rows/blocks is 0), and where the
    /// range is cut into separate calls, as different workers would run it.
    int row_begin, row_end, block_begin, block_end, row_split, block_split;
} conv_case;

static int out_extent(int size, int k, int stride) { return (size + 2 * (k / 2) - k) / stride + 1; }

static conv_case random_case(values values) {
    conv_case s;
    memset(&s, 0, sizeof s);
    const int ks[] = {1, 3, 7};
    s.k = ks[uniform(0, 2)];
    const int cin_kinds[] = {3, 4 * uniform(1, 12), uniform(1, 40)};
    s.cin = cin_kinds[uniform(0, 2)];
    if (s.k == 7 && s.cin > 16) s.cin = uniform(1, 16);
    s.cout = chance(30) ? 16 * uniform(1, 4) : uniform(1, 70);
    s.stride = uniform(1, 2);
    s.height = uniform(1, 9);
    s.width = uniform(1, 15);
    s.relu = chance(50);
    s.residual = chance(40);
    s.u8 = chance(70);
    s.f32 = chance(40);
    s.s32 = chance(80) || !(s.u8 || s.f32);
    s.slice = chance(40);
    s.input_zero = chance(50) ? 0 : uniform(1, 255);
    s.values = values;
    const int out_height = out_extent(s.height, s.k, s.stride), blocks = (s.cout + 15) / 16;
    s.row_begin = 0, s.row_end = out_height, s.block_begin = 0, s.block_end = blocks;
    if (chance(30)) {
        s.row_begin = uniform(0, out_height - 1);
        s.row_end = uniform(s.row_begin + 1, out_height);
        s.block_begin = uniform(0, blocks - 1);
        s.block_end = uniform(s.block_begin + 1, blocks);
    }
    s.row_split = uniform(s.row_begin, s.row_end);
    s.block_split = uniform(s.block_begin, s.block_end);
    return s;
}

/// A special float for VALUES_EXTREME_FLOATS, else `ordinary`.
static float extreme_float(float ordinary) {
    const float specials[] = {NAN, -NAN, INFINITY, -INFINITY, 1e30f, -1e30f, 0.0f, -0.0f, 1e-30f};
    return chance(50) ? specials[uniform(0, (int)(sizeof specials / sizeof specials[0]) - 1)] : ordinary;
}

/// What one run wrote: the whole output storage, f32 and s32 buffers, canaries included.
typedef struct {
    tensor output;
    float *f32;
    int32_t *s32;
    size_t f32_count, s32_count;
} outputs;

static const uint8_t byte_canary = 0xA5;
static const uint32_t float_canary = 0x7FC01234u;
static const int32_t int_canary = INT32_MIN + 12345;

/// Everything a case needs, and the naive run that is the reference.
typedef struct {
    conv_case s;
    int pad, cin4, out_height, out_width;
    int8_t *weights;
    tensor input, residual;
    int32_t *weight_sums, *compensation;
    float *scale, *bias;
    float residual_scale, output_inverse_scale;
    int residual_zero, output_zero;
} fixture;

static fixture make_fixture(conv_case s) {
    fixture f;
    f.s = s;
    f.pad = s.k / 2;
    f.cin4 = (s.cin + 3) / 4 * 4;
    f.out_height = out_extent(s.height, s.k, s.stride);
    f.out_width = out_extent(s.width, s.k, s.stride);
    const size_t count = (size_t)s.cout * (size_t)s.cin * (size_t)s.k * (size_t)s.k;
    f.weights = allocate(count);
    for (size_t i = 0; i < count; i++) {
        switch (s.values) {
        case VALUES_EXTREME_INTEGERS: f.weights[i] = chance(50) ? -128 : 127; break;
        case VALUES_SATURATED: f.weights[i] = -128; break;
        default: f.weights[i] = (int8_t)uniform(-128, 127); break;
        }
    }
    // Padding channels (cin…cin4) and the slice's other bytes hold random values: their weights
    // are zero, and the kernels must not read the rest.
    f.input = make_tensor(s.height, s.width, f.cin4, f.pad + uniform(0, 1), f.cin4 + (s.slice ? 3 : 0),
                          s.slice ? 2 : 0, 0);
    for (size_t i = 0; i < f.input.size; i++) {
        switch (s.values) {
        case VALUES_EXTREME_INTEGERS: f.input.storage[i] = chance(50) ? 0 : 255; break;
        case VALUES_SATURATED: f.input.storage[i] = 255; break;
        default: f.input.storage[i] = (uint8_t)uniform(0, 255); break;
        }
    }
    pq_fill_border(f.input.view, (uint8_t)s.input_zero);
    f.residual.storage = NULL;
    if (s.residual) {
        f.residual = make_tensor(f.out_height, f.out_width, s.cout, uniform(0, 1), s.cout + (s.slice ? 5 : 0),
                                 s.slice ? 1 : 0, 0);
        for (size_t i = 0; i < f.residual.size; i++) f.residual.storage[i] = (uint8_t)uniform(0, 255);
    }
    f.weight_sums = allocate((size_t)s.cout * sizeof(int32_t));
    f.compensation = allocate((size_t)s.cout * sizeof(int32_t));
    f.scale = allocate((size_t)s.cout * sizeof(float));
    f.bias = allocate((size_t)s.cout * sizeof(float));
    const float typical = sqrtf((float)(s.cin * s.k * s.k)) * 128 * 128;
    for (int o = 0; o < s.cout; o++) {
        int32_t sum = 0;
        for (size_t i = 0; i < (size_t)(s.cin * s.k * s.k); i++) sum += f.weights[(size_t)o * (size_t)(s.cin * s.k * s.k) + i];
        f.weight_sums[o] = sum;
        f.compensation[o] = s.input_zero * sum;
        f.scale[o] = uniform_float(0.5f, 2.0f) * 96 / typical;
        f.bias[o] = uniform_float(-20, 20);
        if (s.values == VALUES_EXTREME_FLOATS) f.scale[o] = extreme_float(f.scale[o]), f.bias[o] = extreme_float(f.bias[o]);
    }
    f.residual_scale = uniform_float(0.1f, 0.5f);
    f.residual_zero = uniform(0, 255);
    f.output_inverse_scale = uniform_float(0.5f, 1.5f);
    f.output_zero = uniform(0, 160);
    if (s.values == VALUES_EXTREME_FLOATS) {
        f.residual_scale = extreme_float(f.residual_scale);
        f.output_inverse_scale = chance(50) ? 1e30f : f.output_inverse_scale;
    }
    return f;
}

static void free_fixture(fixture *f) {
    free(f->weights);
    free(f->input.storage);
    free(f->residual.storage);
    free(f->weight_sums);
    free(f->compensation);
    free(f->scale);
    free(f->bias);
}

/// Packs the weights for `isa` and runs the case's ranges as up to 4 calls into fresh buffers
/// filled with canaries. Returns 0 when the packing's weight sums are wrong.
static int run(const fixture *f, pq_isa isa, outputs *out) {
    const conv_case *s = &f->s;
    const size_t size = pq_packed_size(isa, s->cout, s->cin, s->k);
    void *packed = allocate(size);
    int32_t *sums = allocate((size_t)s->cout * sizeof(int32_t));
    pq_pack_weights(isa, f->weights, s->cout, s->cin, s->k, packed, sums);
    const int sums_match = memcmp(sums, f->weight_sums, (size_t)s->cout * sizeof(int32_t)) == 0;

    const size_t pixels = (size_t)f->out_height * (size_t)f->out_width;
    const int f32_stride = s->cout + (s->slice ? 3 : 0);
    out->output = make_tensor(f->out_height, f->out_width, s->cout, 1, s->cout + (s->slice ? 7 : 0), s->slice ? 3 : 0,
                              byte_canary);
    out->f32_count = pixels * (size_t)f32_stride + 8;
    out->s32_count = pixels * (size_t)s->cout + 8;
    out->f32 = allocate(out->f32_count * sizeof(float));
    out->s32 = allocate(out->s32_count * sizeof(int32_t));
    for (size_t i = 0; i < out->f32_count; i++) memcpy(&out->f32[i], &float_canary, sizeof float_canary);
    for (size_t i = 0; i < out->s32_count; i++) out->s32[i] = int_canary;

    pq_conv conv;
    memset(&conv, 0, sizeof conv);
    conv.cin = s->cin, conv.cout = s->cout, conv.k = s->k, conv.stride = s->stride, conv.pad = f->pad;
    conv.packed = packed;
    conv.compensation = f->compensation, conv.scale = f->scale, conv.bias = f->bias;
    if (s->residual) conv.residual = f->residual.view;
    conv.residual_scale = f->residual_scale, conv.residual_zero = f->residual_zero;
    conv.relu = s->relu;
    if (s->u8) conv.output = out->output.view;
    conv.output_inverse_scale = f->output_inverse_scale, conv.output_zero = f->output_zero;
    if (s->f32) conv.out_f32 = out->f32;
    conv.out_f32_stride = f32_stride;
    if (s->s32) conv.out_s32 = out->s32;
    conv.out_height = f->out_height, conv.out_width = f->out_width;
    const int rows[3] = {s->row_begin, s->row_split, s->row_end};
    const int blocks[3] = {s->block_begin, s->block_split, s->block_end};
    for (int r = 0; r < 2; r++) {
        for (int b = 0; b < 2; b++) {
            if (rows[r] < rows[r + 1] && blocks[b] < blocks[b + 1]) {
                pq_conv_run(isa, &conv, f->input.view, rows[r], rows[r + 1], blocks[b], blocks[b + 1]);
            }
        }
    }
    free(packed);
    free(sums);
    return sums_match;
}

static void free_outputs(outputs *out) {
    free(out->output.storage);
    free(out->f32);
    free(out->s32);
}

/// Whether the accumulators of the case's region are the formula's: Σ w·in over the taps, reading
/// the input through its border (which holds the zero point).
static int accumulators_match_formula(const fixture *f, const outputs *out) {
    const conv_case *s = &f->s;
    const pq_tensor in = f->input.view;
    for (int y = s->row_begin; y < s->row_end; y++) {
        for (int x = 0; x < f->out_width; x++) {
            for (int o = s->block_begin * 16; o < s->block_end * 16 && o < s->cout; o++) {
                int32_t acc = 0;
                for (int c = 0; c < s->cin; c++) {
                    for (int ky = 0; ky < s->k; ky++) {
                        for (int kx = 0; kx < s->k; kx++) {
                            const int iy = y * s->stride - f->pad + ky, ix = x * s->stride - f->pad + kx;
                            const uint8_t a = in.data[iy * pq_row_stride(in) + ix * in.pixel_stride + c];
                            acc += f->weights[(((size_t)o * (size_t)s->cin + (size_t)c) * (size_t)s->k + (size_t)ky) * (size_t)s->k + (size_t)kx] * a;
                        }
                    }
                }
                if (out->s32[((size_t)y * (size_t)f->out_width + (size_t)x) * (size_t)s->cout + (size_t)o] != acc) return 0;
            }
        }
    }
    return 1;
}

static void describe(const conv_case *s, char *text, size_t size) {
    static const char *const kinds[] = {"random", "extreme integers", "saturated", "extreme floats"};
    snprintf(text, size, "%d→%d k%d s%d %d×%d rows %d…%d|%d blocks %d…%d|%d%s%s%s%s%s%s zero %d, %s", s->cin, s->cout, s->k,
             s->stride, s->height, s->width, s->row_begin, s->row_split, s->row_end, s->block_begin, s->block_split,
             s->block_end, s->relu ? " relu" : "", s->residual ? " residual" : "", s->u8 ? " u8" : "", s->f32 ? " f32" : "",
             s->s32 ? " s32" : "", s->slice ? " slice" : "", s->input_zero, kinds[s->values]);
}

/// Runs one case on `p` and on the naive path; prints what differs. Returns 1 when bit-exact.
static int check(const path *p, conv_case s) {
    fixture f = make_fixture(s);
    outputs expected, actual;
    const int naive_sums = run(&f, PQ_ISA_NAIVE, &expected);
    const int sums = run(&f, p->isa, &actual);
    const char *failure = NULL;
    if (!naive_sums || !sums) {
        failure = "weight sums differ";
    } else if (s.s32 && !accumulators_match_formula(&f, &expected)) {
        failure = "naive accumulators differ from the formula";
    } else if (memcmp(actual.s32, expected.s32, expected.s32_count * sizeof(int32_t)) != 0) {
        failure = "s32 accumulators (or bytes around them) differ";
    } else if (memcmp(actual.output.storage, expected.output.storage, expected.output.size) != 0) {
        failure = "u8 outputs (or bytes around them) differ";
    } else if (memcmp(actual.f32, expected.f32, expected.f32_count * sizeof(float)) != 0) {
        failure = "f32 outputs (or bytes around them) differ";
    }
    if (failure) {
        char text[256];
        describe(&s, text, sizeof text);
        fprintf(stderr, "%s: %s: %s\n", p->name, text, failure);
    }
    free_outputs(&expected);
    free_outputs(&actual);
    free_fixture(&f);
    return failure == NULL;
}

/// `s` over all its rows and blocks, cut in the middle of both.
static conv_case whole(conv_case s) {
    s.row_end = out_extent(s.height, s.k, s.stride);
    s.block_end = (s.cout + 15) / 16;
    s.row_split = s.row_end / 2;
    s.block_split = s.block_end / 2;
    return s;
}

/// The network's kinds of layer on small maps, then random draws of every kind of values.
static int check_path(const path *p) {
    int cases = 0, failures = 0;
    const conv_case named[] = {
        // The stem, a residual block's 3×3, downsampling 3×3 and 1×1, a head's 1×1 and long rows.
        {.cin = 3, .cout = 64, .k = 7, .stride = 2, .height = 9, .width = 13, .relu = 1, .u8 = 1, .s32 = 1},
        {.cin = 64, .cout = 64, .k = 3, .stride = 1, .height = 7, .width = 9, .relu = 1, .residual = 1, .u8 = 1,
         .f32 = 1, .s32 = 1, .slice = 1, .input_zero = 17},
        {.cin = 32, .cout = 130, .k = 3, .stride = 2, .height = 9, .width = 13, .relu = 1, .u8 = 1, .s32 = 1,
         .input_zero = 128},
        {.cin = 64, .cout = 128, .k = 1, .stride = 2, .height = 8, .width = 13, .u8 = 1, .s32 = 1},
        {.cin = 192, .cout = 120, .k = 1, .stride = 1, .height = 5, .width = 7, .f32 = 1, .s32 = 1, .slice = 1},
        {.cin = 64, .cout = 64, .k = 3, .stride = 1, .height = 4, .width = 40, .relu = 1, .residual = 1, .u8 = 1,
         .f32 = 1, .s32 = 1, .input_zero = 9},
    };
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++, cases++) failures += !check(p, whole(named[i]));
    const values kinds[] = {VALUES_RANDOM, VALUES_EXTREME_INTEGERS, VALUES_SATURATED, VALUES_EXTREME_FLOATS};
    for (int i = 0; i < 400; i++, cases++) failures += !check(p, random_case(kinds[i % 4]));
    printf("%s: %d cases, %d bit-exact, %d failed\n", p->name, cases, cases - failures, failures);
    return failures == 0;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: conv_neon_exact EXPECTED (neon, neon-dotprod or neon-i8mm)\n");
        return 2;
    }
    const unsigned long hwcap = getauxval(AT_HWCAP), hwcap2 = getauxval(AT_HWCAP2);
    const path *best = best_path();
    printf("hwcaps: asimd %d, asimddp %d, i8mm %d; dispatcher chose %s, expected %s\n", !!(hwcap & HWCAP_ASIMD),
           !!(hwcap & HWCAP_ASIMDDP), !!(hwcap2 & HWCAP2_I8MM), best ? best->name : "none", argv[1]);
    int ok = best && strcmp(best->name, argv[1]) == 0;
    if (!ok) fprintf(stderr, "the dispatcher chose %s, not %s\n", best ? best->name : "none", argv[1]);
    // Only the naive and NEON kernels exist in an AArch64 build.
    for (pq_isa isa = PQ_ISA_NAIVE; isa <= PQ_ISA_NEON_I8MM; isa++) {
        const int expected = isa == PQ_ISA_NAIVE || isa == PQ_ISA_NEON || isa == PQ_ISA_NEON_DOTPROD || isa == PQ_ISA_NEON_I8MM;
        if (pq_isa_compiled(isa) != expected) {
            fprintf(stderr, "pq_isa_compiled(%d) is %d\n", (int)isa, pq_isa_compiled(isa));
            ok = 0;
        }
    }
    for (int i = 0; i < PATHS; i++) {
        state = 0x5EED0000u + (uint64_t)i;
        if (runs(&paths[i])) {
            ok &= check_path(&paths[i]);
        } else {
            printf("%s: skipped (this CPU lacks it)\n", paths[i].name);
        }
    }
    printf("%s\n", ok ? "passed" : "FAILED");
    return ok ? 0 : 1;
}
