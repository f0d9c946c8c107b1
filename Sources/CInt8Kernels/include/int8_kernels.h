// INT8 kernels of the Safety40 runtime: u8 activations × s8 weights → s32, with a float epilogue.
//
// Activations are NHWC uint8 ("channels last") inside a zero-point border: a tensor of
// `height × width` pixels with `channels` values each is stored as `(height + 2·border)` rows of
// `(width + 2·border)` pixels, `pixel_stride` bytes apart (≥ channels, so that a tensor can be a
// channel slice of a wider one); `data` points at interior pixel (0, 0). The border holds the
// tensor's zero point, so a padded convolution reads it as real zero without bounds checks.
//
// Real value of a stored byte q: scale · (q − zero_point).
#ifndef PERIPHERY_INT8_KERNELS_H
#define PERIPHERY_INT8_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Instruction sets of the convolution kernel, chosen from the CPU's features at load.
typedef enum {
    /// Any x86-64 CPU: plain C, the reference the others are tested against.
    PQ_ISA_NAIVE = 0,
    /// AVX2: u8/s8 widened to s16 and multiplied with vpmaddwd (exact: no s16 saturation).
    PQ_ISA_AVX2 = 1,
    /// AVX-VNNI (VEX vpdpbusd on 256-bit registers).
    PQ_ISA_AVXVNNI = 2,
    /// AVX-512 VNNI (vpdpbusd on 512-bit registers).
    PQ_ISA_AVX512VNNI = 3,
    /// AVX2 for 7-bit weights: vpdpbusd emulated as vpmaddwd(vpmaddubsw(in, w), 1), twice the rate
    /// of PQ_ISA_AVX2. Exact only when every weight lies in −64…63 (`pq_weights_fit_maddubs`):
    /// wider weights would saturate vpmaddubsw's s16 pair sums.
    PQ_ISA_AVX2_MADDUBS = 4,
    /// AVX2 for 6-bit weights: as PQ_ISA_AVX2_MADDUBS, with two channel groups' vpmaddubsw
    /// products added in s16 before one vpmaddwd. Exact only when every weight lies in −32…31.
    PQ_ISA_AVX2_MADDUBS6 = 5,
    /// ARMv8.0 Advanced SIMD, any aarch64.
    PQ_ISA_NEON = 6,
    /// Advanced SIMD with the dot product (sdot).
    PQ_ISA_NEON_DOTPROD = 7,
    /// Advanced SIMD with the int8 matrix multiply (usdot).
    PQ_ISA_NEON_I8MM = 8,
} pq_isa;

/// 1 when this build contains `isa`'s kernel, else 0.
int pq_isa_compiled(pq_isa isa);

/// A view of an NHWC uint8 tensor (see the file comment).
typedef struct {
    uint8_t *data;
    int height, width, channels;
    /// Pixels of zero-point border on every side.
    int border;
    /// Bytes from one pixel to the next.
    int pixel_stride;
} pq_tensor;

/// Bytes from one row of `t` to the next.
static inline ptrdiff_t pq_row_stride(pq_tensor t) { return (ptrdiff_t)(t.width + 2 * t.border) * t.pixel_stride; }

/// Whether all `count` weights lie in −64…63, the range PQ_ISA_AVX2_MADDUBS is exact on.
int pq_weights_fit_maddubs(const int8_t *weights, size_t count);

/// Whether all `count` weights lie in −32…31, the range PQ_ISA_AVX2_MADDUBS6 is exact on.
int pq_weights_fit_maddubs6(const int8_t *weights, size_t count);

/// Output channels per packed block of the kernel for `isa` (64 for AVX-512, 16 otherwise).
int pq_output_block(pq_isa isa);

/// Bytes of packed weights for a `[cout, cin, k, k]` convolution: channels are padded to a multiple
/// of 4 (inputs) and of `pq_output_block(isa)` (outputs) with zero weights.
size_t pq_packed_size(pq_isa isa, int cout, int cin, int k);

/// Packs PyTorch-layout int8 weights `[cout][cin][k][k]` for `isa` into `packed`
/// (`pq_packed_size` bytes, 64-byte aligned). Also writes `weight_sums[cout]`, the sum of each
/// output channel's weights (for the zero-point compensation).
void pq_pack_weights(pq_isa isa, const int8_t *weights, int cout, int cin, int k, void *packed, int32_t *weight_sums);

/// One convolution with its epilogue, for every output pixel (y, x) and output channel o:
///
///     acc = Σ_{c,ky,kx} w[o][c][ky][kx] · in[y·stride − pad + ky][x·stride − pad + kx][c]   (int32, exact)
///     v   = fmaf((float)(acc − compensation[o]), scale[o], bias[o])
///     v   = fmaf((float)(residual[y][x][o] − residual_zero), residual_scale, v)   if residual
///     v   = max(v, 0)                                                             if relu
///     out = clamp(nearbyintf(v · output_inverse_scale) + output_zero, 0, 255)     if output
///     out_f32[(y·out_width + x)·out_f32_stride + o] = v                           if out_f32
///     out_s32[(y·out_width + x)·cout + o] = acc                                   if out_s32 (tests)
///
/// The input's border must be at least `pad`, its channels a multiple of 4 equal to the packed
/// `cin` rounded up (padding channels hold any value: their weights are zero).
typedef struct {
    int cin, cout, k, stride, pad;
    /// From `pq_pack_weights` for the same isa.
    const void *packed;
    /// [cout]: input zero point × weight sum, scale (input scale × weight scale), bias.
    const int32_t *compensation;
    const float *scale;
    const float *bias;
    /// Optional residual, same height/width/channels as the output (data NULL when absent).
    pq_tensor residual;
    float residual_scale;
    int residual_zero;
    int relu;
    /// uint8 output (data NULL when absent).
    pq_tensor output;
    float output_inverse_scale;
    int output_zero;
    /// Optional float output, pixel-major with `out_f32_stride` floats per pixel (NULL when absent).
    float *out_f32;
    int out_f32_stride;
    /// Optional raw accumulators (tests), pixel-major `[out_h·out_w][cout]` (NULL when absent).
    int32_t *out_s32;
    /// Output extent.
    int out_height, out_width;
} pq_conv;

/// Runs output rows `[row_begin, row_end)` of output-channel blocks `[block_begin, block_end)`
/// (blocks of `pq_output_block(isa)` channels). Disjoint ranges may run on different threads.
void pq_conv_run(pq_isa isa, const pq_conv *conv, pq_tensor input, int row_begin, int row_end, int block_begin, int block_end);

/// Planar float `[channels][height][width]` → NHWC uint8 `output` (channels ≤ output.channels;
/// extra channels written as `zero`): q = clamp(nearbyintf(x · inverse_scale) + zero, 0, 255).
/// Rows `[row_begin, row_end)`.
void pq_quantize_planar(const float *input, int channels, int height, int width, float inverse_scale, int zero,
                        pq_tensor output, int row_begin, int row_end);

/// NHWC uint8 → planar float `[channels][height][width]`: x = scale · (q − zero). For dumps and tests.
void pq_dequantize_planar(pq_tensor input, float scale, int zero, float *output);

/// Fills the border of `t` (not its interior) with `value`: the `channels` bytes of each border
/// pixel, so that a channel slice leaves the other channels of its wider tensor alone.
void pq_fill_border(pq_tensor t, uint8_t value);

/// 3×3 stride-2 max pool with padding 1 (the border counts as the smallest value, which is exact
/// when the border holds the zero point of a ReLU output); same scale in and out. Output pixel (y, x)
/// is the maximum over input rows 2y−1…2y+1 and columns 2x−1…2x+1, so `input.border` ≥ 1.
/// Output rows `[row_begin, row_end)`.
void pq_max_pool_3x3s2(pq_tensor input, pq_tensor output, int row_begin, int row_end);

/// FPN top-down step: out[y][x][c] = q((a[y][x][c] − a_zero)·a_scale + (b[y/2][x/2][c] − b_zero)·b_scale)
/// with q(v) = clamp(nearbyintf(v · out_inverse_scale) + out_zero, 0, 255); `out` may be `a`.
/// Rows `[row_begin, row_end)` of `a`.
void pq_add_upsampled2x(pq_tensor a, float a_scale, int a_zero, pq_tensor b, float b_scale, int b_zero,
                        pq_tensor out, float out_inverse_scale, int out_zero, int row_begin, int row_end);

/// Bilinear resize with precomputed taps: for output pixel (y, x) and channel c, with
/// p(i, j) = (in[i][j][c] − in_zero) · in_scale, rows[2y…2y+1] = {y0, y1}, row_weights[2y…2y+1] = {r0, r1}
/// and likewise columns/column_weights[2x…2x+1] = {x0, x1}, {c0, c1}:
///     v = r0 · (c0 · p(y0, x0) + c1 · p(y0, x1)) + r1 · (c0 · p(y1, x0) + c1 · p(y1, x1))
/// quantized as in `pq_add_upsampled2x`. Output rows `[row_begin, row_end)`.
void pq_resize_bilinear(pq_tensor input, float in_scale, int in_zero, pq_tensor output, float out_inverse_scale,
                        int out_zero, const int32_t *rows, const float *row_weights, const int32_t *columns,
                        const float *column_weights, int row_begin, int row_end);

/// ProjectionLUT gather fused with the BEV neck's space-to-channel: for BEV pixel p and depth z,
/// output pixel p's channels [z·C, (z+1)·C) are the features at pixel `lut[p·depth + z]`
/// (index into the height×width feature map, row-major) when `visible[p·depth + z]` is non-zero,
/// else `zero` (the lut entry is then not read). C = features.channels; output must have depth·C channels and height·width = pixels.
/// BEV pixels `[begin, end)`.
void pq_gather_bev(pq_tensor features, const int32_t *lut, const uint8_t *visible, int depth, uint8_t zero,
                   pq_tensor output, int begin, int end);

#ifdef __cplusplus
}
#endif

#endif
