# Sourced by the scripts that ship or check libperiphery.so (the C API, the wheel).
#
# swift_runtime_dir FILE prints the folder in which ldd finds FILE's libswiftCore.so: the toolchain's
# usr/lib/swift/linux for a swift.org toolchain, /usr/lib/swift/linux for Debian's swiftlang. The
# libraries that resolve there are the Swift runtime, which is shipped beside libperiphery.so; the
# rest of /usr (libc, FFmpeg, libpng) stays the system's, so "the toolchain's folder" cannot be
# told from `command -v swift` alone.
swift_runtime_dir() {
    local core
    core=$(ldd "$1" | awk '$1 == "libswiftCore.so" { print $3; exit }')
    [ -n "$core" ] || { echo "swift_runtime_dir: $1 does not link libswiftCore.so" >&2; return 1; }
    dirname "$core"
}
