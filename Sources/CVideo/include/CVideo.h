// Video files through FFmpeg's libraries: a reader that delivers frames as rgb24 with their
// presentation times, and an H.264 MP4 writer. Plain C over libavformat/libavcodec/libswscale so
// that the Swift side sees a handle, a few calls and an error message, never an FFmpeg struct.
#ifndef CVIDEO_H
#define CVIDEO_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What the container says about its video stream.
typedef struct {
    int width;
    int height;
    /// Average frame rate (frames/s), 0 when the container does not say.
    double fps;
    /// Stream duration in seconds, negative when unknown.
    double duration;
    /// Frames in the stream per the container's index, negative when unknown.
    int64_t frame_count;
    /// The decoder's short name (h264, hevc, mjpeg, vp9, av1, ...).
    char codec[32];
} pv_video_info;

typedef struct pv_reader pv_reader;

/// Opens `path` and its best video stream. Returns 0, or -1 with a message in `error`.
int pv_reader_open(const char *path, pv_reader **reader, pv_video_info *info, char *error, int error_size);

/// Decodes the next frame in presentation order into `rgb` (width × height × 3 bytes) and its
/// presentation time in seconds on the stream's clock into `seconds`. Returns 1 for a frame, 0 at the end of the
/// stream, -1 with a message in `error` when reading or decoding fails.
int pv_reader_next(pv_reader *reader, uint8_t *rgb, double *seconds, char *error, int error_size);

/// Frees the reader (null is allowed).
void pv_reader_close(pv_reader *reader);

typedef struct pv_writer pv_writer;

/// Creates an MP4 at `path` for H.264 (libx264, yuv420p) frames of `width` × `height` (both even)
/// at a nominal `fps`. Returns 0, or -1 with a message.
int pv_writer_open(const char *path, int width, int height, double fps, pv_writer **writer, char *error, int error_size);

/// Encodes the top-left width × height of an rgb24 picture whose rows are `stride` bytes apart,
/// shown at `seconds` (increasing; a time not after the previous one is moved just after it).
/// Returns 0, or -1 with a message.
int pv_writer_write(pv_writer *writer, const uint8_t *rgb, int stride, double seconds, char *error, int error_size);

/// Flushes the encoder and writes the index (moved to the front: faststart). Returns 0, or -1.
int pv_writer_finish(pv_writer *writer, char *error, int error_size);

/// Frees the writer (null is allowed); a writer not finished leaves a file without an index.
void pv_writer_close(pv_writer *writer);

#ifdef __cplusplus
}
#endif

#endif
