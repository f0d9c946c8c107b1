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

/// How to open a source that is not a plain file: a camera or a network stream. Every field may be
/// left zero for FFmpeg's defaults.
typedef struct {
    /// An input format to force ("v4l2" for /dev/videoN), or null to let FFmpeg probe.
    const char *format;
    /// Capture options of a device ("1280x720", "30", "mjpeg"), or null.
    const char *video_size;
    const char *framerate;
    const char *input_format;
    /// "tcp" or "udp" for rtsp://, or null.
    const char *rtsp_transport;
    /// Wait for the sender to connect (RTSP, HTTP, TCP servers pushing to us).
    int listen;
    /// Seconds any one blocking call (opening, reading a packet) may wait; 0 for no limit.
    double timeout;
    /// No input buffering, low-delay decoding and a small probe, for live sources.
    int low_latency;
    /// Set to non-zero from any thread to make the blocking call in progress return (then -1).
    const volatile int *cancel;
    /// Called with 1 when the reader starts decoding or converting and with 0 when it stops or
    /// waits for input (null: not called), so that the caller's compute threads can lend it a
    /// core only while it works, never while it waits on a network.
    void (*busy)(int working);
    /// Deliver frames at this size (0: the stream's first size). A frame of another size but the
    /// same aspect ratio is scaled to it; any other size is an error.
    int width, height;
} pv_open_options;

/// What the reader knows about one decoded frame.
typedef struct {
    /// Presentation time in seconds on the stream's clock.
    double seconds;
    /// The decoder flagged the frame as damaged, or a packet that went into it was.
    int corrupt;
    /// The frame's own size before any scaling.
    int width, height;
} pv_frame_meta;

/// Opens a file, a device or a URL (`options` zeroed for a plain file) and its best video stream.
/// Returns 0, or -1 with a message in `error`.
int pv_reader_open_with(const char *url, const pv_open_options *options, pv_reader **reader, pv_video_info *info, char *error,
                        int error_size);

/// Decodes the next frame in presentation order into `rgb` (width × height × 3 bytes of the info's
/// size) and what is known of it into `meta`. Returns 1 for a frame, 0 at the end of the stream, -1
/// with a message in `error` when reading or decoding fails, -2 with a message for a frame that
/// cannot be delivered at all (a size of another aspect ratio, a pixel format swscale lacks).
int pv_reader_next(pv_reader *reader, uint8_t *rgb, pv_frame_meta *meta, char *error, int error_size);

/// Sets and reads a `pv_open_options.cancel` flag atomically, from any thread.
void pv_flag_set(volatile int *flag);
int pv_flag_get(const volatile int *flag);

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
