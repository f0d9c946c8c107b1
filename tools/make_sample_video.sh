#!/usr/bin/env bash
# A short synthetic sample video for the CLI checks, made rather than stored: `periphery synth
# --sequence` renders a drive (frames, calibration, motion.csv, location.csv), and ffmpeg encodes its
# frames at 10 frames/s. OUT then holds the drive (OUT/drive) and, beside the drive's CSVs and
# calibration, OUT/video/clip.mp4 (H.264), clip-h265.mp4, clip-mjpeg.avi and clip-vfr.mkv (the same
# frames at variable intervals).
# Usage: tools/make_sample_video.sh PERIPHERY_BINARY OUT [FRAMES] [WxH]
set -euo pipefail
bin=${1:?usage: make_sample_video.sh PERIPHERY_BINARY OUT [FRAMES] [WxH]}
out=${2:?usage: make_sample_video.sh PERIPHERY_BINARY OUT [FRAMES] [WxH]}
frames=${3:-20}
size=${4:-640x400}
rm -rf "$out" && mkdir -p "$out/video"
"$bin" synth --sequence --frames "$frames" --width "${size%x*}" --height "${size#*x}" --seed 31 --out "$out/drive" > /dev/null
cp "$out/drive/calibration.json" "$out/drive/motion.csv" "$out/drive/location.csv" "$out/video/"
encode() { ffmpeg -v error -y -framerate 10 -i "$out/drive/images/%06d.png" "$@"; }
encode -c:v libx264 -pix_fmt yuv420p -crf 12 "$out/video/clip.mp4"
encode -c:v libx265 -pix_fmt yuv420p -crf 12 -x265-params log-level=none "$out/video/clip-h265.mp4"
encode -c:v mjpeg -q:v 2 "$out/video/clip-mjpeg.avi"
# Variable frame rate: the first half 0.1 s apart, the rest 0.2 s apart.
encode -vf "setpts='if(lt(N,$((frames / 2))),N,2*N-$((frames / 2)))/(10*TB)'" -fps_mode passthrough \
    -c:v libx264 -pix_fmt yuv420p -crf 12 "$out/video/clip-vfr.mkv"
echo "sample video: $frames frames of $size in $out/video (drive in $out/drive)"
