#!/usr/bin/env bash
# Live ego motion from a real gpsd (docs/guides/live.md): `gpsfake` replays NMEA written from a synthetic
# drive's location.csv while the drive's clip streams over UDP in real time; the run's ego motion
# follows the GPS speed and course, and its tracks match the drive run with its own CSVs
# (tools/compare_gps_run.py states the bounds). Then a gpsd that goes silent: the run falls back to
# the stationary rule and counts it. Loopback only; every process is stopped on exit.
# Usage: tools/check_gpsd.sh PERIPHERY_BINARY
set -euo pipefail
bin=${1:?usage: tools/check_gpsd.sh PERIPHERY_BINARY}
out=.build/gpsd-check
video_port=18611 gps_port=18947
rm -rf "$out" && mkdir -p "$out"
pids=()
# gpsfake may outlive a SIGTERM, and its gpsd outlives gpsfake: both are killed outright.
stop_gpsfake() {
    kill "$@" 2> /dev/null || true
    sleep 1
    pkill -9 -f "gpsfake -q -P $gps_port" 2> /dev/null || true
    pkill -9 -f "gpsd -b -N -S $gps_port" 2> /dev/null || true
    { kill -9 "$@"; wait "$@"; } > /dev/null 2>&1 || true
}
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2> /dev/null || true; done
    stop_gpsfake "${pids[@]}"
}
trap cleanup EXIT

"$bin" synth --sequence --frames 150 --fps 15 --width 640 --height 360 --seed 31 --out "$out/drive" > /dev/null
ffmpeg -v error -y -framerate 15 -i "$out/drive/images/%06d.png" -c:v libx264 -pix_fmt yuv420p -g 15 -bf 0 -tune zerolatency \
    -crf 18 "$out/clip.mp4"
python3 tools/nmea_from_location.py "$out/drive/location.csv" --out "$out/drive.nmea"
"$bin" run "$out/drive" --out "$out/drive-run" --weights Weights/safety40-synthetic-int8.safetensors 2> /dev/null

# The same sentences marked void (RMC status V, GGA quality 0): a gpsd without a fix.
python3 - "$out/drive.nmea" "$out/nofix.nmea" <<'PY'
import functools, sys
with open(sys.argv[2], "w") as out:
    for line in open(sys.argv[1]):
        fields = line.strip()[1:].split("*")[0].split(",")
        if fields[0].endswith("RMC"):
            fields[2] = "V"
        elif fields[0].endswith("GGA"):
            fields[6] = "0"
        body = ",".join(fields)
        out.write(f"${body}*{functools.reduce(lambda a, c: a ^ ord(c), body, 0):02X}\r\n")
PY
# gpsd must be up before the run connects to it, so its log leads in with 4 s of void fixes; the
# run starts meanwhile, and the clip is sent as the first real fix arrives. -c 0.5: an RMC and a
# GGA sentence every 0.5 s, one fix a second, as location.csv has them.
{ head -n 8 "$out/nofix.nmea"; cat "$out/drive.nmea"; } > "$out/lead-in.nmea"
timeout -k 2 60 gpsfake -q -P "$gps_port" -c 0.5 "$out/lead-in.nmea" > "$out/gpsfake.log" 2>&1 &
gpsfake=$!
pids+=($gpsfake)
timeout 10 bash -c "until gpspipe -w -n 2 127.0.0.1:$gps_port > /dev/null 2>&1; do sleep 0.1; done"
timeout 40 "$bin" run "udp://127.0.0.1:$video_port" --gpsd "127.0.0.1:$gps_port" --calibration "$out/drive/calibration.json" \
    --out "$out/live" --duration 16 --weights Weights/safety40-synthetic-int8.safetensors 2> "$out/live.err" &
run=$!
pids+=($run)
timeout 15 bash -c "until gpspipe -w -n 12 127.0.0.1:$gps_port 2> /dev/null | grep -q '\"class\":\"TPV\".*\"speed\":'; do sleep 0.1; done"
timeout 20 ffmpeg -v error -re -i "$out/clip.mp4" -c copy -f mpegts "udp://127.0.0.1:$video_port?pkt_size=1316"
wait "$run" || { echo "gpsd: the live run failed"; cat "$out/live.err"; exit 1; }
python3 tools/compare_gps_run.py "$out/live/replay-safety40-v1.jsonl" "$out/drive" "$out/drive-run/replay-safety40-v1.jsonl"

# A gpsd with no fix to give: the stationary rule, a warning and the count.
stop_gpsfake "$gpsfake"
timeout -k 2 40 gpsfake -q -P "$gps_port" -c 0.5 "$out/nofix.nmea" > "$out/gpsfake-nofix.log" 2>&1 &
pids+=($!)
timeout 10 bash -c "until gpspipe -w -n 3 127.0.0.1:$gps_port > /dev/null 2>&1; do sleep 0.2; done"
timeout 40 "$bin" run "udp://127.0.0.1:$video_port" --gpsd "127.0.0.1:$gps_port" --calibration "$out/drive/calibration.json" \
    --out "$out/nofix" --duration 8 --weights Weights/safety40-synthetic-int8.safetensors 2> "$out/nofix.err" &
run=$!
pids+=($run)
sleep 1
timeout 20 ffmpeg -v error -re -t 5 -i "$out/clip.mp4" -c copy -f mpegts "udp://127.0.0.1:$video_port?pkt_size=1316"
wait "$run" || { echo "gpsd: the run without a fix failed"; cat "$out/nofix.err"; exit 1; }
grep -q "no GPS fix" "$out/nofix.err" || { echo "gpsd: no warning for the missing fix"; cat "$out/nofix.err"; exit 1; }
python3 - "$out/nofix/replay-safety40-v1.jsonl" <<'PY'
import json, sys
lines = [json.loads(line) for line in open(sys.argv[1])]
summary = lines[-1]["summary"]
assert summary["processed"] >= 3 and summary["ego_fallbacks"] >= summary["processed"] - 1, summary
print(f"gpsd: without a fix {summary['ego_fallbacks']} of {summary['processed']} frames fell back to the stationary rule")
PY
