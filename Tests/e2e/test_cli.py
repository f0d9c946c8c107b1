"""The CLI end to end: the golden self-check and decode, then detect, run (drive and raw stdin) and
track on the tiny fixtures under Tests/cli; synth, eval, prepare and calibrate on synthetic data;
errors for bad input and outputs that cannot be written; INT8 quantization and precision errors;
the tracker's soak."""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import subprocess
from pathlib import Path

import pytest
from PIL import Image

from compare_with_labels import recall_of
from detections import assert_matches_manifest
from helpers import ROOT, SIDECAR, fails, json_lines, line_count, png_size, run

CONFORMANCE = ROOT / "Sources/PeripheryInference/Resources/Conformance"
FRAME = "docs/sample/synthetic/frame.png"
CALIBRATION = "docs/sample/synthetic/calibration.json"
LABELS = "docs/sample/synthetic/labels.json"
DRIVE = ROOT / "Tests/cli/drive"
DETECTIONS = "Tests/cli/detections.jsonl"
EVAL_KEYS = {"precision", "recall", "f1", "median_centre_error_m", "median_yaw_error_deg", "precision_10m", "recall_10m"}


def assert_recall(detections, at_least):
    recall, report = recall_of(detections, ROOT / LABELS)
    assert recall >= at_least, f"recall {recall:.2f} < {at_least}:\n{report}"


# ------------------------------------------------------------------------------ golden vectors

def test_selfcheck_passes(periphery):
    run([periphery, "selfcheck"])


def test_decode_of_the_golden_head_matches_the_selfcheck_manifest(periphery, tmp_path):
    out = run([periphery, "decode", "--head", CONFORMANCE / "selfcheck_head.safetensors"]).stdout
    (tmp_path / "detections.json").write_text(out)
    assert_matches_manifest(tmp_path / "detections.json", CONFORMANCE / "selfcheck.json")


# ------------------------------------------------------------------------------ detect, run, track

def test_detect_writes_detections_and_pictures_of_the_synthetic_frame(periphery, tmp_path):
    # The demo weights find 2 of the labelled sample's 3 vehicles in view.
    run([periphery, "detect", FRAME, "--calibration", CALIBRATION, "--json", tmp_path / "detect.json",
         "--overlay", tmp_path / "overlay.png", "--bev", tmp_path / "bev.png"])
    detections = json.loads((tmp_path / "detect.json").read_text())
    fields = {"score", "label", "class", "x", "y", "z", "length", "width", "height", "yaw"}
    assert isinstance(detections, list) and detections and all(fields <= set(d) for d in detections), detections
    assert_recall(tmp_path / "detect.json", 0.66)
    assert png_size(tmp_path / "overlay.png") == (640, 400)
    width, height = png_size(tmp_path / "bev.png")
    assert width > 0 and height > 0


def test_detect_finds_the_vehicles_in_view_of_the_demo_frame(periphery, tmp_path):
    run([periphery, "detect", FRAME, "--calibration", CALIBRATION, "--json", tmp_path / "demo.json"])
    assert_recall(tmp_path / "demo.json", 0.5)


@pytest.fixture(scope="module")
def drive_run(periphery, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("drive") / "drive"
    run([periphery, "run", DRIVE, "--out", out, "--render"])
    return out


def test_run_drive_writes_one_sidecar_line_per_frame(drive_run):
    frames = len(list(DRIVE.glob("*.png")))
    lines = json_lines(drive_run / SIDECAR)
    assert lines[0]["kind"] == "periphery-replay", lines[0]
    summary = lines.pop()["summary"]  # the run's summary is the last line
    assert summary["processed"] == summary["received"] == frames and summary["ended"] == "end-of-input", summary
    assert len(lines) == frames + 1, len(lines)
    assert [line["index"] for line in lines[1:]] == list(range(frames))
    assert all(len(line["timing_ms"]) == 6 and len(line["ego"]) == 4 for line in lines[1:])
    assert lines[2]["ego"][0] > 1.4, lines[2]["ego"]  # 15 m/s over 0.1 s from motion.csv + location.csv


def test_run_drive_renders_one_picture_per_frame(drive_run):
    assert len(list((drive_run / "render").iterdir())) == len(list(DRIVE.glob("*.png")))


def test_run_stdin_raw_writes_a_line_per_frame(periphery, tmp_path):
    run([periphery, "run", "--stdin-raw", "320x200", "--fps", "10", "--calibration", DRIVE / "calibration.json",
         "--out", tmp_path / "stdin"], input=os.urandom(320 * 200 * 3 * 4), text=False)
    assert line_count(tmp_path / "stdin" / SIDECAR) == 6  # header, 4 frames, summary


def test_track_confirms_one_track_over_four_frames(periphery, tmp_path):
    run([periphery, "track", "--detections", DETECTIONS, "--out", tmp_path / "tracks.jsonl"])
    lines = json_lines(tmp_path / "tracks.jsonl")
    assert len(lines) == 4
    last = lines[-1]
    assert [t["id"] for t in last["tracks"]] == [1] and last["tracks"][0]["hits"] == 4, last
    assert last["counters"] == {"births": 1, "matches": 3, "detection_suppressed": 0, "track_suppressed": 0, "ids_issued": 1}


# ------------------------------------------------------------------------------ synth, eval, prepare

@pytest.fixture(scope="module")
def synth(periphery, tmp_path_factory) -> Path:
    """Three synthetic frames (seed 11, 320 × 200) in the native layout, and eval's report and matches of them."""
    out = tmp_path_factory.mktemp("synth")
    run([periphery, "synth", "--frames", "3", "--seed", "11", "--out", out / "synth-a", "--width", "320", "--height", "200"])
    report = run([periphery, "eval", "--data", out / "synth-a", "--json", "--matches", out / "matches.jsonl"]).stdout
    (out / "eval.json").write_text(report)
    return out


@pytest.fixture(scope="module")
def synth_layouts(periphery, tmp_path_factory) -> Path:
    """The same frames in the KITTI and Cityscapes 3D layouts, each alone in a folder (kitti-only, cityscapes-only)."""
    out = tmp_path_factory.mktemp("layouts")
    run([periphery, "synth", "--frames", "3", "--seed", "11", "--out", out / "synth-k", "--width", "320", "--height", "200",
         "--kitti", "--cityscapes3d"])
    for folder, names in (("kitti-only", ["image_2", "label_2", "calib", "mount.json"]),
                          ("cityscapes-only", ["leftImg8bit", "camera", "gtBbox3d"])):
        (out / folder).mkdir()
        for name in names:
            source = out / "synth-k" / name
            (shutil.copytree if source.is_dir() else shutil.copy)(source, out / folder / name)
    return out


def test_synth_is_deterministic_in_its_seed(periphery, synth, tmp_path):
    run([periphery, "synth", "--frames", "3", "--seed", "11", "--out", tmp_path / "synth-b", "--width", "320", "--height", "200"])
    run(["diff", "-r", synth / "synth-a", tmp_path / "synth-b"])


def test_synth_records_its_command_without_the_output_folder(synth):
    # The trainer names its data by this command (python/periphery/train/provenance.py).
    record = json.loads((synth / "synth-a" / "synth.json").read_text())
    assert record == {"command": "periphery synth --frames 3 --seed 11 --width 320 --height 200"}


def test_synth_lvd_scenario_writes_the_lead_and_its_truth(periphery, tmp_path):
    """NHTSA's LVD defaults: before the lead brakes (3 s) it holds 30 m from the ego's front bumper at
    the ego's 45 mph (headway 30 / 20.1168 s), closes at 0 and has no TTC; its labels carry lead_id."""
    out = tmp_path / "lvd"
    run([periphery, "synth", "--sequence", "--frames", "4", "--seed", "5", "--width", "320", "--height", "200", "--out", out,
         "--scenario", "lvd"])
    truth = json.loads((out / "truth.json").read_text())
    scenario, lead_id = truth["scenario"], truth["lead_id"]
    assert scenario["name"] == "lvd" and scenario["gap_m"] == 30 and abs(scenario["lead_decel_m_s2"] - 0.3 * 9.81) < 1e-12
    assert abs(scenario["ego_speed_m_s"] - 45 * 0.44704) < 1e-12 and truth["ego_front_m"] == 3.7 and isinstance(lead_id, int)
    assert len(truth["trajectory"]) == 4
    for entry in truth["trajectory"]:
        lead = entry["in_path_lead"]
        assert lead["id"] == lead_id and abs(lead["range_m"] - 30) < 1e-6 and lead["closing_speed_m_s"] == 0, lead
        assert lead["ttc_s"] is None and abs(lead["headway_s"] - 30 / (45 * 0.44704)) < 1e-6, lead
        labels = json.loads((out / "labels" / f"{entry['index']:06d}.json").read_text())["vehicles"]
        assert any(v["id"] == lead_id for v in labels), entry["index"]


def test_synth_free_scenario_is_the_drive_without_one_plus_its_truth(periphery, tmp_path):
    common = ["synth", "--sequence", "--frames", "3", "--seed", "11", "--width", "320", "--height", "200"]
    run([periphery, *common, "--out", tmp_path / "plain"])
    run([periphery, *common, "--scenario", "free", "--out", tmp_path / "free"])
    run(["diff", "-r", "-x", "truth.json", "-x", "synth.json", tmp_path / "plain", tmp_path / "free"])
    plain, free = (json.loads((tmp_path / name / "truth.json").read_text()) for name in ("plain", "free"))
    assert free["scenario"]["name"] == "free" and free["lead_id"] is None and free["ego_front_m"] == 3.7
    assert all("in_path_lead" in entry for entry in free["trajectory"])
    for entry in free["trajectory"]:
        del entry["in_path_lead"]
    assert {k: v for k, v in free.items() if k not in ("scenario", "lead_id", "ego_front_m")} == plain


def test_synth_rejects_scenario_options_that_do_not_apply(periphery, tmp_path):
    common = [periphery, "synth", "--sequence", "--frames", "2", "--seed", "1", "--out", tmp_path / "never"]
    fails([*common, "--scenario", "lvm", "--lead-decel", "3"], 1, "--lead-decel does not apply to --scenario lvm")
    fails([*common, "--scenario", "lvd", "--ego-speed", "-3"], 1, "--ego-speed must be within")
    fails([*common, "--scenario", "lvx"], 1, "unknown scenario 'lvx'")
    fails([*common, "--gap", "10"], 1, "--gap needs --scenario")
    assert not (tmp_path / "never").exists()


def test_synth_structured_world_writes_the_native_layout(periphery, tmp_path):
    """--world structured writes what --world basic writes (PIL reads the pictures at the calibration's size), and
    `eval` reads it back; a bad world and --sequence with it are errors that name the option and write nothing."""
    out = tmp_path / "structured"
    run([periphery, "synth", "--world", "structured", "--frames", "2", "--seed", "3", "--width", "320", "--height", "200",
         "--network-inputs", "--out", out])
    for folder, ext in (("images", "png"), ("calibration", "json"), ("labels", "json"), ("network", "bin")):
        assert sorted(p.name for p in (out / folder).iterdir()) == [f"{i:06d}.{ext}" for i in range(2)], folder
    for i in range(2):
        calibration = json.loads((out / "calibration" / f"{i:06d}.json").read_text())["intrinsics"]
        assert Image.open(out / "images" / f"{i:06d}.png").size == (calibration["width"], calibration["height"]) == (320, 200)
        for vehicle in json.loads((out / "labels" / f"{i:06d}.json").read_text())["vehicles"]:
            assert vehicle["label"] in (0, 1, 2) and vehicle["visible_pixels"] >= 40, vehicle
    assert set(json.loads(run([periphery, "eval", "--data", out, "--json"]).stdout)) >= EVAL_KEYS
    common = [periphery, "synth", "--frames", "1", "--seed", "3", "--out", tmp_path / "never"]
    fails([*common, "--world", "blocks"], 1, "--world must be basic or structured, got 'blocks'")
    fails([*common, "--world", "structured", "--sequence"], 1, "--sequence needs --world basic")
    assert not (tmp_path / "never").exists()


def test_eval_matches_file_counts_what_the_report_says(synth):
    report, lines = json.loads((synth / "eval.json").read_text()), json_lines(synth / "matches.jsonl")
    assert [line["frame"] for line in lines] == ["000000", "000001", "000002"], lines
    tp, fp, fn = (sum(len(line[k]) for line in lines) for k in ("matched", "false_positives", "missed"))
    assert tp + fn > 0 and all(len(p) == 2 and "score" in p[0] and "score" not in p[1] for line in lines for p in line["matched"]), lines
    assert abs(report["recall"] - tp / (tp + fn)) < 1e-12, (report, tp, fn)
    assert abs(report["precision"] - (tp / (tp + fp) if tp + fp else 0)) < 1e-12, (report, tp, fp)


def test_eval_reports_every_measure_of_three_frames(synth):
    report = json.loads((synth / "eval.json").read_text())
    assert report["frames"] == 3 and EVAL_KEYS <= set(report), report


def test_eval_runs_with_pitch_bias_and_jitter(periphery, synth):
    report = json.loads(run([periphery, "eval", "--data", synth / "synth-a", "--pitch-bias", "0.5", "--pitch-jitter", "0.25",
                             "--json"]).stdout)
    assert report["frames"] == 3, report


def test_eval_of_kitti_and_cityscapes3d_layouts_equals_the_native_table(periphery, synth, synth_layouts):
    native = json.loads((synth / "eval.json").read_text())
    for folder in ("kitti-only", "cityscapes-only"):
        other = json.loads(run([periphery, "eval", "--data", synth_layouts / folder, "--json"]).stdout)
        assert native.keys() == other.keys() and all(abs(native[k] - other[k]) <= 1e-6 for k in native), (folder, native, other)


@pytest.fixture
def cityscapes_without_a_camera_file(synth_layouts, tmp_path) -> Path:
    data = shutil.copytree(synth_layouts / "cityscapes-only", tmp_path / "cityscapes-only")
    (data / "camera/train/synthetic/synthetic_000000_000001_camera.json").unlink()
    return data


def test_eval_skips_a_frame_without_its_camera_file_with_a_warning(periphery, cityscapes_without_a_camera_file):
    done = run([periphery, "eval", "--data", cityscapes_without_a_camera_file, "--json"])
    warning = "skipped frame synthetic_000000_000001: .*synthetic_000000_000001_camera.json: cannot read the file"
    assert re.search(warning, done.stderr), done.stderr
    assert json.loads(done.stdout)["frames"] == 2


def test_eval_strict_stops_at_a_frame_without_its_camera_file(periphery, cityscapes_without_a_camera_file):
    fails([periphery, "eval", "--data", cityscapes_without_a_camera_file, "--strict"], None,
          "synthetic_000000_000001_camera.json: cannot read the file")


def test_prepare_turns_a_kitti_dontcare_region_into_dont_care_cells(periphery, synth_layouts, tmp_path):
    data = shutil.copytree(synth_layouts / "kitti-only", tmp_path / "kitti-only")
    with open(data / "label_2/000001.txt", "a") as labels:
        labels.write("DontCare -1 -1 -10 100.0 80.0 220.0 140.0 -1 -1 -1 -1000 -1000 -1000 -10\n")
    run([periphery, "prepare", "--data", data, "--out", tmp_path / "prepared"])
    prepared = tmp_path / "prepared"
    assert len(list((prepared / "network").iterdir())) == 3
    assert (prepared / "complete").is_file() and (prepared / "labels/000002.json").is_file()
    labels = json.loads((prepared / "labels/000001.json").read_text())
    region = [v for v in labels["vehicles"] if v["label"] == -1]
    assert labels["ignored_regions"] == [[100, 80, 220, 140]] and region and not any(v["in_view"] for v in region), labels


def test_synth_sequence_is_a_drive_that_run_and_eval_read(periphery, tmp_path):
    run([periphery, "synth", "--sequence", "--frames", "6", "--fps", "10", "--seed", "4", "--out", tmp_path / "seq",
         "--width", "256", "--height", "160"])
    run([periphery, "run", tmp_path / "seq", "--out", tmp_path / "seq-run"])
    assert line_count(tmp_path / "seq-run" / SIDECAR) == 8
    run([periphery, "eval", "--data", tmp_path / "seq", "--json"])


# ------------------------------------------------------------------------------ mount calibration

@pytest.fixture(scope="module")
def straight_drive(periphery, tmp_path_factory) -> Path:
    """A short synthetic drive (seed 59 drives straight) for the mount calibration from motion."""
    out = tmp_path_factory.mktemp("calibrate") / "cal"
    run([periphery, "synth", "--sequence", "--frames", "90", "--fps", "30", "--seed", "59", "--out", out, "--width", "448",
         "--height", "252"])
    return out


def test_calibrate_estimates_the_pitch_of_a_straight_drive(periphery, straight_drive, tmp_path):
    r = json.loads(run([periphery, "calibrate", straight_drive, "--json", "--out", tmp_path / "estimated.json"]).stdout)
    truth = json.loads((straight_drive / "truth.json").read_text())
    keys = {"pitch_deg", "yaw_deg", "roll_deg", "sigma_pitch_deg", "samples", "accept_rate", "pitch_without_derotation_deg", "converged"}
    assert keys <= set(r), r
    assert r["samples"] >= 20 and not r["converged"], r  # 29 pairs: reportable, below the 200 to apply
    assert abs(r["pitch_deg"] - truth["mount"]["pitch_deg"]) < 0.5, (r, truth["mount"])


def test_run_auto_pitch_runs_the_estimator_beside_the_detector(periphery, straight_drive, tmp_path):
    done = run([periphery, "run", straight_drive, "--out", tmp_path / "cal-run", "--auto-pitch", "--max-frames", "12"])
    assert "auto pitch:" in done.stderr


# ------------------------------------------------------------------------------ errors

def test_detect_refuses_a_frame_of_the_wrong_size(periphery):
    fails([periphery, "detect", "docs/sample/frame.png", "--calibration", "docs/calibration/comma-eon.json"], None, "640x400")


@pytest.mark.parametrize("command", [["track", "--detections", DETECTIONS], ["selfcheck"]], ids=["track", "selfcheck"])
def test_a_full_disk_on_standard_output_is_an_error(periphery, command):
    with open("/dev/full", "w") as full:
        done = subprocess.run([periphery, *command], cwd=ROOT, stdout=full, stderr=subprocess.PIPE, text=True, timeout=300)
    assert done.returncode != 0 and "standard output: No space left on device" in done.stderr, (done.returncode, done.stderr)


def file_size_limit(kib):
    """A preexec function: the file-size limit of `ulimit -f KIB`."""
    return lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (kib * 1024, kib * 1024))


def test_a_file_size_limit_is_an_error_and_leaves_no_partial_file(periphery, tmp_path):
    limited = tmp_path / "limited"
    limited.mkdir()
    tripled = tmp_path / "detections-3x.jsonl"
    tripled.write_text((ROOT / DETECTIONS).read_text() * 3)  # over 1 KiB of tracks
    fails([periphery, "track", "--detections", tripled, "--out", limited / "tracks.jsonl"], None,
          "cannot write (write: File too large)", preexec_fn=file_size_limit(1))
    fails([periphery, "detect", "docs/sample/frame.png", "--calibration", "docs/sample/calibration.json", "--overlay", limited / "o.png"],
          None, "o.png: cannot write", preexec_fn=file_size_limit(8))
    assert list(limited.iterdir()) == [], "partial output left behind"


def test_a_directory_on_standard_input_is_an_error(periphery, tmp_path):
    directory = os.open("/", os.O_RDONLY)
    try:
        fails([periphery, "run", "--stdin-raw", "320x200", "--fps", "10", "--calibration", DRIVE / "calibration.json",
               "--out", tmp_path / "stdin-dir"], None, "standard input: Is a directory", stdin=directory)
    finally:
        os.close(directory)


def test_a_failing_command_with_standard_error_closed_exits_1(periphery):
    # With standard error gone too, a failing command still exits 1 (and does not trap).
    done = subprocess.run(["bash", "-c", f'"{periphery}" detect /nonexistent.png --calibration docs/sample/calibration.json 2>&-'],
                          cwd=ROOT, timeout=300)
    assert done.returncode == 1, f"detect with stderr closed exited {done.returncode}"


def test_a_closed_pipe_on_standard_output_is_an_error(periphery):
    p = subprocess.Popen([periphery, "track", "--detections", DETECTIONS], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.close()  # the reader goes away before the first line
    err = p.stderr.read().decode()
    assert p.wait(timeout=300) == 1 and "standard output: Broken pipe" in err, (p.returncode, err)


# ------------------------------------------------------------------------------ INT8

@pytest.fixture(scope="module")
def drive_int8(periphery, tmp_path_factory) -> Path:
    """INT8 weights quantized from the test drive (3 frames: this checks the command, not the accuracy)."""
    out = tmp_path_factory.mktemp("int8") / "drive-int8.safetensors"
    run([periphery, "quantize", "--data", DRIVE, "--frames", "3", "--out", out])
    return out


def test_quantize_from_a_drive_writes_weights_that_info_reads_as_int8(periphery, drive_int8):
    assert "precision: int8" in run([periphery, "info", "--weights", drive_int8]).stdout


def test_quantize_from_a_synth_dataset(periphery, tmp_path):
    run([periphery, "synth", "--frames", "2", "--seed", "4005", "--out", tmp_path / "calib"])
    run([periphery, "quantize", "--data", tmp_path / "calib", "--out", tmp_path / "synth-int8.safetensors"])
    assert "precision: int8" in run([periphery, "info", "--weights", tmp_path / "synth-int8.safetensors"]).stdout


def test_detect_int8_finds_the_vehicles_of_the_demo_frame(periphery, tmp_path):
    run([periphery, "detect", FRAME, "--calibration", CALIBRATION, "--precision", "int8", "--json", tmp_path / "int8.json"])
    assert_recall(tmp_path / "int8.json", 0.5)


@pytest.mark.parametrize("arguments, message", [
    (["bench", "--frames", "1", "--precision", "int8", "--weights", "Weights/safety40-synthetic.safetensors"], "make an INT8 file with"),
    (["bench", "--frames", "1", "--precision", "fp32", "--weights", "Weights/safety40-synthetic-int8.safetensors"],
     "run it with --precision int8 or auto"),
    (["bench", "--frames", "1", "--precision", "bf16"], "not implemented"),
    (["bench", "--frames", "1", "--precision", "int4"], "expected one of auto, fp32, int8, bf16"),
    (["bench", "--frames", "1", "--precision", "int8", "--int8-kernel", "sse4"],
     "expected one of auto, avx2, avxvnni, avx512vnni, neon, neondotprod, neoni8mm"),
    (["quantize", "--data", "Tests/cli/drive", "--frames", "1", "--weight-bits", "4", "--out", "{tmp}/never.safetensors"],
     "expected 6, 7 or 8"),
], ids=["int8-of-fp32-weights", "fp32-of-int8-weights", "bf16", "int4", "int8-kernel-sse4", "weight-bits-4"])
def test_precision_errors_say_what_to_do(periphery, arguments, message, tmp_path):
    fails([periphery, *(a.format(tmp=tmp_path) for a in arguments)], None, message)


def test_bench_preprocess_times_the_drive_frame(periphery):
    report = json.loads(run([periphery, "bench", "--frames", "2", "--warmup", "0", "--precision", "int8", "--json", "--preprocess",
                             DRIVE / "calibration.json"]).stdout)
    d = report["preprocess"]
    assert d["median_ms"] > 0 and d["frame"] == "320x200", d


def has_avx2() -> bool:
    return any(line.startswith("flags") and " avx2" in line for line in Path("/proc/cpuinfo").read_text().splitlines())


@pytest.mark.skipif(not has_avx2(), reason="this CPU has no AVX2")
def test_int8_kernel_avx2_is_maddubs6_on_6_bit_weights_and_maddwd_on_8_bit(periphery, drive_int8, tmp_path):
    eight_bit = tmp_path / "drive-int8-8bit.safetensors"
    run([periphery, "quantize", "--data", DRIVE, "--frames", "3", "--weight-bits", "8", "--out", eight_bit])
    for weights, kernel in ((drive_int8, "avx2-maddubs6"), (eight_bit, "avx2-maddwd")):
        report = json.loads(run([periphery, "bench", "--frames", "1", "--warmup", "0", "--int8-kernel", "avx2", "--json",
                                 "--weights", weights]).stdout)
        assert report["kernel"] == kernel, report["kernel"]


# ------------------------------------------------------------------------------ long drives

def test_soak_over_100000_frames_keeps_flat_memory_and_resets_on_anomalies(periphery):
    run([periphery, "soak", "--frames", "100000"])  # soak exits 1 otherwise


def test_soak_json_counts_four_resets_over_3000_frames(periphery):
    r = json.loads(run([periphery, "soak", "--frames", "3000", "--json"]).stdout)
    assert r["failures"] == 0 and r["frames"] == 3000 and r["resets"] == 4 and r["rss_end_mb"] > 0, r
