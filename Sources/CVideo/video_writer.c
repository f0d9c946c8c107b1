// The video writer: rgb24 frames → yuv420p → H.264 (libx264) in an MP4 with its index up front.
#include "CVideo.h"
#include "video_errors.h"

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>
#include <math.h>
#include <stdio.h>

/// Presentation times in 1/90,000 s, the MPEG clock: fine enough for any variable frame rate.
static const AVRational clock_base = {1, 90000};

struct pv_writer {
    AVFormatContext *format;
    AVCodecContext *codec;
    AVStream *stream;
    struct SwsContext *scaler;
    AVFrame *frame;
    AVPacket *packet;
    int64_t last_pts;
    int header_written, finished;
};

static int open_writer(const char *path, int width, int height, double fps, pv_writer **out, char *error, int error_size) {
    char reason[128];
    *out = NULL;
    if (width <= 0 || height <= 0 || width % 2 || height % 2)
        return pv_fail(error, error_size, "H.264 in yuv420p needs an even frame size, not %dx%d", width, height);
    av_log_set_level(AV_LOG_FATAL);
    pv_writer *w = av_mallocz(sizeof *w);
    if (!w) return pv_fail(error, error_size, "out of memory");
    w->last_pts = AV_NOPTS_VALUE;
    *out = w;
    int code = avformat_alloc_output_context2(&w->format, NULL, "mp4", path);
    if (code < 0) return pv_fail(error, error_size, "cannot make an MP4 (%s)", pv_describe(code, reason, sizeof reason));
    const AVCodec *encoder = avcodec_find_encoder_by_name("libx264");
    if (!encoder) return pv_fail(error, error_size, "this FFmpeg build has no libx264 encoder");
    w->stream = avformat_new_stream(w->format, NULL);
    w->codec = avcodec_alloc_context3(encoder);
    w->frame = av_frame_alloc();
    w->packet = av_packet_alloc();
    if (!w->stream || !w->codec || !w->frame || !w->packet) return pv_fail(error, error_size, "out of memory");
    AVRational rate = av_d2q(fps > 0 ? fps : 30, 90000);
    w->codec->width = width;
    w->codec->height = height;
    w->codec->pix_fmt = AV_PIX_FMT_YUV420P;
    w->codec->time_base = clock_base;
    w->codec->framerate = rate;
    w->codec->gop_size = (int)fmax(1, round(2 * av_q2d(rate)));
    if (w->format->oformat->flags & AVFMT_GLOBALHEADER) w->codec->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    // Fast enough to keep up with the engine on two cores, at a quality fit for looking at results.
    av_opt_set(w->codec->priv_data, "preset", "veryfast", 0);
    av_opt_set(w->codec->priv_data, "crf", "23", 0);
    code = avcodec_open2(w->codec, encoder, NULL);
    if (code < 0) return pv_fail(error, error_size, "cannot open libx264 (%s)", pv_describe(code, reason, sizeof reason));
    avcodec_parameters_from_context(w->stream->codecpar, w->codec);
    w->stream->time_base = clock_base;
    w->stream->avg_frame_rate = rate;
    w->frame->format = AV_PIX_FMT_YUV420P;
    w->frame->width = width;
    w->frame->height = height;
    code = av_frame_get_buffer(w->frame, 0);
    if (code < 0) return pv_fail(error, error_size, "out of memory");
    w->scaler = sws_getContext(width, height, AV_PIX_FMT_RGB24, width, height, AV_PIX_FMT_YUV420P,
                               SWS_BILINEAR | SWS_ACCURATE_RND, NULL, NULL, NULL);
    if (!w->scaler) return pv_fail(error, error_size, "cannot convert rgb24 to yuv420p");
    code = avio_open(&w->format->pb, path, AVIO_FLAG_WRITE);
    if (code < 0) return pv_fail(error, error_size, "cannot create the file (%s)", pv_describe(code, reason, sizeof reason));
    AVDictionary *options = NULL;
    av_dict_set(&options, "movflags", "+faststart", 0);
    code = avformat_write_header(w->format, &options);
    av_dict_free(&options);
    if (code < 0) return pv_fail(error, error_size, "cannot write the MP4 header (%s)", pv_describe(code, reason, sizeof reason));
    w->header_written = 1;
    return 0;
}

int pv_writer_open(const char *path, int width, int height, double fps, pv_writer **out, char *error, int error_size) {
    if (open_writer(path, width, height, fps, out, error, error_size) == 0) return 0;
    pv_writer_close(*out);
    *out = NULL;
    return -1;
}

/// Sends `frame` (null flushes) and writes every packet the encoder has ready.
static int encode(pv_writer *w, AVFrame *frame, char *error, int error_size) {
    char reason[128];
    int code = avcodec_send_frame(w->codec, frame);
    if (code < 0) return pv_fail(error, error_size, "encoding failed (%s)", pv_describe(code, reason, sizeof reason));
    for (;;) {
        code = avcodec_receive_packet(w->codec, w->packet);
        if (code == AVERROR(EAGAIN) || code == AVERROR_EOF) return 0;
        if (code < 0) return pv_fail(error, error_size, "encoding failed (%s)", pv_describe(code, reason, sizeof reason));
        av_packet_rescale_ts(w->packet, w->codec->time_base, w->stream->time_base);
        w->packet->stream_index = w->stream->index;
        code = av_interleaved_write_frame(w->format, w->packet);
        if (code < 0) return pv_fail(error, error_size, "cannot write (%s)", pv_describe(code, reason, sizeof reason));
    }
}

int pv_writer_write(pv_writer *w, const uint8_t *rgb, int stride, double seconds, char *error, int error_size) {
    char reason[128];
    int code = av_frame_make_writable(w->frame);
    if (code < 0) return pv_fail(error, error_size, "out of memory (%s)", pv_describe(code, reason, sizeof reason));
    const uint8_t *planes[4] = {rgb, NULL, NULL, NULL};
    int strides[4] = {stride, 0, 0, 0};
    sws_scale(w->scaler, planes, strides, 0, w->codec->height, w->frame->data, w->frame->linesize);
    int64_t pts = llround(seconds * clock_base.den);
    if (w->last_pts != AV_NOPTS_VALUE && pts <= w->last_pts) pts = w->last_pts + 1;
    w->frame->pts = pts;
    w->last_pts = pts;
    return encode(w, w->frame, error, error_size);
}

int pv_writer_finish(pv_writer *w, char *error, int error_size) {
    char reason[128];
    if (w->finished) return 0;
    w->finished = 1;
    if (encode(w, NULL, error, error_size) < 0) return -1;
    int code = av_write_trailer(w->format);
    if (code < 0) return pv_fail(error, error_size, "cannot finish the MP4 (%s)", pv_describe(code, reason, sizeof reason));
    code = avio_closep(&w->format->pb);
    if (code < 0) return pv_fail(error, error_size, "cannot close the file (%s)", pv_describe(code, reason, sizeof reason));
    return 0;
}

void pv_writer_close(pv_writer *w) {
    if (!w) return;
    if (w->format && w->format->pb) avio_closep(&w->format->pb);
    sws_freeContext(w->scaler);
    av_packet_free(&w->packet);
    av_frame_free(&w->frame);
    avcodec_free_context(&w->codec);
    avformat_free_context(w->format);
    av_free(w);
}
