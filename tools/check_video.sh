#!/usr/bin/env bash
# Video in and out through the CLI (docs/guides/video.md): a synthetic drive encoded by ffmpeg as H.264,
# H.265, MJPEG and a variable-frame-rate clip; the sidecar, the H.264 render and the MCAP of a video
# run; detections against the drive's own PNG frames; bad input. `make test-tools` reads the MCAP
# with the `mcap` package. Usage: tools/check_video.sh PERIPHERY_BINARY
set -euo pipefail
bin=${1:?usage: tools/check_video.sh PERIPHERY_BINARY}
out=.build/video-check
frames=30
bash tools/make_sample_video.sh "$bin" "$out/sample" $frames 2> /dev/null
video=$out/sample/video

# The drive's lossless frames are the reference for every video's detections.
"$bin" run "$out/sample/drive" --out "$out/png" 2> /dev/null
"$bin" run "$video/clip.mp4" --out "$out/h264" --mcap "$out/h264/run.mcap" --render-video "$out/h264/run.mp4" --progress 2> "$out/h264.err"
grep -q "frames/s, ETA" "$out/h264.err"  # --progress shows the line although stderr is a file
test "$(wc -l < "$out/h264/replay-safety40-v1.jsonl")" -eq $((frames + 2))  # header, frames, summary
probe=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=codec_name,pix_fmt,nb_read_frames -of csv=p=0 "$out/h264/run.mp4")
test "$probe" = "h264,yuv420p,$frames" || { echo "run.mp4: $probe"; exit 1; }
python3 - "$out/h264/run.mcap" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
magic = b"\x89MCAP0\r\n"
assert data[:8] == magic and data[-8:] == magic, "run.mcap: no MCAP magic at both ends"
print(f"video: run.mcap {len(data)} bytes, sidecar and H.264 render of {sys.argv[1].split('/')[-2]} complete")
PY
test ! -e "$out/h264/run.mcap.partial" && test ! -e "$out/h264/run.mp4.partial"
python3 tools/compare_sidecars.py "$out/png/replay-safety40-v1.jsonl" "$out/h264/replay-safety40-v1.jsonl"
for clip in clip-h265.mp4 clip-mjpeg.avi clip-vfr.mkv; do
    "$bin" run "$video/$clip" --out "$out/$clip" 2> /dev/null
    python3 tools/compare_sidecars.py "$out/png/replay-safety40-v1.jsonl" "$out/$clip/replay-safety40-v1.jsonl"
done
# The variable-frame-rate clip keeps its timestamps.
ffprobe -v error -select_streams v:0 -show_entries frame=best_effort_timestamp_time -of csv=p=0 "$video/clip-vfr.mkv" > "$out/vfr-times.txt"
python3 - "$out/clip-vfr.mkv/replay-safety40-v1.jsonl" "$out/vfr-times.txt" <<'PY'
import json, sys
pts = [json.loads(line)["pts"] for line in list(open(sys.argv[1]))[1:-1]]
times = [float(line.strip().strip(",")) for line in open(sys.argv[2]) if line.strip()]
assert len(pts) == len(times) and all(abs(p - t) < 1e-6 for p, t in zip(pts, times)), (pts, times)
steps = {round(b - a, 3) for a, b in zip(pts, pts[1:])}
assert steps == {0.1, 0.2}, steps
print(f"video: the variable-frame-rate clip keeps its {len(pts)} timestamps (steps {sorted(steps)} s)")
PY

# A part of a video, and one frame of it.
"$bin" run "$video/clip.mp4" --out "$out/part" --start 1 --duration 1 --every 2 2> /dev/null
test "$(wc -l < "$out/part/replay-safety40-v1.jsonl")" -eq 7
"$bin" detect "$video/clip.mp4" --time 0.7 --calibration "$video/calibration.json" --json "$out/t07.json" 2> /dev/null
"$bin" detect "$out/sample/drive/images/000007.png" --calibration "$video/calibration.json" --json "$out/f07.json" 2> /dev/null
python3 - "$out/t07.json" "$out/f07.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert len(a) > 0 and abs(len(a) - len(b)) <= 1, (len(a), len(b))
print(f"video: detect --time 0.7 finds {len(a)} vehicles, the PNG frame {len(b)}")
PY

# Bad input: each an error naming the file; a clip cut short keeps (and finishes) what came before,
# and exits 3.
fails() {  # fails STATUS PATTERN COMMAND...
    local status=$1 pattern=$2; shift 2
    set +e; "$@" 2> "$out/err.txt"; local got=$?; set -e
    test "$got" -eq "$status" || { echo "exit $got, not $status: $*"; cat "$out/err.txt"; exit 1; }
    grep -q -- "$pattern" "$out/err.txt" || { echo "unexpected message for $*:"; cat "$out/err.txt"; exit 1; }
}
fails 1 "Tests/cli/detections.jsonl: not a readable video" "$bin" run Tests/cli/detections.jsonl --calibration "$video/calibration.json" --out "$out/bad"
fails 1 "clip.mp4: frames are 640x400, the calibration's 320x200" "$bin" run "$video/clip.mp4" --calibration Tests/cli/drive/calibration.json --out "$out/bad"
mkdir -p "$out/cut"
cp "$video/calibration.json" "$out/cut/"
head -c $(( $(stat -c %s "$video/clip-vfr.mkv") / 2 )) "$video/clip-vfr.mkv" > "$out/cut/cut.mkv"
fails 3 "cut.mkv: the video ends at" "$bin" run "$out/cut/cut.mkv" --out "$out/cut" --mcap "$out/cut/run.mcap" --render-video "$out/cut/run.mp4"
kept=$(( $(wc -l < "$out/cut/replay-safety40-v1.jsonl") - 2 ))
test "$kept" -gt 3 && test "$kept" -lt $frames
probe=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 "$out/cut/run.mp4")
test "$probe" = "$kept" || { echo "cut run.mp4 holds $probe frames, the sidecar $kept"; exit 1; }
echo "video: a clip cut in half keeps its first $kept frames in the sidecar, the MP4 and the MCAP (exit 3)"
