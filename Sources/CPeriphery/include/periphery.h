/*
 * periphery.h — the C API of Periphery (libperiphery.so).
 *
 * Monocular bird's-eye-view vehicle detection (the Safety40 detector) and tracking from one
 * windshield camera. Frames go in; vehicle-frame detections and tracks come out. The vehicle frame
 * is ISO 8855: x forward, y left, z up, metres, origin on the road below the vehicle origin; yaw in
 * radians, counter-clockwise seen from above, 0 along +x.
 *
 * Conventions
 * - Every function that can fail returns a periphery_status: PERIPHERY_OK (0) on success, a
 *   negative code on failure. periphery_last_error() then gives a message naming the argument,
 *   file, frame or field at fault. No error, Swift error or trap crosses this boundary on bad input:
 *   NULL pointers, bad sizes, strides, formats, files and numbers all give codes.
 * - Objects are opaque handles. Each has one destroy function; destroy functions accept NULL.
 *   Arrays returned by a result are owned by it and live until periphery_result_destroy.
 *   Strings returned by this library are owned by it (see each function).
 * - Threading: an engine is used by one thread at a time; use one engine per thread. Engines built
 *   from the same weights run in parallel. Calibrations are immutable and may be shared. A result is
 *   independent of its engine and may be read on any thread. While a source is open on an engine,
 *   the engine belongs to the source: periphery_engine_process on it fails with
 *   PERIPHERY_ERROR_BUSY until the source is destroyed.
 * - Versioning: PERIPHERY_API_VERSION changes when a function or struct of this header changes
 *   incompatibly; periphery_api_version() reports the library's, so that a program can refuse a
 *   library it was not built for.
 */
#ifndef PERIPHERY_H
#define PERIPHERY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The version of this header's API. */
#define PERIPHERY_API_VERSION 2
/** The library's release, as the Python package's. */
#define PERIPHERY_VERSION_STRING "0.1.0"

/* ---- Status codes ---------------------------------------------------------------------------- */

typedef int32_t periphery_status;

/** Success. */
#define PERIPHERY_OK 0
/** periphery_source_next: the source has no more frames (not an error). */
#define PERIPHERY_END 1
/** A NULL pointer, an unknown enum value, or a size, stride or number out of range. */
#define PERIPHERY_ERROR_INVALID_ARGUMENT -1
/** The weights file cannot be read or is not Safety40 weights. */
#define PERIPHERY_ERROR_WEIGHTS -2
/** A calibration file or value is invalid. */
#define PERIPHERY_ERROR_CALIBRATION -3
/** A frame was refused (its size differs from its calibration's). */
#define PERIPHERY_ERROR_FRAME -4
/** A source (video, stream, drive) cannot be opened or failed while read. */
#define PERIPHERY_ERROR_SOURCE -5
/** This CPU or build cannot do what was asked (e.g. INT8 weights' kernels, OpenBLAS missing). */
#define PERIPHERY_ERROR_UNSUPPORTED -6
/** The engine is in use by an open source. */
#define PERIPHERY_ERROR_BUSY -7
/** A failure inside the library that is not the caller's: please report it. */
#define PERIPHERY_ERROR_INTERNAL -100

/** The library's PERIPHERY_API_VERSION. */
int32_t periphery_api_version(void);

/** The library's release ("0.1.0"); a static string. */
const char *periphery_version(void);

/**
 * The message of the last failure on the calling thread (thread-local), or "" if none.
 * Valid until the next call into this library on the same thread.
 */
const char *periphery_last_error(void);

/* ---- Plain values ---------------------------------------------------------------------------- */

/** Numeric precision of the network. */
typedef enum periphery_precision {
    /** The weights file's own: FP32 weights run in FP32, INT8 (quantized) weights in INT8. */
    PERIPHERY_PRECISION_AUTO = 0,
    PERIPHERY_PRECISION_FP32 = 1,
    PERIPHERY_PRECISION_INT8 = 2
} periphery_precision;

/** Memory layout of one pixel, 8 bits per sample. */
typedef enum periphery_pixel_format {
    PERIPHERY_PIXEL_RGB8 = 0,
    /** OpenCV's order. */
    PERIPHERY_PIXEL_BGR8 = 1,
    /** Camera buffers (CoreVideo 32BGRA); alpha is ignored. */
    PERIPHERY_PIXEL_BGRA8 = 2
} periphery_pixel_format;

/** A frame's pixels, borrowed for the duration of the call. */
typedef struct periphery_image {
    /** The first byte of the top row. */
    const uint8_t *data;
    /** Pixels. */
    int32_t width;
    int32_t height;
    /** Bytes from the start of one row to the start of the next, at least width * bytes per pixel. */
    int64_t row_stride;
    /** A periphery_pixel_format. */
    int32_t format;
} periphery_image;

/** Pinhole intrinsics of the source camera, pixels. */
typedef struct periphery_intrinsics {
    double fx, fy, cx, cy;
    /** The frames' size, pixels. */
    int32_t width, height;
} periphery_intrinsics;

/** How the camera sits in the vehicle. Angles in degrees. */
typedef struct periphery_mount {
    /** Nose-up rotation against the direction of travel. */
    double pitch_deg;
    /** Clockwise seen from behind (the camera's left side higher). */
    double roll_deg;
    /** Leftward rotation. */
    double yaw_deg;
    /** Camera height above the road, metres (0.3 to 3). */
    double height_m;
    /** Camera position forward of the vehicle origin, metres. */
    double forward_of_origin_m;
    /** Offset from the centreline, positive left, metres. */
    double lateral_offset_m;
} periphery_mount;

/** The vehicle's own motion since the previous frame, in the previous frame's vehicle frame. */
typedef struct periphery_ego_motion {
    /** Translation, metres. */
    double dx, dy;
    /** Rotation, radians, counter-clockwise. */
    double dyaw;
    /** Time since the previous frame, seconds. */
    double dt;
} periphery_ego_motion;

/** A 3-D box in the vehicle frame: centre, size (metres) and yaw (radians). */
typedef struct periphery_box {
    double x, y, z;
    double length, width, height;
    double yaw;
} periphery_box;

/** Safety40's classes (detections are never pedestrians: the decoder drops that class). */
typedef enum periphery_class {
    PERIPHERY_CLASS_LIGHT_VEHICLE = 0,
    PERIPHERY_CLASS_LARGE_VEHICLE = 1,
    PERIPHERY_CLASS_TWO_WHEELER = 2,
    PERIPHERY_CLASS_PEDESTRIAN = 3
} periphery_class;

/** One detection of one frame. */
typedef struct periphery_detection {
    /** Sigmoid class score, 0 to 1. */
    float score;
    /** A periphery_class. */
    int32_t label;
    periphery_box box;
} periphery_detection;

/** A track's motion state. */
typedef enum periphery_track_state {
    PERIPHERY_TRACK_UNKNOWN = 0,
    PERIPHERY_TRACK_PARKED = 1,
    PERIPHERY_TRACK_MOVING = 2
} periphery_track_state;

/** One confirmed track after a frame. */
typedef struct periphery_track {
    /** Track id, from 1, stable across frames. */
    int64_t id;
    /** A periphery_class. */
    int32_t label;
    /** A periphery_track_state. */
    int32_t state;
    /** The smoothed box; its yaw is the displayed heading. */
    periphery_box box;
    /** Detector score of the latest match. */
    double score;
    /** Over-ground velocity, m/s, vehicle frame; valid only when has_velocity is 1. */
    double vx, vy;
    int32_t has_velocity;
    /** 1 when a detection matched this track in this frame. */
    int32_t observed;
    /** Frames matched so far. */
    int32_t hits;
    /** Seconds since the track was born. */
    double age_s;
} periphery_track;

/** Milliseconds per stage of one frame. */
typedef struct periphery_timings {
    double calibrate_ms;
    double preprocess_ms;
    /** Network and decode. */
    double inference_ms;
    double track_ms;
    double total_ms;
} periphery_timings;

/* ---- Engine ---------------------------------------------------------------------------------- */

typedef struct periphery_engine periphery_engine;

/**
 * Loads Safety40 weights (a .safetensors file) and builds an engine.
 * threads: worker threads per layer, 0 for all cores. precision: a periphery_precision.
 * On success *out holds the engine; destroy it with periphery_engine_destroy.
 */
periphery_status periphery_engine_create(const char *weights_path, int32_t threads, int32_t precision, periphery_engine **out);

/** Frees an engine (NULL is ignored). */
void periphery_engine_destroy(periphery_engine *engine);

/** The precision the engine runs in (PERIPHERY_PRECISION_FP32 or _INT8). */
int32_t periphery_engine_precision(const periphery_engine *engine);

/** Worker threads per layer. */
int32_t periphery_engine_threads(const periphery_engine *engine);

/** Forgets all tracks and the previous frame. */
periphery_status periphery_engine_reset(periphery_engine *engine);

/* ---- Calibration ----------------------------------------------------------------------------- */

typedef struct periphery_calibration periphery_calibration;

/** Reads a calibration JSON file (the CLI's --calibration format). */
periphery_status periphery_calibration_load(const char *path, periphery_calibration **out);

/** A calibration from plain intrinsics and a mount (checked for plausibility). */
periphery_status periphery_calibration_create(const periphery_intrinsics *intrinsics, const periphery_mount *mount,
                                              periphery_calibration **out);

/** The calibration's intrinsics and mount (either pointer may be NULL). */
periphery_status periphery_calibration_get(const periphery_calibration *calibration, periphery_intrinsics *intrinsics,
                                           periphery_mount *mount);

/** Frees a calibration (NULL is ignored). */
void periphery_calibration_destroy(periphery_calibration *calibration);

/* ---- Processing one frame -------------------------------------------------------------------- */

typedef struct periphery_result periphery_result;

/**
 * Runs one frame through the engine: preprocessing, network, decode, tracker.
 * image: the pixels, of the calibration's size. timestamp: capture time, seconds, any monotonic
 * clock. ego: the vehicle's motion since the previous frame, or NULL (the tracker then takes the
 * vehicle as stationary). On success *out holds the result; destroy it with periphery_result_destroy.
 */
periphery_status periphery_engine_process(periphery_engine *engine, const periphery_image *image,
                                          const periphery_calibration *calibration, double timestamp,
                                          const periphery_ego_motion *ego, periphery_result **out);

/** The frame's detections, descending score; *count gets their number. Owned by the result. */
const periphery_detection *periphery_result_detections(const periphery_result *result, size_t *count);

/** The confirmed tracks after the frame; *count gets their number. Owned by the result. */
const periphery_track *periphery_result_tracks(const periphery_result *result, size_t *count);

/** Per-stage timings of the frame. */
periphery_timings periphery_result_timings(const periphery_result *result);

/** The frame's timestamp, seconds. */
double periphery_result_timestamp(const periphery_result *result);

/** The frame's index among the processed frames of its source, from 0; -1 for periphery_engine_process. */
int64_t periphery_result_index(const periphery_result *result);

/** 1 when the tracker was reset before this frame (reference reset rules), else 0. */
int32_t periphery_result_tracker_reset(const periphery_result *result);

/**
 * The frame's pixels (RGB8, tightly packed) for a result from a source; for a result of
 * periphery_engine_process, data is NULL and the sizes 0. Owned by the result.
 */
periphery_image periphery_result_image(const periphery_result *result);

/**
 * The frame's name for a result from a source: the drive's file name or the video's frame label.
 * "" for periphery_engine_process. Owned by the result.
 */
const char *periphery_result_name(const periphery_result *result);

/** Frees a result (NULL is ignored). */
void periphery_result_destroy(periphery_result *result);

/* ---- Inputs and sources ---------------------------------------------------------------------- */

/** What an input is. */
typedef enum periphery_input_kind {
    /** A directory of PNG or JPEG frames in the reference drive layout. */
    PERIPHERY_INPUT_DRIVE = 0,
    /** A video file, read as fast as the engine goes. */
    PERIPHERY_INPUT_VIDEO = 1,
    /** A video file played at its own rate under the live rules (options.realtime). */
    PERIPHERY_INPUT_REALTIME_VIDEO = 2,
    /** A V4L2 camera (/dev/videoN). */
    PERIPHERY_INPUT_CAMERA = 3,
    /** A network stream URL. */
    PERIPHERY_INPUT_STREAM = 4
} periphery_input_kind;

/** RTSP's transport for the media. */
typedef enum periphery_rtsp_transport {
    /** FFmpeg's default (UDP first). */
    PERIPHERY_RTSP_DEFAULT = 0,
    PERIPHERY_RTSP_TCP = 1,
    PERIPHERY_RTSP_UDP = 2
} periphery_rtsp_transport;

/**
 * How an input is opened, as `periphery run`'s options; zero-initialise it for the defaults. An
 * option that does not suit the input (auto_pitch for a video, video_size for a stream, start for a
 * drive, realtime for a drive) is an error, as it is for the CLI.
 */
typedef struct periphery_source_options {
    /**
     * A calibration for frames that carry none; NULL: the one in a drive or beside a video file
     * (--calibration's default). A video, a camera and a stream need one.
     */
    const periphery_calibration *calibration;
    /** Frame rate of a drive without frames.csv; 0 for 10. */
    double fps;
    /** Stop after this many processed frames; 0 for all. */
    int64_t max_frames;
    /** 1: play a video file at its own rate under the live rules (--realtime). */
    int32_t realtime;
    /** 1: estimate the mount pitch from a drive's motion while running (--auto-pitch). */
    int32_t auto_pitch;
    /** 1: process damaged frames (marked) instead of skipping them (--keep-corrupt). */
    int32_t keep_corrupt;
    /** 1: wait for the sender to connect to the URL (--listen). */
    int32_t listen;
    /** Of a video file: seconds to skip from its first frame (--start); 0 for none. */
    double start_s;
    /** Of a video file: seconds of it to read; of a live source: wall-clock seconds to run (--duration); 0 for all. */
    double duration_s;
    /** Of a video file: take every Nth frame (--every); 0 for every frame. */
    int64_t every;
    /** Live sources: the longest wait for one read, seconds (--timeout); 0 for 3. */
    double read_timeout_s;
    /** Streams: how long a lost source is reopened, seconds (--reconnect-timeout); 0 for 10, negative for not at all. */
    double reconnect_timeout_s;
    /** A periphery_rtsp_transport (--rtsp-transport). */
    int32_t rtsp_transport;
    /** Of a camera: the capture size "WxH" (--video-size); NULL for the device's own. Read during the call. */
    const char *video_size;
    /** Of a camera: the capture rate, frames/s (--framerate); 0 for the device's own. */
    double framerate;
    /** Of a camera: the pixel or compressed format, "mjpeg", "yuyv422"... (--input-format); NULL for the device's own. */
    const char *input_format;
} periphery_source_options;

/** What periphery_input_check found. */
typedef struct periphery_input_info {
    /** A periphery_input_kind. */
    int32_t kind;
    /** 1 when the input has a calibration: the one given or the one found in the drive or beside the video. */
    int32_t has_calibration;
    /** Bytes of the files read: a drive's frames, a video file; 0 for a camera or a stream. */
    int64_t size_bytes;
} periphery_input_info;

/**
 * Checks an input as periphery_source_open would open it, without opening it: classifies it, finds
 * its calibration and checks the options, reading directory listings and the calibration file but
 * no frame (a video file is not decoded). Fails with the status and message periphery_source_open
 * would give for the same fault. options may be NULL; on success *info is filled.
 */
periphery_status periphery_input_check(const char *input, const periphery_source_options *options, periphery_input_info *info);

typedef struct periphery_source periphery_source;

/**
 * Opens a drive directory, a video file, a V4L2 camera (/dev/videoN) or a stream URL (rtsp://,
 * udp://, srt://, tcp://, http(s)://), and runs it through engine exactly as `periphery run` does:
 * the same frames, ego motion, tracker resets and live rules, and so the same results. The engine is
 * reset first and belongs to the source until periphery_source_destroy. options may be NULL.
 * The input is opened by the library's one set of rules (`FrameInput`): the same inputs fail with
 * the same messages as `periphery run` and Python's periphery.open.
 */
periphery_status periphery_source_open(periphery_engine *engine, const char *input, const periphery_source_options *options,
                                       periphery_source **out);

/**
 * The source's warning number index (from 0), or NULL past the last: rows of a drive's or a video's
 * motion tables that were skipped, a stream lost and back. Warnings only add up while the source
 * runs. Owned by the source: valid until periphery_source_destroy.
 */
const char *periphery_source_warning(const periphery_source *source, size_t index);

/**
 * The next processed frame's result into *out (destroy it with periphery_result_destroy);
 * PERIPHERY_END, with *out NULL, when the source has no more frames. After a failure of the input,
 * the results before it have all been returned and the failure is returned once, then PERIPHERY_END.
 */
periphery_status periphery_source_next(periphery_source *source, periphery_result **out);

/** Stops the source after the frame in flight and frees it; the engine is free again (NULL is ignored). */
void periphery_source_destroy(periphery_source *source);

#ifdef __cplusplus
}
#endif

#endif /* PERIPHERY_H */
