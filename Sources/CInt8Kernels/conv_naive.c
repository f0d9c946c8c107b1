// The reference convolution: the formula of pq_conv_run written as loops over the naive packed
// layout [cout/16][16][k][k][cin4]. The vector kernels are tested bit-exact against it, so the
// epilogue below is the one they reproduce operation by operation.
#include "conv_internal.h"

#include <math.h>

/// Epilogue of one accumulator: output channel `o` of output pixel (y, x).
static void epilogue(const pq_conv *c, int32_t acc, int o, int y, int x) {
    const size_t pixel = (size_t)y * (size_t)c->out_width + (size_t)x;
    if (c->out_s32) c->out_s32[pixel * (size_t)c->cout + (size_t)o] = acc;
    if (!c->output.data && !c->out_f32) return;
    float v = fmaf((float)(acc - c->compensation[o]), c->scale[o], c->bias[o]);
    if (c->residual.data) {
        const uint8_t r = c->residual.data[y * pq_row_stride(c->residual) + x * c->residual.pixel_stride + o];
        v = fmaf((float)(r - c->residual_zero), c->residual_scale, v);
    }
    // Written as vmaxps(v, 0) behaves: −0 and NaN become +0.
    if (c->relu) v = v > 0.0f ? v : 0.0f;
    if (c->output.data) {
        c->output.data[y * pq_row_stride(c->output) + x * c->output.pixel_stride + o] =
            pq_saturate_u8(v * c->output_inverse_scale, c->output_zero);
    }
    if (c->out_f32) c->out_f32[pixel * (size_t)c->out_f32_stride + (size_t)o] = v;
}

void pq_conv_run_naive(const pq_conv *c, pq_tensor in, int row_begin, int row_end, int block_begin, int block_end) {
    const int block = pq_output_block(PQ_ISA_NAIVE), k = c->k, cin4 = pq_round_up(c->cin, PQ_CHANNEL_GROUP);
    const int8_t *packed = c->packed;
    const ptrdiff_t row_stride = pq_row_stride(in);
    for (int o = block_begin * block; o < block_end * block && o < c->cout; o++) {
        const int8_t *w = packed + (size_t)o * (size_t)(k * k * cin4);
        for (int y = row_begin; y < row_end; y++) {
            for (int x = 0; x < c->out_width; x++) {
                const uint8_t *origin = in.data + (y * c->stride - c->pad) * row_stride +
                                        (x * c->stride - c->pad) * in.pixel_stride;
                int32_t acc = 0;
                for (int ky = 0; ky < k; ky++) {
                    for (int kx = 0; kx < k; kx++) {
                        const uint8_t *pixel = origin + ky * row_stride + kx * in.pixel_stride;
                        const int8_t *tap = w + (ky * k + kx) * cin4;
                        for (int ch = 0; ch < cin4; ch++) acc += tap[ch] * pixel[ch];
                    }
                }
                epilogue(c, acc, o, y, x);
            }
        }
    }
}
