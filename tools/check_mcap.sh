#!/usr/bin/env bash
# The MCAP of a video run, of a run whose clip was cut in half and of one stopped by SIGINT (each closed with a valid summary),
# read by the `mcap` package and parsed into Foxglove's protobuf types (tools/verify_mcap.py).
# Usage: tools/check_mcap.sh PERIPHERY_BINARY PYTHON
set -euo pipefail
bin=${1:?usage: tools/check_mcap.sh PERIPHERY_BINARY PYTHON}
python=${2:?usage: tools/check_mcap.sh PERIPHERY_BINARY PYTHON}
out=.build/mcap-check
bash tools/make_sample_video.sh "$bin" "$out/sample" 12 2> /dev/null
video=$out/sample/video
"$bin" run "$video/clip.mp4" --out "$out/run" --mcap "$out/run/run.mcap" 2> /dev/null
"$python" tools/verify_mcap.py "$out/run/run.mcap" --frames 12
mkdir -p "$out/cut"
cp "$video/calibration.json" "$out/cut/"
head -c $(( $(stat -c %s "$video/clip-vfr.mkv") / 2 )) "$video/clip-vfr.mkv" > "$out/cut/cut.mkv"
set +e; "$bin" run "$out/cut/cut.mkv" --out "$out/cut" --mcap "$out/cut/run.mcap" 2> /dev/null; status=$?; set -e
test "$status" -eq 3 || { echo "the cut clip exited $status, not 3"; exit 1; }
"$python" tools/verify_mcap.py "$out/cut/run.mcap" --frames $(( $(wc -l < "$out/cut/replay-safety40-v1.jsonl") - 2 ))

# A run stopped by SIGINT part-way (docs/guides/live.md): its MCAP closed with the summary section, one
# message per topic for each frame the sidecar's summary counts as processed.
mkdir -p "$out/stopped"
ffmpeg -v error -y -stream_loop 5 -i "$video/clip.mp4" -c copy "$out/stopped/long.mp4"  # 7.2 s
"$bin" run "$out/stopped/long.mp4" --realtime --calibration "$video/calibration.json" --out "$out/stopped" \
    --mcap "$out/stopped/run.mcap" 2> /dev/null &
run=$!
sleep 4
kill -INT "$run"
set +e; wait "$run"; status=$?; set -e
test "$status" -eq 0 || { echo "the stopped run exited $status, not 0"; exit 1; }
processed=$(python3 -c 'import json, sys; print(json.loads(open(sys.argv[1]).readlines()[-1])["summary"]["processed"])' \
    "$out/stopped/replay-safety40-v1.jsonl")
"$python" tools/verify_mcap.py "$out/stopped/run.mcap" --frames "$processed"
