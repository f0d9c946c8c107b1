/*
 * The C API's test (Tests/e2e/test_c_api.py builds it against `make install`'s output alone).
 *
 *   test_periphery WEIGHTS CALIBRATION FRAME.rgb DRIVE
 *
 * FRAME.rgb is the bundled frame as raw RGB8 rows (ffmpeg writes it). Prints the frame's detections
 * as a JSON array in `periphery detect --json`'s fields, which the script compares with the CLI's.
 * Checks on the way, each failing the test with its line:
 * - the same frame as BGR8 and as BGRA8 with padded rows gives the same detections, bit for bit;
 * - NULL pointers, unknown formats, short strides, a frame of the wrong size, a missing weights
 *   file, a handle of the wrong kind and a busy engine give their codes and a message naming the
 *   argument; nothing crashes;
 * - a drive opened as a source yields one result per frame, then PERIPHERY_END, repeatedly;
 *   destroying a source mid-run frees the engine;
 * - periphery_input_check classifies the drive and a stream URL without opening them, counts the
 *   drive's frame bytes (against the files' own sizes), and refuses what periphery_source_open
 *   refuses with the same status and message: a missing path, a stream without a calibration, an
 *   option that does not suit the input.
 */
#include <periphery.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define CHECK(condition)                                                                          \
    do {                                                                                          \
        if (!(condition)) {                                                                       \
            fprintf(stderr, "test_periphery.c:%d: failed: %s (last error: %s)\n", __LINE__,       \
                    #condition, periphery_last_error());                                          \
            failures++;                                                                           \
        }                                                                                         \
    } while (0)

/* The status is `expected` and the thread's message mentions `word`. */
#define CHECK_ERROR(call, expected, word)                                                         \
    do {                                                                                          \
        periphery_status status_ = (call);                                                        \
        if (status_ != (expected) || strstr(periphery_last_error(), (word)) == NULL) {            \
            fprintf(stderr, "test_periphery.c:%d: %s gave %d \"%s\", expected %d naming '%s'\n",  \
                    __LINE__, #call, status_, periphery_last_error(), (expected), (word));        \
            failures++;                                                                           \
        }                                                                                         \
    } while (0)

static const char *class_name(int32_t label) {
    switch (label) {
    case PERIPHERY_CLASS_LIGHT_VEHICLE: return "light_vehicle";
    case PERIPHERY_CLASS_LARGE_VEHICLE: return "large_vehicle";
    case PERIPHERY_CLASS_TWO_WHEELER: return "two_wheeler";
    default: return "pedestrian";
    }
}

static unsigned char *read_file(const char *path, size_t *size) {
    FILE *file = fopen(path, "rb");
    if (file == NULL) return NULL;
    fseek(file, 0, SEEK_END);
    long length = ftell(file);
    fseek(file, 0, SEEK_SET);
    unsigned char *bytes = malloc((size_t)length);
    if (bytes != NULL && fread(bytes, 1, (size_t)length, file) != (size_t)length) {
        free(bytes);
        bytes = NULL;
    }
    fclose(file);
    *size = (size_t)length;
    return bytes;
}

/* Whether two results hold the same detections, bit for bit. */
static int same_detections(const periphery_result *a, const periphery_result *b) {
    size_t na = 0, nb = 0;
    const periphery_detection *da = periphery_result_detections(a, &na);
    const periphery_detection *db = periphery_result_detections(b, &nb);
    return na == nb && (na == 0 || memcmp(da, db, na * sizeof *da) == 0);
}

static void check_errors(periphery_engine *engine, periphery_calibration *calibration, const periphery_image *good,
                         const char *weights) {
    periphery_result *result = NULL;
    periphery_engine *other = NULL;
    CHECK_ERROR(periphery_engine_create("/nonexistent/w.safetensors", 1, 0, &other), PERIPHERY_ERROR_WEIGHTS, "/nonexistent/w.safetensors");
    CHECK(other == NULL);
    CHECK_ERROR(periphery_engine_create(NULL, 1, 0, &other), PERIPHERY_ERROR_INVALID_ARGUMENT, "weights_path");
    CHECK_ERROR(periphery_engine_create(weights, 1, 9, &other), PERIPHERY_ERROR_INVALID_ARGUMENT, "precision");
    CHECK_ERROR(periphery_engine_create(weights, -2, 0, &other), PERIPHERY_ERROR_INVALID_ARGUMENT, "threads");
    CHECK_ERROR(periphery_engine_create(weights, 1, 0, NULL), PERIPHERY_ERROR_INVALID_ARGUMENT, "out");

    CHECK_ERROR(periphery_engine_process(NULL, good, calibration, 0, NULL, &result), PERIPHERY_ERROR_INVALID_ARGUMENT, "engine");
    CHECK_ERROR(periphery_engine_process(engine, NULL, calibration, 0, NULL, &result), PERIPHERY_ERROR_INVALID_ARGUMENT, "image");
    CHECK_ERROR(periphery_engine_process(engine, good, NULL, 0, NULL, &result), PERIPHERY_ERROR_INVALID_ARGUMENT, "calibration");
    CHECK_ERROR(periphery_engine_process(engine, good, calibration, 0, NULL, NULL), PERIPHERY_ERROR_INVALID_ARGUMENT, "out");
    /* A handle of another kind where an engine belongs. */
    CHECK_ERROR(periphery_engine_process((periphery_engine *)calibration, good, calibration, 0, NULL, &result),
                PERIPHERY_ERROR_INVALID_ARGUMENT, "engine");

    periphery_image bad = *good;
    bad.data = NULL;
    CHECK_ERROR(periphery_engine_process(engine, &bad, calibration, 0, NULL, &result), PERIPHERY_ERROR_INVALID_ARGUMENT, "image.data");
    bad = *good;
    bad.format = 7;
    CHECK_ERROR(periphery_engine_process(engine, &bad, calibration, 0, NULL, &result), PERIPHERY_ERROR_INVALID_ARGUMENT, "image.format");
    bad = *good;
    bad.row_stride = good->width * 3 - 1;
    CHECK_ERROR(periphery_engine_process(engine, &bad, calibration, 0, NULL, &result), PERIPHERY_ERROR_INVALID_ARGUMENT, "image.row_stride");
    bad = *good;
    bad.width = -4;
    CHECK_ERROR(periphery_engine_process(engine, &bad, calibration, 0, NULL, &result), PERIPHERY_ERROR_INVALID_ARGUMENT, "image.width");
    bad = *good;
    bad.width = good->width - 1; /* valid pixels, but not the calibration's size */
    CHECK_ERROR(periphery_engine_process(engine, &bad, calibration, 0, NULL, &result), PERIPHERY_ERROR_FRAME, "intrinsics");
    periphery_ego_motion ego = {0.5, 0, NAN, 0.1};
    CHECK_ERROR(periphery_engine_process(engine, good, calibration, 0, &ego, &result), PERIPHERY_ERROR_INVALID_ARGUMENT, "ego.dyaw");
    CHECK(result == NULL);

    periphery_calibration *made = NULL;
    periphery_intrinsics k = {910, 910, 582, 437, 1164, 874};
    periphery_mount mount = {-3.659, 0, 0, 1.2, 1.65, 0};
    CHECK(periphery_calibration_create(&k, &mount, &made) == PERIPHERY_OK);
    periphery_calibration_destroy(made);
    mount.height_m = 9;
    CHECK_ERROR(periphery_calibration_create(&k, &mount, &made), PERIPHERY_ERROR_CALIBRATION, "height_m");
    k.fx = -1;
    mount.height_m = 1.2;
    CHECK_ERROR(periphery_calibration_create(&k, &mount, &made), PERIPHERY_ERROR_CALIBRATION, "fx");
    CHECK_ERROR(periphery_calibration_load("/nonexistent/c.json", &made), PERIPHERY_ERROR_CALIBRATION, "/nonexistent/c.json");

    /* Destroy functions accept NULL. */
    periphery_engine_destroy(NULL);
    periphery_calibration_destroy(NULL);
    periphery_result_destroy(NULL);
    periphery_source_destroy(NULL);
}

/* Bytes of DRIVE/000000.png ... 000005.png, the frames of the drive Tests/e2e/test_c_api.py copies. */
static int64_t drive_frame_bytes(const char *drive) {
    int64_t total = 0;
    char path[4096];
    for (int i = 0; i < 6; i++) {
        snprintf(path, sizeof path, "%s/%06d.png", drive, i);
        FILE *file = fopen(path, "rb");
        if (file == NULL) return -1;
        fseek(file, 0, SEEK_END);
        total += ftell(file);
        fclose(file);
    }
    return total;
}

static void check_inputs(periphery_engine *engine, const char *drive, periphery_calibration *calibration) {
    periphery_input_info info;
    CHECK(periphery_input_check(drive, NULL, &info) == PERIPHERY_OK);
    CHECK(info.kind == PERIPHERY_INPUT_DRIVE && info.has_calibration == 1 && info.size_bytes == drive_frame_bytes(drive));
    CHECK_ERROR(periphery_input_check(drive, NULL, NULL), PERIPHERY_ERROR_INVALID_ARGUMENT, "info");
    CHECK_ERROR(periphery_input_check("/nonexistent/drive", NULL, &info), PERIPHERY_ERROR_SOURCE,
                "/nonexistent/drive: no such file or directory");
    CHECK_ERROR(periphery_input_check("udp://127.0.0.1:9", NULL, &info), PERIPHERY_ERROR_CALIBRATION,
                "udp://127.0.0.1:9: a stream needs a calibration: none given");
    periphery_source_options options = {0};
    options.calibration = calibration;
    CHECK(periphery_input_check("udp://127.0.0.1:9", &options, &info) == PERIPHERY_OK);
    CHECK(info.kind == PERIPHERY_INPUT_STREAM && info.has_calibration == 1 && info.size_bytes == 0);
    options.rtsp_transport = 7;
    CHECK_ERROR(periphery_input_check("udp://127.0.0.1:9", &options, &info), PERIPHERY_ERROR_INVALID_ARGUMENT, "options.rtsp_transport");

    /* An option for another kind of input: the check and the opening fail alike. */
    periphery_source_options realtime = {0};
    realtime.realtime = 1;
    CHECK_ERROR(periphery_input_check(drive, &realtime, &info), PERIPHERY_ERROR_INVALID_ARGUMENT,
                "realtime is for a video file, not a drive directory");
    char checked[1024];
    snprintf(checked, sizeof checked, "%s", periphery_last_error());
    periphery_source *source = NULL;
    CHECK(periphery_source_open(engine, drive, &realtime, &source) == PERIPHERY_ERROR_INVALID_ARGUMENT && source == NULL);
    CHECK(strcmp(checked, periphery_last_error()) == 0);
    CHECK_ERROR(periphery_source_open(engine, "udp://127.0.0.1:9", NULL, &source), PERIPHERY_ERROR_CALIBRATION,
                "a stream needs a calibration");
    CHECK(periphery_source_warning(NULL, 0) == NULL);
}

static void check_source(periphery_engine *engine, const char *drive, const periphery_image *good, periphery_calibration *calibration) {
    periphery_source *source = NULL;
    CHECK_ERROR(periphery_source_open(engine, "/nonexistent/drive", NULL, &source), PERIPHERY_ERROR_SOURCE, "/nonexistent/drive");
    CHECK(periphery_source_open(engine, drive, NULL, &source) == PERIPHERY_OK);
    periphery_result *result = NULL;
    /* The engine belongs to the source now. */
    CHECK_ERROR(periphery_engine_process(engine, good, calibration, 0, NULL, &result), PERIPHERY_ERROR_BUSY, "engine");
    int64_t frames = 0;
    periphery_status status;
    while ((status = periphery_source_next(source, &result)) == PERIPHERY_OK) {
        CHECK(periphery_result_index(result) == frames);
        periphery_image image = periphery_result_image(result);
        CHECK(image.data != NULL && image.width > 0 && image.row_stride == (int64_t)image.width * 3);
        CHECK(strlen(periphery_result_name(result)) > 0);
        periphery_result_destroy(result);
        frames++;
    }
    CHECK(status == PERIPHERY_END && result == NULL && frames > 0);
    CHECK(periphery_source_next(source, &result) == PERIPHERY_END);
    /* The drive's tables have no bad rows: nothing to warn of. */
    CHECK(periphery_source_warning(source, 0) == NULL);
    periphery_source_destroy(source);
    fprintf(stderr, "test_periphery: the drive gave %lld results\n", (long long)frames);

    /* Destroyed after one frame: the session stops and the engine is free again. */
    periphery_source_options options = {0};
    options.max_frames = 0;
    CHECK(periphery_source_open(engine, drive, &options, &source) == PERIPHERY_OK);
    CHECK(periphery_source_next(source, &result) == PERIPHERY_OK);
    periphery_result_destroy(result);
    periphery_source_destroy(source);
    CHECK(periphery_engine_process(engine, good, calibration, 0, NULL, &result) == PERIPHERY_OK);
    periphery_result_destroy(result);
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: test_periphery WEIGHTS CALIBRATION FRAME.rgb DRIVE\n");
        return 2;
    }
    CHECK(periphery_api_version() == PERIPHERY_API_VERSION);
    CHECK(strcmp(periphery_version(), PERIPHERY_VERSION_STRING) == 0);
    CHECK(strcmp(periphery_last_error(), "") == 0);

    periphery_engine *engine = NULL;
    periphery_calibration *calibration = NULL;
    if (periphery_engine_create(argv[1], 0, PERIPHERY_PRECISION_AUTO, &engine) != PERIPHERY_OK ||
        periphery_calibration_load(argv[2], &calibration) != PERIPHERY_OK) {
        fprintf(stderr, "test_periphery: %s\n", periphery_last_error());
        return 1;
    }
    periphery_intrinsics k;
    CHECK(periphery_calibration_get(calibration, &k, NULL) == PERIPHERY_OK);
    size_t size = 0;
    unsigned char *rgb = read_file(argv[3], &size);
    if (rgb == NULL || size != (size_t)k.width * (size_t)k.height * 3) {
        fprintf(stderr, "test_periphery: %s is not %d x %d RGB8\n", argv[3], k.width, k.height);
        return 1;
    }
    periphery_image image = {rgb, k.width, k.height, (int64_t)k.width * 3, PERIPHERY_PIXEL_RGB8};
    periphery_result *result = NULL;
    CHECK(periphery_engine_process(engine, &image, calibration, 0.0, NULL, &result) == PERIPHERY_OK);

    /* The same pixels as BGR8, and as BGRA8 with 40 bytes of padding per row. */
    size_t pixels = (size_t)k.width * (size_t)k.height;
    unsigned char *bgr = malloc(pixels * 3);
    int64_t padded = (int64_t)k.width * 4 + 40;
    unsigned char *bgra = malloc((size_t)padded * (size_t)k.height);
    for (int32_t y = 0; y < k.height; y++) {
        for (int32_t x = 0; x < k.width; x++) {
            const unsigned char *p = rgb + ((size_t)y * (size_t)k.width + (size_t)x) * 3;
            unsigned char *q = bgr + ((size_t)y * (size_t)k.width + (size_t)x) * 3;
            unsigned char *r = bgra + (size_t)y * (size_t)padded + (size_t)x * 4;
            q[0] = r[0] = p[2];
            q[1] = r[1] = p[1];
            q[2] = r[2] = p[0];
            r[3] = 0x5a;
        }
    }
    periphery_engine_reset(engine);
    periphery_image as_bgr = {bgr, k.width, k.height, (int64_t)k.width * 3, PERIPHERY_PIXEL_BGR8};
    periphery_result *from_bgr = NULL;
    CHECK(periphery_engine_process(engine, &as_bgr, calibration, 0.0, NULL, &from_bgr) == PERIPHERY_OK);
    CHECK(same_detections(result, from_bgr));
    periphery_engine_reset(engine);
    periphery_image as_bgra = {bgra, k.width, k.height, padded, PERIPHERY_PIXEL_BGRA8};
    periphery_result *from_bgra = NULL;
    CHECK(periphery_engine_process(engine, &as_bgra, calibration, 0.0, NULL, &from_bgra) == PERIPHERY_OK);
    CHECK(same_detections(result, from_bgra));
    periphery_result_destroy(from_bgr);
    periphery_result_destroy(from_bgra);
    free(bgr);
    free(bgra);

    periphery_timings timings = periphery_result_timings(result);
    CHECK(timings.inference_ms > 0 && timings.total_ms >= timings.inference_ms);
    CHECK(periphery_result_index(result) == -1 && periphery_result_image(result).data == NULL);

    check_errors(engine, calibration, &image, argv[1]);
    check_inputs(engine, argv[4], calibration);
    check_source(engine, argv[4], &image, calibration);

    size_t count = 0;
    const periphery_detection *detections = periphery_result_detections(result, &count);
    printf("[\n");
    for (size_t i = 0; i < count; i++) {
        const periphery_detection *d = &detections[i];
        printf("  {\"class\":\"%s\",\"height\":%.17g,\"label\":%d,\"length\":%.17g,\"score\":%.9g,\"width\":%.17g,"
               "\"x\":%.17g,\"y\":%.17g,\"yaw\":%.17g,\"z\":%.17g}%s\n",
               class_name(d->label), d->box.height, d->label, d->box.length, (double)d->score, d->box.width, d->box.x, d->box.y,
               d->box.yaw, d->box.z, i + 1 < count ? "," : "");
    }
    printf("]\n");
    periphery_result_destroy(result);
    periphery_calibration_destroy(calibration);
    periphery_engine_destroy(engine);
    free(rgb);
    if (failures > 0) fprintf(stderr, "test_periphery: %d check(s) failed\n", failures);
    return failures == 0 ? 0 : 1;
}
