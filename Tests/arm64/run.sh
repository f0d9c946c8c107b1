#!/usr/bin/env bash
# `make test-arm64`: the whole package built and tested on aarch64, emulated (docs/guides/arm64.md).
#
#   bash Tests/arm64/run.sh X86_CLI
#
# 1. A Debian 13 (trixie) arm64 root with swiftlang 6.0.3 and the C libraries, made by mmdebstrap
#    from Debian's archive and cached in .build/arm64/root (rebuilt when the package list below
#    changes, or with ARM64_ROOT_REBUILD=1). Its programs run under qemu-aarch64-static through
#    binfmt_misc, which this script mounts and registers if needed, and undoes afterwards.
# 2. The repository's files (tracked and untracked, not ignored) copied to /src/periphery in the root;
#    its .build there is kept, so a rerun rebuilds only what changed.
# 3. Inside the root: the release build with Debian's Swift 6.0.3, `periphery selfcheck`, `detect` on
#    the bundled frame in FP32 and INT8 (the INT8 one at three emulated CPUs: cortex-a53, cortex-a76
#    and max, each on its own NEON path) compared with X86_CLI's (compare_across_machines.py beside
#    this script), the Swift tests of Core, Geometry and the INT8 kernels, `run` on the test drive
#    compared with X86_CLI's, then `make venv` (pytest from PyPI at the pins of
#    python/requirements-dev.txt: aarch64 wheels for Python 3.13, or pure Python), `make wheel`, and the
#    end-to-end tests of the C API and of the aarch64 wheel (Tests/e2e/test_c_api.py, test_wheel.py:
#    the wheel in a fresh venv of its own; the binding's tests less the slow and the timing ones) under
#    pytest.
# Every mount is undone on exit, also on failure. Times of each step go to .build/arm64/times.txt.
set -euo pipefail
cd "$(dirname "$0")/../.."
x86_cli=$(realpath "${1:?usage: Tests/arm64/run.sh X86_CLI}")
[ "$(uname -m)" = x86_64 ] || { echo "test_arm64: runs on an x86-64 host (on an arm64 machine, run make test)" >&2; exit 1; }
work=$PWD/.build/arm64
root=$work/root
mkdir -p "$work"
times=$work/times.txt
: > "$times"
started=$(date +%s)
step() { # step NAME COMMAND...: runs and times one step
    local name=$1 begin
    shift
    begin=$(date +%s)
    echo "=== test_arm64: $name"
    "$@"
    echo "$name: $(($(date +%s) - begin)) s" | tee -a "$times"
}

packages=swiftlang,libopenblas-dev,libpng-dev,libjpeg-dev,libavdevice-dev,libavformat-dev,libavcodec-dev,libavutil-dev,libswscale-dev,libwebsockets-dev,python3,python3-venv,python3-pip,make,patchelf,ffmpeg,build-essential,pkg-config,ca-certificates

# --- binfmt_misc with qemu-aarch64 (F: the interpreter is opened now, so it works inside the chroot)
undo=()
cleanup() {
    local i
    for ((i = ${#undo[@]} - 1; i >= 0; i--)); do eval "${undo[$i]}" || echo "test_arm64: could not undo: ${undo[$i]}" >&2; done
}
trap cleanup EXIT
if ! mountpoint -q /proc/sys/fs/binfmt_misc; then
    mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
    undo+=("umount /proc/sys/fs/binfmt_misc")
fi
if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
    update-binfmts --enable qemu-aarch64
    undo+=("update-binfmts --disable qemu-aarch64")
fi
grep -q '^flags: .*F' /proc/sys/fs/binfmt_misc/qemu-aarch64 || { echo "test_arm64: qemu-aarch64 is registered without the F flag" >&2; exit 1; }

# --- the root (cached)
build_root() {
    rm -rf "$root" "$root.tmp" "$work/root.packages"
    mmdebstrap --arch=arm64 --variant=apt --include="$packages" trixie "$root.tmp" http://deb.debian.org/debian
    mv "$root.tmp" "$root"
    echo "$packages" > "$work/root.packages"
}
if [ "${ARM64_ROOT_REBUILD:-0}" = 1 ] || [ "$(cat "$work/root.packages" 2> /dev/null)" != "$packages" ]; then
    step "arm64 root (mmdebstrap, Debian 13)" build_root
else
    echo "=== test_arm64: reusing the arm64 root in $root (ARM64_ROOT_REBUILD=1 rebuilds it)"
fi

# --- the sources, and the x86-64 references
src=$root/src/periphery
mkdir -p "$src"
find "$src" -mindepth 1 -maxdepth 1 ! -name .build -exec rm -rf {} +
git ls-files -co --exclude-standard -z | tar --null -cf - -T - | tar -xf - -C "$src"
cp /etc/resolv.conf "$root/etc/resolv.conf"
# The certificate authorities this machine added to its own trust (a network's TLS proxy, say), so
# that pip inside the root reaches PyPI as pip here does; pip is pointed at the system bundle below.
if compgen -G "/usr/local/share/ca-certificates/*.crt" > /dev/null; then
    cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
    ca_refresh=1
fi
reference=$src/.build/x86-reference
rm -rf "$reference"
mkdir -p "$reference"
frame=docs/sample/synthetic/frame.png calibration=docs/sample/synthetic/calibration.json
"$x86_cli" detect $frame --calibration $calibration --precision fp32 --json "$reference/detect-fp32.json" 2> /dev/null
"$x86_cli" detect $frame --calibration $calibration --precision int8 --json "$reference/detect-int8.json" 2> /dev/null
for precision in fp32 int8; do
    "$x86_cli" run Tests/cli/drive --precision $precision --out "$reference/drive-$precision" > /dev/null 2>&1
done

# --- mounts for the chroot
for target in proc dev dev/pts; do
    case $target in
    proc) mount -t proc proc "$root/proc" ;;
    dev) mount --bind /dev "$root/dev" ;;
    dev/pts) mount -t devpts devpts "$root/dev/pts" ;;
    esac
    undo+=("umount '$root/$target'")
done
inside() { # runs a bash command line in the root, in /src/periphery, as a fresh login would
    chroot "$root" env -i HOME=/root PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 TERM=dumb ${QEMU_CPU:+QEMU_CPU=$QEMU_CPU} \
        PIP_CERT=/etc/ssl/certs/ca-certificates.crt \
        bash -c "cd /src/periphery && set -euo pipefail && $1"
}

[ -z "${ca_refresh:-}" ] || inside "/usr/sbin/update-ca-certificates > /dev/null"
echo "=== test_arm64: $(inside 'swift --version 2>&1 | head -n 1; uname -m')"
release="-c release -Xswiftc -enable-testing"
step "swift build (Swift 6.0.3, release, with tests)" inside "swift build $release --build-tests 2>&1 | grep -v '^\[' | tail -n 30"
cli=.build/release/periphery
step "periphery selfcheck" inside "$cli selfcheck"
step "detect, FP32, against x86-64" inside "$cli detect $frame --calibration $calibration --precision fp32 --json .build/arm-detect-fp32.json 2> /dev/null
    python3 Tests/arm64/compare_across_machines.py .build/x86-reference/detect-fp32.json .build/arm-detect-fp32.json --label 'detect FP32'"
# The INT8 path follows the emulated CPU: ARMv8.0 NEON, dot product, i8mm. All must give the x86 integers.
for level in cortex-a53:neon cortex-a76:neon-dotprod max:neon-i8mm; do
    cpu=${level%%:*} path=${level#*:}
    QEMU_CPU=$cpu step "detect, INT8 on $cpu ($path), against x86-64" inside "
        # The whole output first: grep -q would stop reading early, and pipefail would count info's SIGPIPE.
        info=\$($cli info 2>&1)
        grep -q 'int8 kernel on this CPU: $path)' <<< \"\$info\" || { echo \"\$info\"; echo 'expected the $path path on $cpu' >&2; exit 1; }
        $cli detect $frame --calibration $calibration --precision int8 --json .build/arm-detect-int8-$cpu.json 2> /dev/null
        python3 Tests/arm64/compare_across_machines.py .build/x86-reference/detect-int8.json .build/arm-detect-int8-$cpu.json --label 'detect INT8, $path'"
done
step "swift test: Core, Geometry, INT8 kernels" inside "swift test $release --skip-build --filter 'PeripheryCoreTests|PeripheryGeometryTests|Int8KernelTests' 2>&1 | tail -n 5"
step "run on the test drive, FP32 and INT8, against x86-64" inside "
    for precision in fp32 int8; do
        $cli run Tests/cli/drive --precision \$precision --out .build/arm-drive-\$precision > /dev/null 2>&1
        python3 Tests/arm64/compare_across_machines.py .build/x86-reference/drive-\$precision/replay-safety40-v1.jsonl \
            .build/arm-drive-\$precision/replay-safety40-v1.jsonl --label \"run \$precision\"
    done"
step "make venv (pytest), make wheel" inside "make venv wheel DEB_PACKAGES="
# The binding's own tests from the wheel, less eight of their twenty: under qemu an FP32 frame takes about a minute, so
# the twenty-frame comparison and the drive and video sources (CLI and binding over 12 frames each,
# several times) would take hours, and the two thread tests time wall clocks, which emulation distorts.
# The same engine's frames are compared with x86-64's above (detect at three CPUs, run on the drive).
binding_k="not twenty_synthetic_frames and not binding_sources and not two_engines_on_two_threads and not python_runs_while"
step "C API and aarch64 wheel end-to-end tests (pytest)" inside ".build/venv/bin/python -m pytest Tests/e2e/test_c_api.py Tests/e2e/test_wheel.py \
    -rA --periphery $cli --build-dir .build/release --wheel-dir dist --binding-k '$binding_k'"
echo "total: $(($(date +%s) - started)) s" | tee -a "$times"
echo "test_arm64: passed on emulated aarch64 ($(inside 'swift --version 2>&1 | head -n 1'))"
