// libjpeg-turbo from Debian's libjpeg-dev (libjpeg62-turbo). jpeglib.h needs stdio.h first.
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <jpeglib.h>
#include <jerror.h>

// libjpeg reports a fatal error by calling `error_exit`, which must not return. The default one
// calls exit(); the usual fix is a longjmp back to a setjmp. Swift frames cannot be crossed by a
// longjmp, so the whole decode runs here, in C: the setjmp, every libjpeg call and the longjmp
// stay inside `periphery_jpeg_decode`, and Swift sees only a return code. Nothing else in the
// package calls libjpeg.

/// Return codes of `periphery_jpeg_decode`.
enum {
    PERIPHERY_JPEG_OK = 0,
    /// libjpeg raised an error; `message` holds its text.
    PERIPHERY_JPEG_CORRUPT = 1,
    /// The data ended before the image did ("Premature end of JPEG file").
    PERIPHERY_JPEG_TRUNCATED = 2,
    /// The header's size exceeds the caller's limits; `*width`, `*height` hold it. Nothing allocated.
    PERIPHERY_JPEG_TOO_LARGE = 3,
    /// The colour space cannot be converted to RGB (CMYK, YCCK, ...); `message` names it.
    PERIPHERY_JPEG_UNSUPPORTED = 4,
    /// malloc failed for the output buffer.
    PERIPHERY_JPEG_NO_MEMORY = 5,
};

/// libjpeg's error manager plus the jump target; `pub` must stay first (libjpeg casts to it).
struct periphery_jpeg_error {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    int code;
};

/// Fatal errors: keep libjpeg's message, jump back to `periphery_jpeg_decode` (still in C).
static inline void periphery_jpeg_error_exit(j_common_ptr cinfo) {
    struct periphery_jpeg_error *err = (struct periphery_jpeg_error *)cinfo->err;
    err->code = PERIPHERY_JPEG_CORRUPT;
    longjmp(err->jump, 1);
}

/// Warnings (level −1) and trace messages: silent, except that running out of data is fatal.
/// libjpeg's memory source pads a short file with a fake end marker and decodes grey; a
/// truncated file must be an error instead.
static inline void periphery_jpeg_emit_message(j_common_ptr cinfo, int level) {
    struct periphery_jpeg_error *err = (struct periphery_jpeg_error *)cinfo->err;
    if (level < 0) {
        err->pub.num_warnings++;
        // JWRN_HIT_MARKER: the entropy-coded data ends at a marker before the image does, and
        // libjpeg would decode the rest as grey; a 1 KB file claiming 16,000 × 16,000 px cost
        // 1.5 GB and 1.7 s that way (found by fuzzing).
        if (err->pub.msg_code == JWRN_JPEG_EOF || err->pub.msg_code == JWRN_HIT_MARKER) {
            err->code = PERIPHERY_JPEG_TRUNCATED;
            longjmp(err->jump, 1);
        }
    }
}

/// Decodes a baseline or progressive JPEG (greyscale or YCbCr) to packed RGB8.
///
/// The header is read first and its size checked against `max_side` and `max_pixels` before any
/// image memory is allocated. On success `*out` is a malloc'd `width · height · 3` buffer that the
/// caller frees with `free`. On failure `*out` is NULL and `message` (at least JMSG_LENGTH_MAX
/// bytes) holds the reason.
static inline int periphery_jpeg_decode(
    const unsigned char *data, unsigned long size, unsigned long max_side, unsigned long max_pixels,
    unsigned char **out, int *width, int *height, char *message
) {
    struct jpeg_decompress_struct cinfo;
    struct periphery_jpeg_error err;
    unsigned char *volatile pixels = NULL;  // volatile: read after a longjmp

    *out = NULL;
    *width = 0;
    *height = 0;
    message[0] = '\0';
    memset(&cinfo, 0, sizeof cinfo);
    cinfo.err = jpeg_std_error(&err.pub);
    err.pub.error_exit = periphery_jpeg_error_exit;
    err.pub.emit_message = periphery_jpeg_emit_message;
    err.code = PERIPHERY_JPEG_OK;
    if (setjmp(err.jump)) {
        err.pub.format_message((j_common_ptr)&cinfo, message);
        jpeg_destroy_decompress(&cinfo);
        free(pixels);
        return err.code;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, size);
    jpeg_read_header(&cinfo, TRUE);
    *width = (int)cinfo.image_width;
    *height = (int)cinfo.image_height;
    if (cinfo.image_width > max_side || cinfo.image_height > max_side
        || (unsigned long)cinfo.image_width * cinfo.image_height > max_pixels) {
        jpeg_destroy_decompress(&cinfo);
        return PERIPHERY_JPEG_TOO_LARGE;
    }
    if (cinfo.jpeg_color_space != JCS_GRAYSCALE && cinfo.jpeg_color_space != JCS_YCbCr
        && cinfo.jpeg_color_space != JCS_RGB) {
        snprintf(message, JMSG_LENGTH_MAX, "colour space %d with %d components",
                 (int)cinfo.jpeg_color_space, cinfo.num_components);
        jpeg_destroy_decompress(&cinfo);
        return PERIPHERY_JPEG_UNSUPPORTED;
    }
    cinfo.out_color_space = JCS_RGB;
    jpeg_start_decompress(&cinfo);
    size_t row = (size_t)cinfo.output_width * 3;
    // The output grows with the rows actually decoded (doubling), so that a file whose data ends
    // early never commits the buffer its header claims.
    size_t capacity = 0;
    while (cinfo.output_scanline < cinfo.output_height) {
        if (cinfo.output_scanline == capacity) {
            size_t rows = capacity == 0 ? 64 : capacity * 2;
            if (rows > cinfo.output_height) rows = cinfo.output_height;
            unsigned char *grown = (unsigned char *)realloc(pixels, row * rows);
            if (grown == NULL) {
                jpeg_destroy_decompress(&cinfo);
                free(pixels);
                return PERIPHERY_JPEG_NO_MEMORY;
            }
            pixels = grown;
            capacity = rows;
        }
        JSAMPROW line = pixels + row * cinfo.output_scanline;
        jpeg_read_scanlines(&cinfo, &line, 1);
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    *out = pixels;
    return PERIPHERY_JPEG_OK;
}

/// Encodes packed RGB8 rows (`stride` bytes apart) as a baseline JPEG of `quality` (1–100).
///
/// On success `*out` is a buffer of `*out_size` bytes that the caller frees with `free`; on failure
/// it is NULL and `message` (at least JMSG_LENGTH_MAX bytes) holds libjpeg's reason.
static inline int periphery_jpeg_encode(
    const unsigned char *pixels, int width, int height, int stride, int quality, unsigned char **out,
    unsigned long *out_size, char *message
) {
    struct jpeg_compress_struct cinfo;
    struct periphery_jpeg_error err;
    unsigned char *volatile buffer = NULL;  // volatile: read after a longjmp
    unsigned long size = 0;

    *out = NULL;
    *out_size = 0;
    message[0] = '\0';
    memset(&cinfo, 0, sizeof cinfo);
    cinfo.err = jpeg_std_error(&err.pub);
    err.pub.error_exit = periphery_jpeg_error_exit;
    err.code = PERIPHERY_JPEG_OK;
    if (setjmp(err.jump)) {
        err.pub.format_message((j_common_ptr)&cinfo, message);
        jpeg_destroy_compress(&cinfo);
        free(buffer);
        return err.code;
    }
    jpeg_create_compress(&cinfo);
    unsigned char *target = NULL;
    jpeg_mem_dest(&cinfo, &target, &size);
    cinfo.image_width = (JDIMENSION)width;
    cinfo.image_height = (JDIMENSION)height;
    cinfo.input_components = 3;
    cinfo.in_color_space = JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    jpeg_start_compress(&cinfo, TRUE);
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + (size_t)stride * cinfo.next_scanline);
        jpeg_write_scanlines(&cinfo, &row, 1);
        buffer = target;
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    *out = target;
    *out_size = size;
    return PERIPHERY_JPEG_OK;
}
