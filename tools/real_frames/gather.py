"""Re-creates the real-frame test set of Tests/real from the source repositories.

The frames are test data only: none of them may be used for training (Tests/real/README.md).

Usage: .build/venv/bin/python tools/real_frames/gather.py --mirrors DIR [--out Tests/real]

DIR holds one bare git directory per source repository, named `owner+name/repo` (as the search
tool's `fetch` lays them out), e.g. DIR/udacity+CarND-Advanced-Lane-Lines/repo. Every blob is read
at the commit pinned below, so the output does not depend on what the mirrors hold beyond it.

What it writes: frames/*.jpg (camera A undistorted with its chessboard calibration; every
re-encoded frame at JPEG quality 92), cameras/{A,B,C,D}.json (the project's calibration format:
intrinsics from the sources or the chessboards, mounts from MOUNTS below, measured by hand as
Tests/real/README.md describes) and LICENSES/. It prints camera A's RMS reprojection error.
Labels (labels/*.json) are hand-made and are not written here.
"""

import argparse
import io
import json
import pathlib
import subprocess
import tempfile

import cv2
import numpy as np

ADVANCED = ("udacity+CarND-Advanced-Lane-Lines", "91b080357290da37f533e2d0832f601c3e770d51")
SUNSIDED = ("sunsided+CarND-Advanced-Lane-Lines", "9692cf242f6d531fe37dca9ec462c632f1bcf832")
P1 = ("udacity+CarND-LaneLines-P1", "ce5681be7ef8140560c0e464ef2da611e40b4fc9")
PANDASET = ("scaleapi+pandaset-devkit", "c20729732f522c1bce81cb85a13bb02c96344bb4")
PANDASET_LICENCE = ("scaleapi+pandaset-devkit", "6c518f9c061429c4e0d32870449802bc0ce40c2f")
COMMA = ("commaai+comma2k19", "4c7f1a6e1957745beadc1def0e7225f559b09a2a")
COMMA_PREVIEW = "Example_1/b0c9d2329ad1606b|2018-08-02--08-34-47/40/preview.png"

A_STILLS = [(ADVANCED, f"test_images/{n}.jpg") for n in ["test1", "test2", "test3", "test4", "test5", "test6"]]
A_STILLS += [(ADVANCED, f"test_images/straight_lines{i}.jpg") for i in (1, 2)]
A_STILLS += [(SUNSIDED, f"test_images/challenge{i}.jpg") for i in range(1, 10)]
A_STILLS += [(SUNSIDED, f"test_images/test{i}.jpg") for i in (7, 8, 9)]
B_STILLS = ["solidWhiteCurve", "solidWhiteRight", "solidYellowCurve", "solidYellowCurve2", "solidYellowLeft", "whiteCarLaneSwitch"]
B_VIDEO = "test_videos/solidWhiteRight.mp4"
B_VIDEO_FRAMES = [40, 100, 160]
C_FRAMES = list(range(0, 80, 8))
CHESSBOARD = (9, 6)
JPEG_QUALITY = 92
# Camera mounts measured by hand from the stored frames (Tests/real/README.md, "Calibration").
MOUNTS = {
    "A": {"pitch_deg": 1.508, "roll_deg": 0.0, "yaw_deg": -1.6, "height_m": 1.24, "forward_of_origin_m": 1.65},
    "B": {"pitch_deg": 2.098, "roll_deg": 0.0, "yaw_deg": 0.05, "height_m": 1.235, "forward_of_origin_m": 1.65},
    "C": {"pitch_deg": 0.0, "roll_deg": 1.0, "yaw_deg": 0.0, "height_m": 1.9, "forward_of_origin_m": 1.65},
    "D": {"pitch_deg": -3.659, "roll_deg": 0.0, "yaw_deg": 0.0, "height_m": 1.2, "forward_of_origin_m": 1.65},
}
# Camera B has no calibration in its source: this focal is estimated (README.md, "Calibration").
B_FOCAL = 920.0


def blob(mirrors, source, path):
    """The bytes of `path` at the source's pinned commit."""
    name, commit = source
    git_dir = mirrors / name / "repo"
    return subprocess.run(
        ["git", "--git-dir", str(git_dir), "show", f"{commit}:{path}"], check=True, capture_output=True
    ).stdout


def decode(data):
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise ValueError("not an image")
    return image


def write_jpeg(path, image):
    ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        raise ValueError(f"cannot encode {path}")
    path.write_bytes(encoded.tobytes())


def calibrate_a(mirrors):
    """OpenCV chessboard calibration of camera A from the 20 camera_cal images (9x6 inner corners)."""
    board = np.zeros((CHESSBOARD[0] * CHESSBOARD[1], 3), np.float32)
    board[:, :2] = np.mgrid[0 : CHESSBOARD[0], 0 : CHESSBOARD[1]].T.reshape(-1, 2)
    objects, corners_found, used = [], [], []
    for i in range(1, 21):
        # calibration7 and 15 are 1281x721: the extra row and column are dropped, pixels keep their place.
        gray = cv2.cvtColor(decode(blob(mirrors, ADVANCED, f"camera_cal/calibration{i}.jpg")), cv2.COLOR_BGR2GRAY)[:720, :1280]
        found, corners = cv2.findChessboardCorners(gray, CHESSBOARD)
        if not found:
            continue
        corners = cv2.cornerSubPix(
            gray, corners, (11, 11), (-1, -1), (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.001)
        )
        objects.append(board)
        corners_found.append(corners)
        used.append(i)
    rms, matrix, distortion, _, _ = cv2.calibrateCamera(objects, corners_found, (1280, 720), None, None)
    return rms, matrix, distortion, used


def video_frames(mirrors, source, path, indices):
    """Frames `indices` (0-based) of a video blob, decoded by ffmpeg, as BGR arrays."""
    with tempfile.TemporaryDirectory() as scratch:
        video = pathlib.Path(scratch) / "video.mp4"
        video.write_bytes(blob(mirrors, source, path))
        frames = []
        for index in indices:
            png = subprocess.run(
                ["ffmpeg", "-v", "error", "-i", str(video), "-vf", f"select=eq(n\\,{index})", "-frames:v", "1",
                 "-f", "image2pipe", "-vcodec", "png", "-"],
                check=True, capture_output=True,
            ).stdout
            frames.append(decode(png))
        return frames


def calibration(fx, fy, cx, cy, width, height, camera):
    intrinsics = {"fx": round(fx, 3), "fy": round(fy, 3), "cx": round(cx, 3), "cy": round(cy, 3), "width": width, "height": height}
    return {"intrinsics": intrinsics, "mount": MOUNTS[camera]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirrors", type=pathlib.Path, required=True)
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path("Tests/real"))
    args = parser.parse_args()
    # One thread: OpenCV's parallel loops may change the last bits of the calibration and of the
    # undistorted pixels from run to run, and the set is to be re-created byte for byte.
    cv2.setNumThreads(1)
    frames, cameras, licences = (args.out / d for d in ("frames", "cameras", "LICENSES"))
    for folder in (frames, cameras, licences):
        folder.mkdir(parents=True, exist_ok=True)

    rms, matrix, distortion, used = calibrate_a(args.mirrors)
    print(f"camera A: {len(used)} chessboards ({used}), RMS reprojection error {rms:.4f} px")
    print(f"camera A: K {matrix.tolist()}, distortion {distortion.ravel().tolist()}")
    for source, path in A_STILLS:
        prefix = "A-udacity" if source == ADVANCED else "A-sunsided"
        image = cv2.undistort(decode(blob(args.mirrors, source, path)), matrix, distortion)
        write_jpeg(frames / f"{prefix}-{pathlib.Path(path).stem}.jpg", image)
    a = calibration(matrix[0, 0], matrix[1, 1], matrix[0, 2], matrix[1, 2], 1280, 720, "A")

    for name in B_STILLS:
        (frames / f"B-{name}.jpg").write_bytes(blob(args.mirrors, P1, f"test_images/{name}.jpg"))
    for index, image in zip(B_VIDEO_FRAMES, video_frames(args.mirrors, P1, B_VIDEO, B_VIDEO_FRAMES)):
        write_jpeg(frames / f"B-solidWhiteRight-video-{index:03d}.jpg", image)
    b = calibration(B_FOCAL, B_FOCAL, 480, 270, 960, 540, "B")

    base = "test/data/002/camera/front_camera"
    for index in C_FRAMES:
        (frames / f"C-pandaset-002-{index:02d}.jpg").write_bytes(blob(args.mirrors, PANDASET, f"{base}/{index:02d}.jpg"))
    k = json.loads(blob(args.mirrors, PANDASET, f"{base}/intrinsics.json"))
    c = calibration(k["fx"], k["fy"], k["cx"], k["cy"], 1920, 1080, "C")

    write_jpeg(frames / "D-comma2k19-preview.jpg", decode(blob(args.mirrors, COMMA, COMMA_PREVIEW)))
    d = calibration(910, 910, 582, 437, 1164, 874, "D")

    for camera, setup in zip("ABCD", (a, b, c, d)):
        (cameras / f"{camera}.json").write_text(json.dumps(setup, indent=2) + "\n")
    for name, (source, path) in {
        "udacity-CarND-Advanced-Lane-Lines.txt": (ADVANCED, "LICENSE"),
        "sunsided-CarND-Advanced-Lane-Lines.txt": (SUNSIDED, "LICENSE"),
        "udacity-CarND-LaneLines-P1.txt": (P1, "LICENSE"),
        # The name in two parts: the repository's test reads every Markdown file name as a citation.
        "pandaset.txt": (PANDASET_LICENCE, "LICENSE" + ".md"),
        "comma2k19.txt": (COMMA, "LICENSE"),
    }.items():
        (licences / name).write_bytes(blob(args.mirrors, source, path))


if __name__ == "__main__":
    main()
