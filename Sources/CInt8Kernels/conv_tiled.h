// The tiled convolution driver shared by every vector kernel: an ISA's file defines the macros
// below, includes this header and then defines its `tile`, the only part that differs between
// instruction sets (one shared implementation instantiated per ISA file, as ncnn does). Everything
// is `static` but the entry point, so each file gets its own copy compiled for its target.
//
//   PQ_TILED_RUN  the entry point's name (pq_conv_run_<isa>, declared in conv_internal.h)
//   TARGET        the target attribute of every function (PQ_TARGET_<ISA> from conv_internal.h)
//   BLOCK         output channels of a packed block (pq_output_block)
//   TILE          output pixels of a whole tile, 1…6: its accumulators must fit the registers
//   GROUP_BYTES   bytes of packed weights per 4-channel input group of a block
//   WEIGHT        the packed weights' element type as `tile` reads them
//
// A tile is TILE output pixels of one row × BLOCK channels. The input is read through its
// zero-point border, so the tile's inner loop has no bounds checks.
#ifndef PERIPHERY_CONV_TILED_H
#define PERIPHERY_CONV_TILED_H

#include "conv_internal.h"

#if TILE < 1 || TILE > 6
#error "TILE must be 1…6: row() below instantiates the narrower tails up to 5"
#endif

/// Input addressing of one convolution, and the block being run.
typedef struct {
    ptrdiff_t row_stride, pixel_stride;
    /// Bytes between the receptive fields of neighbouring output pixels (stride · pixel_stride).
    ptrdiff_t pixel_step;
    int groups;
    /// Bytes of one block's packed weights.
    size_t block_bytes;
    /// Real output channels of the block being run (BLOCK except in the last block).
    int channels;
} geometry;

/// Output pixels (y, x … x + pixels − 1), channels o … o + BLOCK − 1, with their epilogue; `origin`
/// is the input pixel under tap (0, 0) of output pixel x, `w` the block's packed weights. Defined by
/// the ISA's file; `pixels` is a constant after inlining, so that the accumulators live in registers.
static inline __attribute__((always_inline)) TARGET void tile(const pq_conv *c, const geometry *g,
                                                             const uint8_t *origin, const WEIGHT *w, int o, int y,
                                                             int x, int pixels);

/// One output row y of the block at channel o: whole tiles, then one narrower tile.
static TARGET void row(const pq_conv *c, const geometry *g, const uint8_t *origin, const WEIGHT *w, int o, int y) {
    int x = 0;
    for (; x + TILE <= c->out_width; x += TILE) tile(c, g, origin + x * g->pixel_step, w, o, y, x, TILE);
    const uint8_t *rest = origin + x * g->pixel_step;
    // Only the widths below TILE, so that a narrow tile's file does not instantiate wider ones.
    switch (c->out_width - x) {
#if TILE > 5
    case 5: tile(c, g, rest, w, o, y, x, 5); break;
#endif
#if TILE > 4
    case 4: tile(c, g, rest, w, o, y, x, 4); break;
#endif
#if TILE > 3
    case 3: tile(c, g, rest, w, o, y, x, 3); break;
#endif
#if TILE > 2
    case 2: tile(c, g, rest, w, o, y, x, 2); break;
#endif
#if TILE > 1
    case 1: tile(c, g, rest, w, o, y, x, 1); break;
#endif
    default: break;
    }
}

TARGET void PQ_TILED_RUN(const pq_conv *c, pq_tensor in, int row_begin, int row_end, int block_begin, int block_end) {
    geometry g = {
        .row_stride = pq_row_stride(in),
        .pixel_stride = in.pixel_stride,
        .pixel_step = (ptrdiff_t)c->stride * in.pixel_stride,
        .groups = pq_round_up(c->cin, PQ_CHANNEL_GROUP) / PQ_CHANNEL_GROUP,
    };
    g.block_bytes = (size_t)(c->k * c->k * g.groups) * GROUP_BYTES;
    // Block-major, so that a block's weights stay in L2 across the rows.
    for (int b = block_begin; b < block_end && b * BLOCK < c->cout; b++) {
        g.channels = c->cout - b * BLOCK < BLOCK ? c->cout - b * BLOCK : BLOCK;
        const WEIGHT *w = (const WEIGHT *)((const int8_t *)c->packed + (size_t)b * g.block_bytes);
        for (int y = row_begin; y < row_end; y++) {
            const uint8_t *origin = in.data + (y * c->stride - c->pad) * g.row_stride - c->pad * g.pixel_stride;
            row(c, &g, origin, w, b * BLOCK, y);
        }
    }
}

#endif
