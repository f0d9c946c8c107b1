// The video reader: demux the best video stream, decode in presentation order, convert to rgb24.
#include "CVideo.h"
#include "video_errors.h"

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libswscale/swscale.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct pv_reader {
    AVFormatContext *format;
    AVCodecContext *codec;
    struct SwsContext *scaler;
    AVPacket *packet;
    AVFrame *frame;
    int stream;
    int width, height;
    int64_t frame_count;
    int64_t delivered;
    double fps;
    double end;
    double previous;
    int draining, finished;
    // Live sources: a deadline for the blocking call in progress and a flag another thread sets.
    double timeout, deadline;
    const volatile int *cancel;
    void (*busy)(int working);
    // A packet that went into the decoder since the last frame was flagged corrupt.
    int damaged;
    int last_corrupt;
};

static double monotonic_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec + now.tv_nsec / 1e9;
}

/// FFmpeg polls this during every blocking call: non-zero makes the call give up.
static int interrupted(void *opaque) {
    pv_reader *r = opaque;
    if (r->cancel && __atomic_load_n(r->cancel, __ATOMIC_RELAXED)) return 1;
    return r->deadline > 0 && monotonic_seconds() > r->deadline;
}

static void arm(pv_reader *r) { r->deadline = r->timeout > 0 ? monotonic_seconds() + r->timeout : 0; }

/// Why a blocking call failed: our own deadline or cancel flag, else FFmpeg's text.
static const char *why(pv_reader *r, int code, char *buffer, size_t size) {
    if (r->cancel && __atomic_load_n(r->cancel, __ATOMIC_RELAXED)) return "stopped";
    if (code == AVERROR_EXIT || (r->deadline > 0 && monotonic_seconds() > r->deadline)) {
        snprintf(buffer, size, "nothing arrived for %.1f s", r->timeout);
        return buffer;
    }
    return pv_describe(code, buffer, size);
}

/// libavdevice is loaded only when a camera is opened, never linked: it needs libavfilter, which
/// needs libblas, which Debian resolves to OpenBLAS. Linked, it would load OpenBLAS at process start,
/// before the runtime sets OPENBLAS_CORETYPE, and OpenBLAS would keep its generic kernel.
static int register_devices(void) {
    static int registered;
    if (__atomic_load_n(&registered, __ATOMIC_ACQUIRE)) return 1;
    void *library = dlopen("libavdevice.so.59", RTLD_NOW | RTLD_GLOBAL);
    if (!library) library = dlopen("libavdevice.so", RTLD_NOW | RTLD_GLOBAL);
    void (*register_all)(void) = library ? (void (*)(void))dlsym(library, "avdevice_register_all") : NULL;
    if (!register_all) return 0;
    register_all();
    __atomic_store_n(&registered, 1, __ATOMIC_RELEASE);
    return 1;
}

/// The demuxer options of a live source: FFmpeg's option names, each one ignored by the formats and
/// protocols that do not know it.
static AVDictionary *live_options(const pv_open_options *o) {
    AVDictionary *d = NULL;
    char text[32];
    if (o->video_size) av_dict_set(&d, "video_size", o->video_size, 0);
    if (o->framerate) av_dict_set(&d, "framerate", o->framerate, 0);
    if (o->input_format) av_dict_set(&d, "input_format", o->input_format, 0);
    if (o->rtsp_transport) av_dict_set(&d, "rtsp_transport", o->rtsp_transport, 0);
    if (o->listen) {
        av_dict_set(&d, "listen", "1", 0);
        av_dict_set(&d, "rtsp_flags", "listen", 0);
    }
    if (o->timeout > 0) {
        // Microseconds, for the protocols that also time out on their own.
        snprintf(text, sizeof text, "%lld", (long long)(o->timeout * 1e6));
        av_dict_set(&d, "rw_timeout", text, 0);
    }
    if (o->low_latency) {
        av_dict_set(&d, "fflags", "nobuffer", 0);
        av_dict_set(&d, "probesize", "500000", 0);
        av_dict_set(&d, "analyzeduration", "500000", 0);
        // A UDP burst larger than the socket buffer must not end the stream.
        av_dict_set(&d, "overrun_nonfatal", "1", 0);
        av_dict_set(&d, "fifo_size", "50000", 0);
    }
    return d;
}

int pv_reader_open_with(const char *path, const pv_open_options *o, pv_reader **out, pv_video_info *info, char *error,
                        int error_size) {
    char reason[128];
    *out = NULL;
    pv_reader *r = av_mallocz(sizeof *r);
    if (!r) return pv_fail(error, error_size, "out of memory");
    r->stream = -1;
    r->timeout = o->timeout;
    r->cancel = o->cancel;
    r->busy = o->busy;
    // FFmpeg's own log would interleave with ours; failures come back as messages instead.
    av_log_set_level(AV_LOG_FATAL);
    const AVInputFormat *format = NULL;
    if (o->format) {
        if (!register_devices()) {
            pv_reader_close(r);
            return pv_fail(error, error_size, "libavdevice cannot be loaded (%s)", dlerror());
        }
        format = av_find_input_format(o->format);
        if (!format) {
            pv_reader_close(r);
            return pv_fail(error, error_size, "this FFmpeg has no %s input", o->format);
        }
    }
    r->format = avformat_alloc_context();
    if (!r->format) {
        pv_reader_close(r);
        return pv_fail(error, error_size, "out of memory");
    }
    r->format->interrupt_callback.callback = interrupted;
    r->format->interrupt_callback.opaque = r;
    AVDictionary *options = live_options(o);
    arm(r);
    int code = avformat_open_input(&r->format, path, format, &options);
    av_dict_free(&options);
    if (code < 0) {
        // avformat_open_input frees the context on failure.
        r->format = NULL;
        const char *text = why(r, code, reason, sizeof reason);
        pv_reader_close(r);
        if (o->format && code == AVERROR(ENOENT)) return pv_fail(error, error_size, "no such device");
        if (o->format && code == AVERROR(ENOTTY)) return pv_fail(error, error_size, "not a V4L2 capture device (%s)", text);
        if (o->format && code == AVERROR(EINVAL))
            return pv_fail(error, error_size, "the camera refused the capture options: --video-size, --framerate or --input-format (%s)",
                           text);
        return pv_fail(error, error_size, "%s (%s)", o->format || o->listen || o->timeout > 0 ? "cannot open the source"
                                                                                              : "not a readable video", text);
    }
    arm(r);
    code = avformat_find_stream_info(r->format, NULL);
    if (code < 0) {
        const char *text = why(r, code, reason, sizeof reason);
        pv_reader_close(r);
        return pv_fail(error, error_size, "cannot read the stream information (%s)", text);
    }
    r->stream = av_find_best_stream(r->format, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
    if (r->stream < 0) {
        pv_reader_close(r);
        return pv_fail(error, error_size, "no video track");
    }
    AVStream *stream = r->format->streams[r->stream];
    const AVCodec *decoder = avcodec_find_decoder(stream->codecpar->codec_id);
    if (!decoder) {
        const char *name = avcodec_get_name(stream->codecpar->codec_id);
        pv_reader_close(r);
        return pv_fail(error, error_size, "unsupported video codec %s (this FFmpeg build cannot decode it)", name);
    }
    r->codec = avcodec_alloc_context3(decoder);
    r->packet = av_packet_alloc();
    r->frame = av_frame_alloc();
    if (!r->codec || !r->packet || !r->frame) {
        pv_reader_close(r);
        return pv_fail(error, error_size, "out of memory");
    }
    avcodec_parameters_to_context(r->codec, stream->codecpar);
    // One decoding thread: the caller decodes ahead on a thread of its own, beside the engine's.
    r->codec->thread_count = 1;
    if (o->low_latency) r->codec->flags |= AV_CODEC_FLAG_LOW_DELAY;
    code = avcodec_open2(r->codec, decoder, NULL);
    if (code < 0) {
        pv_reader_close(r);
        return pv_fail(error, error_size, "cannot open the %s decoder (%s)", decoder->name, pv_describe(code, reason, sizeof reason));
    }
    r->width = o->width > 0 ? o->width : stream->codecpar->width;
    r->height = o->height > 0 ? o->height : stream->codecpar->height;
    if (r->width <= 0 || r->height <= 0) {
        pv_reader_close(r);
        return pv_fail(error, error_size, "the video track has no frame size");
    }
    AVRational rate = stream->avg_frame_rate.num > 0 ? stream->avg_frame_rate : stream->r_frame_rate;
    r->fps = rate.num > 0 && rate.den > 0 ? av_q2d(rate) : 0;
    r->frame_count = stream->nb_frames > 0 ? stream->nb_frames : -1;
    r->previous = -1;
    info->width = r->width;
    info->height = r->height;
    info->fps = r->fps;
    info->duration = stream->duration != AV_NOPTS_VALUE ? stream->duration * av_q2d(stream->time_base)
                     : r->format->duration != AV_NOPTS_VALUE ? r->format->duration / (double)AV_TIME_BASE : -1;
    info->frame_count = r->frame_count;
    double start = stream->start_time != AV_NOPTS_VALUE ? stream->start_time * av_q2d(stream->time_base) : 0;
    r->end = info->duration > 0 ? start + info->duration : -1;
    snprintf(info->codec, sizeof info->codec, "%s", decoder->name);
    *out = r;
    return 0;
}

/// The frame's time on the stream's own clock (so that motion.csv beside the video can share it);
/// frames without a timestamp follow the previous one at the nominal rate.
static double frame_seconds(pv_reader *r) {
    AVStream *stream = r->format->streams[r->stream];
    int64_t pts = r->frame->best_effort_timestamp;
    if (pts == AV_NOPTS_VALUE) {
        double step = r->fps > 0 ? 1 / r->fps : 1.0 / 30;
        return r->previous < 0 ? 0 : r->previous + step;
    }
    return pts * av_q2d(stream->time_base);
}

static int convert(pv_reader *r, uint8_t *rgb, char *error, int error_size) {
    AVFrame *f = r->frame;
    // A size change part-way (a camera or a stream renegotiating) keeps going only at the same
    // aspect ratio: the picture is scaled to the size the run started with, so the intrinsics hold.
    long long across = (long long)f->width * r->height, down = (long long)f->height * r->width;
    if ((f->width != r->width || f->height != r->height) && llabs(across - down) * 200 > across)
        return pv_fail(error, error_size, "frame %lld is %dx%d, not the aspect ratio of %dx%d", (long long)r->delivered, f->width,
                       f->height, r->width, r->height);
    r->scaler = sws_getCachedContext(r->scaler, f->width, f->height, f->format, r->width, r->height, AV_PIX_FMT_RGB24,
                                     SWS_BILINEAR, NULL, NULL, NULL);
    if (!r->scaler) return pv_fail(error, error_size, "frame %lld: cannot convert %s to rgb24", (long long)r->delivered,
                                av_get_pix_fmt_name(f->format));
    // The stream's own colour matrix and range when it states them; else swscale's default (BT.601,
    // limited range), which is what FFmpeg's own tools assume.
    int full = f->color_range == AVCOL_RANGE_JPEG;
    const int *matrix = sws_getCoefficients(f->colorspace == AVCOL_SPC_UNSPECIFIED ? SWS_CS_DEFAULT : f->colorspace);
    int *inv, *table, src_range, dst_range, brightness, contrast, saturation;
    if (sws_getColorspaceDetails(r->scaler, &inv, &src_range, &table, &dst_range, &brightness, &contrast, &saturation) >= 0)
        sws_setColorspaceDetails(r->scaler, matrix, full || src_range, table, 1, brightness, contrast, saturation);
    uint8_t *planes[4] = {rgb, NULL, NULL, NULL};
    int strides[4] = {r->width * 3, 0, 0, 0};
    sws_scale(r->scaler, (const uint8_t *const *)f->data, f->linesize, 0, f->height, planes, strides);
    return 0;
}

static void working(pv_reader *r, int busy) {
    if (r->busy) r->busy(busy);
}

static int next_frame(pv_reader *r, uint8_t *rgb, pv_frame_meta *meta, char *error, int error_size);

int pv_reader_next(pv_reader *r, uint8_t *rgb, pv_frame_meta *meta, char *error, int error_size) {
    working(r, 1);
    int code = next_frame(r, rgb, meta, error, error_size);
    working(r, 0);
    return code;
}

static int next_frame(pv_reader *r, uint8_t *rgb, pv_frame_meta *meta, char *error, int error_size) {
    char reason[128];
    if (r->finished) return 0;
    for (;;) {
        int code = avcodec_receive_frame(r->codec, r->frame);
        if (code == 0) {
            int converted = convert(r, rgb, error, error_size);
            double t = frame_seconds(r);
            meta->corrupt = r->damaged || (r->frame->flags & AV_FRAME_FLAG_CORRUPT) || r->frame->decode_error_flags;
            meta->width = r->frame->width;
            meta->height = r->frame->height;
            r->damaged = 0;
            r->last_corrupt = meta->corrupt;
            av_frame_unref(r->frame);
            // A picture that cannot be delivered is no transient loss: reconnecting would not help.
            if (converted < 0) return -2;
            meta->seconds = t;
            r->previous = t;
            r->delivered += 1;
            return 1;
        }
        if (code == AVERROR_EOF) {
            r->finished = 1;
            // A file cut inside a packet or a frame: its last frame decoded with errors, or the last
            // packets were damaged and gave no frame at all.
            if (r->last_corrupt || r->damaged)
                return pv_fail(error, error_size, "the input ends inside frame %lld (cut short?)", (long long)r->delivered);
            if (r->frame_count > 0 && r->delivered < r->frame_count)
                return pv_fail(error, error_size, "the video ends after frame %lld of the %lld its index lists (truncated?)",
                            (long long)r->delivered - 1, (long long)r->frame_count);
            // Without a frame index (Matroska, AVI), a stream that stops well before the duration
            // its header states was cut short.
            double step = r->fps > 0 ? 1 / r->fps : 0.1;
            if (r->frame_count <= 0 && r->end > 0 && r->previous + 2.5 * step < r->end)
                return pv_fail(error, error_size, "the video ends at %.3f s after frame %lld, its header says %.3f s (truncated?)",
                            r->previous, (long long)r->delivered - 1, r->end);
            return 0;
        }
        if (code != AVERROR(EAGAIN))
            return pv_fail(error, error_size, "decoding stopped after frame %lld (%s)", (long long)r->delivered - 1,
                        pv_describe(code, reason, sizeof reason));
        if (r->draining) return pv_fail(error, error_size, "the decoder stalled after frame %lld", (long long)r->delivered - 1);
        arm(r);
        working(r, 0);
        code = av_read_frame(r->format, r->packet);
        working(r, 1);
        if (code == AVERROR_EOF) {
            r->draining = 1;
            avcodec_send_packet(r->codec, NULL);
            continue;
        }
        if (code < 0)
            return pv_fail(error, error_size, "reading stopped after frame %lld (%s)", (long long)r->delivered - 1,
                        why(r, code, reason, sizeof reason));
        if (r->packet->stream_index == r->stream) {
            if (r->packet->flags & AV_PKT_FLAG_CORRUPT) r->damaged = 1;
            code = avcodec_send_packet(r->codec, r->packet);
            av_packet_unref(r->packet);
            if (code < 0 && code != AVERROR(EAGAIN))
                return pv_fail(error, error_size, "decoding stopped after frame %lld (%s)", (long long)r->delivered - 1,
                            pv_describe(code, reason, sizeof reason));
        } else {
            av_packet_unref(r->packet);
        }
    }
}

void pv_reader_close(pv_reader *r) {
    if (!r) return;
    sws_freeContext(r->scaler);
    av_frame_free(&r->frame);
    av_packet_free(&r->packet);
    avcodec_free_context(&r->codec);
    avformat_close_input(&r->format);
    av_free(r);
}

void pv_flag_set(volatile int *flag) { __atomic_store_n(flag, 1, __ATOMIC_RELAXED); }

int pv_flag_get(const volatile int *flag) { return __atomic_load_n(flag, __ATOMIC_RELAXED); }
