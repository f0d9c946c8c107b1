#!/usr/bin/env bash
# The C API against `make install`'s output alone: tools/install_c_api.sh into a fresh prefix, the C
# test (Tests/c/test_periphery.c) and the C++ example (Examples/cpp/detect.cpp) built with pkg-config,
# run with the toolchain off PATH and LD_LIBRARY_PATH, and their detections of the bundled frame
# compared with `periphery detect --json --reject-implausible` (the engine's decode settings).
#
#   bash tools/check_c_api.sh BUILD_DIR CLI [--asan]
# BUILD_DIR holds libPeripheryC.so; with --asan it was built with --sanitize=address and the C
# test is built and run under AddressSanitizer.
set -euo pipefail
built=$1 cli=$2 asan=${3:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
bash tools/install_c_api.sh "$built" "$prefix" "$(sed -n 's/^#define PERIPHERY_VERSION_STRING "\(.*\)"/\1/p' Sources/CPeriphery/include/periphery.h)" > /dev/null
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
flags=$(pkg-config --cflags --libs periphery)
weights=Weights/safety40-synthetic.safetensors
calibration=docs/sample/synthetic/calibration.json
ffmpeg -v error -i docs/sample/synthetic/frame.png -f rawvideo -pix_fmt rgb24 "$work/frame.rgb"
cp -r Tests/cli/drive "$work/drive"
# The programs run as a user's would: no toolchain on any path.
clean_env=(env -u LD_LIBRARY_PATH PATH=/usr/local/bin:/usr/bin:/bin)
if [ "$asan" = --asan ]; then
    # The sanitizer runtime of the toolchain that built the library.
    clang=$(dirname "$(command -v swift)")/clang
    "$clang" -std=c99 -Wall -Wextra -Werror -g -fsanitize=address -shared-libasan Tests/c/test_periphery.c $flags -Wl,-rpath,"$prefix/lib" -lm -o "$work/test_periphery"
    # Named for this machine's architecture (libclang_rt.asan-aarch64.so on ARM).
    runtime=$("$clang" -print-file-name=libclang_rt.asan-"$(uname -m)".so)
    [ -f "$runtime" ] || runtime=$(dirname "$("$clang" -print-libgcc-file-name)")/libclang_rt.asan-"$(uname -m)".so
    clean_env+=(LD_PRELOAD="$runtime" ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$PWD/Tests/lsan.supp SWIFT_BACKTRACE=enable=no)
else
    cc -std=c99 -Wall -Wextra -Werror -pedantic Tests/c/test_periphery.c $flags -Wl,-rpath,"$prefix/lib" -lm -o "$work/test_periphery"
    c++ -std=c++17 -Wall -Wextra -Werror Examples/cpp/detect.cpp $flags -Wl,-rpath,"$prefix/lib" -o "$work/detect"
    source tools/swift_runtime.sh
    if ldd "$work/test_periphery" "$prefix"/lib/periphery/*.so | grep -q "$(swift_runtime_dir "$built/libPeripheryC.so")/"; then
        echo "check_c_api: an installed library resolves into the toolchain" >&2
        exit 1
    fi
fi
"${clean_env[@]}" "$work/test_periphery" "$weights" "$calibration" "$work/frame.rgb" "$work/drive" > "$work/c.json"
"$cli" detect docs/sample/synthetic/frame.png --calibration "$calibration" --weights "$weights" --reject-implausible --json "$work/cli.json" 2> /dev/null
python3 tools/compare_c_api.py "$work/cli.json" "$work/c.json"
if [ "$asan" != --asan ]; then
    "${clean_env[@]}" "$work/detect" "$weights" "$calibration" "$work/frame.rgb" "$work/drive" > "$work/cpp.json" 2> "$work/cpp.log"
    python3 tools/compare_c_api.py "$work/cli.json" "$work/cpp.json"
    grep -q "000005.png" "$work/cpp.log"
fi
echo "c api: the C test${asan:+ under AddressSanitizer}$([ -z "$asan" ] && echo " and the C++ example") match periphery detect on the bundled frame"
