#!/usr/bin/env bash
# End-to-end checks of the CLI: golden self-check, LUT and decode, then detect, run (drive and raw
# stdin) and track on the tiny fixtures under Tests/cli. Usage: tools/check_cli.sh BIN
set -euo pipefail
bin=${1:?usage: tools/check_cli.sh PERIPHERY_BINARY}
conformance=Sources/PeripheryInference/Resources/Conformance
out=.build/cli-check
rm -rf "$out" && mkdir -p "$out"

"$bin" selfcheck
"$bin" lut --calibration docs/calibration/comma-eon.json --out "$out/selfcheck_lut.bin"
bash tools/check_lut.sh "$out/selfcheck_lut.bin" "$conformance/selfcheck_lut.bin"
"$bin" decode --head "$conformance/selfcheck_head.safetensors" > "$out/selfcheck_detections.json"
python3 tools/compare_detections.py "$out/selfcheck_detections.json" "$conformance/selfcheck.json"

# The labelled synthetic sample: the demo weights find 2 of its 3 vehicles in view (a list that is
# empty, or pictures that are not PNGs of the expected size, fail).
"$bin" detect docs/sample/synthetic/frame.png --calibration docs/sample/synthetic/calibration.json \
    --json "$out/detect.json" --overlay "$out/overlay.png" --bev "$out/bev.png"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert isinstance(d, list) and d and all({"score", "label", "class", "x", "y", "z", "length", "width", "height", "yaw"} <= set(x) for x in d), d; print(f"detect: {len(d)} detections")' "$out/detect.json"
python3 tools/compare_with_labels.py "$out/detect.json" docs/sample/synthetic/labels.json --min-recall 0.66
python3 - "$out/overlay.png" "$out/bev.png" <<'PY'
import struct, sys
for path, size in zip(sys.argv[1:], [(640, 400), None]):
    head = open(path, "rb").read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR", f"{path}: not a PNG"
    width, height = struct.unpack(">II", head[16:24])
    assert width > 0 and height > 0 and (size is None or (width, height) == size), f"{path}: {width}x{height}"
print("detect: overlay 640x400 and bird's-eye view are PNGs")
PY

"$bin" run Tests/cli/drive --out "$out/drive" --render
frames=$(ls Tests/cli/drive/*.png | wc -l)
python3 - "$out/drive/replay-safety40-v1.jsonl" "$frames" <<'PY'
import json, sys
lines = [json.loads(line) for line in open(sys.argv[1])]
assert lines[0]["kind"] == "periphery-replay", lines[0]
summary = lines.pop()["summary"]  # the run's summary is the last line
assert summary["processed"] == summary["received"] == int(sys.argv[2]) and summary["ended"] == "end-of-input", summary
assert len(lines) == int(sys.argv[2]) + 1, len(lines)
assert [l["index"] for l in lines[1:]] == list(range(int(sys.argv[2])))
assert all(len(l["timing_ms"]) == 6 and len(l["ego"]) == 4 for l in lines[1:])
assert lines[2]["ego"][0] > 1.4, lines[2]["ego"]  # 15 m/s over 0.1 s from motion.csv + location.csv
print(f"run: {len(lines) - 1} frames in the sidecar")
PY
test "$(ls "$out/drive/render" | wc -l)" -eq "$frames"

head -c $((320 * 200 * 3 * 4)) /dev/urandom | "$bin" run --stdin-raw 320x200 --fps 10 \
    --calibration Tests/cli/drive/calibration.json --out "$out/stdin"
test "$(wc -l < "$out/stdin/replay-safety40-v1.jsonl")" -eq 6  # header, 4 frames, summary

"$bin" track --detections Tests/cli/detections.jsonl --out "$out/tracks.jsonl"
python3 - "$out/tracks.jsonl" <<'PY'
import json, sys
lines = [json.loads(line) for line in open(sys.argv[1])]
assert len(lines) == 4
last = lines[-1]
assert [t["id"] for t in last["tracks"]] == [1] and last["tracks"][0]["hits"] == 4, last
assert last["counters"] == {"births": 1, "matches": 3, "detection_suppressed": 0, "track_suppressed": 0, "ids_issued": 1}
print("track: 1 confirmed track after 4 frames")
PY

# The demo weights find the vehicles of the bundled synthetic frame that lie in the network's view.
"$bin" detect docs/sample/synthetic/frame.png --calibration docs/sample/synthetic/calibration.json --json "$out/demo.json"
python3 tools/compare_with_labels.py "$out/demo.json" docs/sample/synthetic/labels.json --min-recall 0.5

# Synthetic frames are deterministic in their seed; eval reads them back.
"$bin" synth --frames 3 --seed 11 --out "$out/synth-a" --width 320 --height 200
"$bin" synth --frames 3 --seed 11 --out "$out/synth-b" --width 320 --height 200
diff -r "$out/synth-a" "$out/synth-b"
"$bin" eval --data "$out/synth-a" --json --matches "$out/matches.jsonl" > "$out/eval.json"
python3 - "$out/eval.json" "$out/matches.jsonl" <<'PY'
import json, sys
report, lines = json.load(open(sys.argv[1])), [json.loads(l) for l in open(sys.argv[2])]
assert [l["frame"] for l in lines] == ["000000", "000001", "000002"], lines
tp, fp, fn = (sum(len(l[k]) for l in lines) for k in ("matched", "false_positives", "missed"))
assert tp + fn > 0 and all(len(p) == 2 and "score" in p[0] and "score" not in p[1] for l in lines for p in l["matched"]), lines
assert abs(report["recall"] - tp / (tp + fn)) < 1e-12 and abs(report["precision"] - (tp / (tp + fp) if tp + fp else 0)) < 1e-12, (report, tp, fp, fn)
print(f"eval --matches: {tp} matched, {fp} false positives, {fn} missed, as the report counts")
PY
"$bin" eval --data "$out/synth-a" --pitch-bias 0.5 --pitch-jitter 0.25 --json > /dev/null
python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert r["frames"] == 3 and {"precision", "recall", "f1", "median_centre_error_m", "median_yaw_error_deg", "precision_10m", "recall_10m"} <= set(r), r; print("synth + eval: 3 frames")' "$out/eval.json"
# The same frames in the KITTI and Cityscapes 3D layouts alone evaluate to the same table (1e-6).
"$bin" synth --frames 3 --seed 11 --out "$out/synth-k" --width 320 --height 200 --kitti --cityscapes3d
mkdir -p "$out/kitti-only" "$out/cityscapes-only"
cp -r "$out/synth-k/image_2" "$out/synth-k/label_2" "$out/synth-k/calib" "$out/synth-k/mount.json" "$out/kitti-only/"
cp -r "$out/synth-k/leftImg8bit" "$out/synth-k/camera" "$out/synth-k/gtBbox3d" "$out/cityscapes-only/"
"$bin" eval --data "$out/kitti-only" --json > "$out/eval-kitti.json"
"$bin" eval --data "$out/cityscapes-only" --json > "$out/eval-cityscapes.json"
python3 - "$out/eval.json" "$out/eval-kitti.json" "$out/eval-cityscapes.json" <<'PY'
import json, sys
native, *others = (json.load(open(p)) for p in sys.argv[1:])
for other in others:
    assert native.keys() == other.keys() and all(abs(native[k] - other[k]) <= 1e-6 for k in native), (native, other)
print("eval on the native, KITTI and Cityscapes 3D layouts: the same table to 1e-6")
PY
# A frame whose camera file is missing is skipped with a warning naming it; --strict stops there.
rm "$out/cityscapes-only/camera/train/synthetic/synthetic_000000_000001_camera.json"
"$bin" eval --data "$out/cityscapes-only" --json > "$out/eval-skip.json" 2> "$out/eval-skip.err"
grep -q "skipped frame synthetic_000000_000001: .*synthetic_000000_000001_camera.json: cannot read the file" "$out/eval-skip.err"
python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["frames"] == 2' "$out/eval-skip.json"
if "$bin" eval --data "$out/cityscapes-only" --strict > /dev/null 2> "$out/eval-strict.err"; then echo "eval --strict passed a missing camera file"; exit 1; fi
grep -q "synthetic_000000_000001_camera.json: cannot read the file" "$out/eval-strict.err"
echo "eval: a frame without its camera file is skipped with a warning, or stops the run with --strict"
# prepare turns any layout into the trainer's inputs.
# A KITTI DontCare region (no 3-D box) becomes don't-care labels at the head cells it covers.
echo "DontCare -1 -1 -10 100.0 80.0 220.0 140.0 -1 -1 -1 -1000 -1000 -1000 -10" >> "$out/kitti-only/label_2/000001.txt"
"$bin" prepare --data "$out/kitti-only" --out "$out/prepared" 2> /dev/null
test "$(ls "$out/prepared/network" | wc -l)" = 3 && test -f "$out/prepared/complete" && test -f "$out/prepared/labels/000002.json"
python3 - "$out/prepared/labels/000001.json" <<'PY'
import json, sys
labels = json.load(open(sys.argv[1]))
region = [v for v in labels["vehicles"] if v["label"] == -1]
assert labels["ignored_regions"] == [[100, 80, 220, 140]] and region and not any(v["in_view"] for v in region), labels
print(f"prepare: 3 KITTI frames -> network inputs, labels and calibrations; a DontCare region -> {len(region)} don't-care cells")
PY
# A synthetic drive is a drive directory: run reads its frames, CSVs and calibration.
"$bin" synth --sequence --frames 6 --fps 10 --seed 4 --out "$out/seq" --width 256 --height 160
"$bin" run "$out/seq" --out "$out/seq-run" > /dev/null
test "$(wc -l < "$out/seq-run/replay-safety40-v1.jsonl")" -eq 8
"$bin" eval --data "$out/seq" --json > /dev/null
echo "synth --sequence: run and eval read the drive"
# Mount calibration from motion on a short synthetic drive (seed 59 drives straight): calibrate
# prints its report, and run --auto-pitch runs the estimator beside the detector.
"$bin" synth --sequence --frames 90 --fps 30 --seed 59 --out "$out/cal" --width 448 --height 252 > /dev/null
"$bin" calibrate "$out/cal" --json --out "$out/cal/estimated.json" > "$out/calibrate.json" 2> /dev/null
python3 - "$out/calibrate.json" "$out/cal/truth.json" <<'PY'
import json, sys
r, truth = (json.load(open(p)) for p in sys.argv[1:])
keys = {"pitch_deg", "yaw_deg", "roll_deg", "sigma_pitch_deg", "samples", "accept_rate", "pitch_without_derotation_deg", "converged"}
assert keys <= set(r), r
assert r["samples"] >= 20 and not r["converged"], r  # 29 pairs: reportable, below the 200 to apply
assert abs(r["pitch_deg"] - truth["mount"]["pitch_deg"]) < 0.5, (r, truth["mount"])
print(f"calibrate: {r['samples']} pairs, pitch {r['pitch_deg']:+.2f} (true {truth['mount']['pitch_deg']:+.2f}), {r['ms_per_pair']:.0f} ms per pair")
PY
"$bin" run "$out/cal" --out "$out/cal-run" --auto-pitch --max-frames 12 2> "$out/auto.txt" > /dev/null
grep -q "auto pitch:" "$out/auto.txt"

# Bad input is an error with a message, not a crash.
if "$bin" detect docs/sample/frame.png --calibration docs/calibration/comma-eon.json 2> "$out/err.txt"; then
    echo "detect accepted a frame of the wrong size"; exit 1
fi
grep -q "640x400" "$out/err.txt"
# Outputs are never half-written: a full disk, a file-size limit or a closed pipe is an error with
# a message and exit status 1, and no partial file (or temporary file) is left behind.
expect_failure() {  # expect_failure MESSAGE-PATTERN COMMAND...
    local pattern=$1; shift
    if "$@" 2> "$out/err.txt"; then echo "accepted: $*"; exit 1; fi
    grep -q "$pattern" "$out/err.txt" || { echo "unexpected message for $*:"; cat "$out/err.txt"; exit 1; }
}
expect_failure "standard output: No space left on device" bash -c "\"$bin\" track --detections Tests/cli/detections.jsonl > /dev/full"
expect_failure "standard output: No space left on device" bash -c "\"$bin\" selfcheck > /dev/full"
mkdir -p "$out/limited"
cat Tests/cli/detections.jsonl Tests/cli/detections.jsonl Tests/cli/detections.jsonl > "$out/detections-3x.jsonl"  # over 1 KiB of tracks
expect_failure "cannot write (write: File too large)" bash -c "ulimit -f 1; \"$bin\" track --detections \"$out/detections-3x.jsonl\" --out \"$out/limited/tracks.jsonl\""
expect_failure "o.png: cannot write" bash -c "ulimit -f 8; \"$bin\" detect docs/sample/frame.png --calibration docs/sample/calibration.json --overlay \"$out/limited/o.png\" > /dev/null"
test -z "$(ls -A "$out/limited")" || { echo "partial output left behind:"; ls -la "$out/limited"; exit 1; }
expect_failure "standard input: Is a directory" bash -c "\"$bin\" run --stdin-raw 320x200 --fps 10 --calibration Tests/cli/drive/calibration.json --out \"$out/stdin-dir\" < /"
# With standard error gone too, a failing command still exits 1 (and does not trap).
set +e; "$bin" detect /nonexistent.png --calibration docs/sample/calibration.json 2>&-; status=$?; set -e
test "$status" -eq 1 || { echo "detect with stderr closed exited $status"; exit 1; }
python3 - "$bin" <<'PY'
import subprocess, sys
p = subprocess.Popen([sys.argv[1], "track", "--detections", "Tests/cli/detections.jsonl"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
p.stdout.close()  # the reader goes away before the first line
err = p.stderr.read().decode()
assert p.wait() == 1 and "standard output: Broken pipe" in err, (p.returncode, err)
print("outputs: full disk, file-size limit and closed pipe are errors; no partial files")
PY

# INT8: quantize from a drive directory and from a synth dataset (a few frames: this checks the
# command, not the accuracy, docs/results/accuracy.md), the files load and detect finds the demo frame's
# vehicles with the shipped INT8 weights; precision mismatches are errors that say what to do.
"$bin" quantize --data Tests/cli/drive --frames 3 --out "$out/drive-int8.safetensors"
"$bin" synth --frames 2 --seed 4005 --out "$out/calib"
"$bin" quantize --data "$out/calib" --out "$out/synth-int8.safetensors"
"$bin" info --weights "$out/drive-int8.safetensors" > "$out/info.txt" 2> /dev/null
grep -q "precision: int8" "$out/info.txt" || { echo "info does not report int8"; exit 1; }
"$bin" detect docs/sample/synthetic/frame.png --calibration docs/sample/synthetic/calibration.json --precision int8 \
    --json "$out/int8.json" 2> /dev/null
python3 tools/compare_with_labels.py "$out/int8.json" docs/sample/synthetic/labels.json --min-recall 0.5
expect_failure "make an INT8 file with" "$bin" bench --frames 1 --precision int8 --weights Weights/safety40-synthetic.safetensors
expect_failure "run it with --precision int8 or auto" "$bin" bench --frames 1 --precision fp32 --weights Weights/safety40-synthetic-int8.safetensors
expect_failure "not implemented" "$bin" bench --frames 1 --precision bf16
expect_failure "expected one of auto, fp32, int8, bf16" "$bin" bench --frames 1 --precision int4
"$bin" bench --frames 2 --warmup 0 --precision int8 --json --preprocess Tests/cli/drive/calibration.json > "$out/bench.json"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))["preprocess"]; assert d["median_ms"] > 0 and d["frame"] == "320x200", d; print("bench --preprocess:", d)' "$out/bench.json"
echo "INT8: quantize from a drive and a dataset, detect, precision errors"
# --int8-kernel: the AVX2 kernel named by what ran (6-bit weights, the default: maddubs6; 8-bit: maddwd).
expect_failure "expected one of auto, avx2, avxvnni, avx512vnni, neon, neondotprod, neoni8mm" "$bin" bench --frames 1 --precision int8 --int8-kernel sse4
expect_failure "expected 6, 7 or 8" "$bin" quantize --data Tests/cli/drive --frames 1 --weight-bits 4 --out "$out/never.safetensors"
if grep -qw avx2 /proc/cpuinfo; then
    "$bin" quantize --data Tests/cli/drive --frames 3 --weight-bits 8 --out "$out/drive-int8-8bit.safetensors" 2> /dev/null
    for pair in "drive-int8:avx2-maddubs6" "drive-int8-8bit:avx2-maddwd"; do
        "$bin" bench --frames 1 --warmup 0 --int8-kernel avx2 --json --weights "$out/${pair%%:*}.safetensors" > "$out/bench-avx2.json" 2> /dev/null
        python3 -c 'import json, sys; k = json.load(open(sys.argv[1]))["kernel"]; assert k == sys.argv[2], k' "$out/bench-avx2.json" "${pair#*:}"
    done
    echo "INT8: --int8-kernel avx2 runs avx2-maddubs6 on 6-bit weights, avx2-maddwd on 8-bit"
fi

# Long drives: the tracker over 100,000 synthetic frames with anomalies keeps flat memory and
# resets on every anomaly (soak exits 1 otherwise).
"$bin" soak --frames 100000
"$bin" soak --frames 3000 --json > "$out/soak.json"
python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert r["failures"] == 0 and r["frames"] == 3000 and r["resets"] == 4 and r["rss_end_mb"] > 0, r; print("soak --json:", r)' "$out/soak.json"

echo "CLI checks passed"
