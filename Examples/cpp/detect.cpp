// A C++ program over periphery.h: the detections of one raw RGB8 frame, then the tracks of a drive.
//
//   c++ -std=c++17 detect.cpp $(pkg-config --cflags --libs periphery) -o detect
//   ./detect WEIGHTS CALIBRATION FRAME.rgb [DRIVE]
//
// RAII wrappers own the handles, and a failed call throws with periphery_last_error()'s message.
#include <periphery.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

// Throws the library's message when a call fails.
void check(periphery_status status) {
    if (status < 0) throw std::runtime_error(periphery_last_error());
}

struct EngineDeleter {
    void operator()(periphery_engine *engine) const { periphery_engine_destroy(engine); }
};
struct CalibrationDeleter {
    void operator()(periphery_calibration *calibration) const { periphery_calibration_destroy(calibration); }
};
struct ResultDeleter {
    void operator()(periphery_result *result) const { periphery_result_destroy(result); }
};
struct SourceDeleter {
    void operator()(periphery_source *source) const { periphery_source_destroy(source); }
};
using Engine = std::unique_ptr<periphery_engine, EngineDeleter>;
using Calibration = std::unique_ptr<periphery_calibration, CalibrationDeleter>;
using Result = std::unique_ptr<periphery_result, ResultDeleter>;
using Source = std::unique_ptr<periphery_source, SourceDeleter>;

const char *className(int32_t label) {
    switch (label) {
    case PERIPHERY_CLASS_LIGHT_VEHICLE: return "light_vehicle";
    case PERIPHERY_CLASS_LARGE_VEHICLE: return "large_vehicle";
    case PERIPHERY_CLASS_TWO_WHEELER: return "two_wheeler";
    default: return "pedestrian";
    }
}

}  // namespace

int main(int argc, char **argv) try {
    if (argc < 4) {
        std::fprintf(stderr, "usage: detect WEIGHTS CALIBRATION FRAME.rgb [DRIVE]\n");
        return 2;
    }
    if (periphery_api_version() != PERIPHERY_API_VERSION) throw std::runtime_error("libperiphery is of another API version");
    periphery_engine *rawEngine = nullptr;
    check(periphery_engine_create(argv[1], 0, PERIPHERY_PRECISION_AUTO, &rawEngine));
    Engine engine(rawEngine);
    periphery_calibration *rawCalibration = nullptr;
    check(periphery_calibration_load(argv[2], &rawCalibration));
    Calibration calibration(rawCalibration);
    periphery_intrinsics k{};
    check(periphery_calibration_get(calibration.get(), &k, nullptr));

    std::ifstream file(argv[3], std::ios::binary);
    std::vector<uint8_t> rgb((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    if (rgb.size() != static_cast<size_t>(k.width) * static_cast<size_t>(k.height) * 3) {
        throw std::runtime_error(std::string(argv[3]) + ": not the calibration's size of RGB8");
    }
    periphery_image image{rgb.data(), k.width, k.height, static_cast<int64_t>(k.width) * 3, PERIPHERY_PIXEL_RGB8};
    periphery_result *rawResult = nullptr;
    check(periphery_engine_process(engine.get(), &image, calibration.get(), 0.0, nullptr, &rawResult));
    Result result(rawResult);

    size_t count = 0;
    const periphery_detection *detections = periphery_result_detections(result.get(), &count);
    std::printf("[\n");
    for (size_t i = 0; i < count; i++) {
        const periphery_detection &d = detections[i];
        std::printf("  {\"class\":\"%s\",\"height\":%.17g,\"label\":%d,\"length\":%.17g,\"score\":%.9g,\"width\":%.17g,"
                    "\"x\":%.17g,\"y\":%.17g,\"yaw\":%.17g,\"z\":%.17g}%s\n",
                    className(d.label), d.box.height, d.label, d.box.length, static_cast<double>(d.score), d.box.width, d.box.x,
                    d.box.y, d.box.yaw, d.box.z, i + 1 < count ? "," : "");
    }
    std::printf("]\n");

    if (argc > 4) {
        periphery_source *rawSource = nullptr;
        check(periphery_source_open(engine.get(), argv[4], nullptr, &rawSource));
        Source source(rawSource);
        for (;;) {
            periphery_result *next = nullptr;
            periphery_status status = periphery_source_next(source.get(), &next);
            check(status);
            if (status == PERIPHERY_END) break;
            Result frame(next);
            size_t tracks = 0;
            const periphery_track *track = periphery_result_tracks(frame.get(), &tracks);
            std::fprintf(stderr, "%s: %zu tracks", periphery_result_name(frame.get()), tracks);
            for (size_t i = 0; i < tracks; i++) {
                std::fprintf(stderr, "  #%lld %s at (%.1f, %.1f) m", static_cast<long long>(track[i].id), className(track[i].label),
                             track[i].box.x, track[i].box.y);
            }
            std::fprintf(stderr, "\n");
        }
    }
    return 0;
} catch (const std::exception &error) {
    std::fprintf(stderr, "detect: %s\n", error.what());
    return 1;
}
