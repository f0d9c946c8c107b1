#!/usr/bin/env bash
# `make install PREFIX=…`: the C API as a self-contained tree.
#   PREFIX/include/periphery.h
#   PREFIX/lib/libperiphery.so            (soname libperiphery.so, RUNPATH $ORIGIN/periphery)
#   PREFIX/lib/periphery/*.so             the Swift runtime libraries it needs (RUNPATH $ORIGIN)
#   PREFIX/lib/pkgconfig/periphery.pc
# SwiftPM cannot link the Swift runtime statically into a shared library, so the runtime libraries
# are copied beside it; the system's C libraries (FFmpeg, libpng, libjpeg; OpenBLAS, loaded at run
# time) stay the system's. Nothing installed refers to the toolchain.
set -euo pipefail
built=$1 prefix=$2 version=$3
lib="$prefix/lib"
mkdir -p "$prefix/include" "$lib/periphery" "$lib/pkgconfig"
install -m 644 Sources/CPeriphery/include/periphery.h "$prefix/include/periphery.h"
install -m 755 "$built/libPeripheryC.so" "$lib/libperiphery.so"
source tools/swift_runtime.sh
toolchain=$(swift_runtime_dir "$lib/libperiphery.so")
# The Swift runtime libraries that ldd resolves in the runtime's folder, transitively.
runtime=$(ldd "$lib/libperiphery.so" | awk -v t="$toolchain/" 'index($3, t) == 1 { print $3 }')
[ -n "$runtime" ] || { echo "install: no Swift runtime libraries found under $toolchain" >&2; exit 1; }
for so in $runtime; do
    install -m 755 "$so" "$lib/periphery/"
    patchelf --set-rpath '$ORIGIN' "$lib/periphery/$(basename "$so")"
done
patchelf --set-rpath '$ORIGIN/periphery' "$lib/libperiphery.so"
if ldd "$lib/libperiphery.so" | grep -q "$toolchain/"; then
    echo "install: $lib/libperiphery.so still resolves into $toolchain" >&2
    exit 1
fi
sed -e "s|@PREFIX@|$prefix|" -e "s|@VERSION@|$version|" tools/periphery.pc.in > "$lib/pkgconfig/periphery.pc"
echo "installed the C API under $prefix (include/periphery.h, lib/libperiphery.so, lib/periphery/, lib/pkgconfig/periphery.pc)"
