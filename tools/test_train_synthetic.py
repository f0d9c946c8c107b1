#!/usr/bin/env python3
"""Tests of the trainer's target coding, auxiliary masks and exact resume (`make test-tools`).

Runs on a few frames made here by `periphery synth --network-inputs` (the binary is
``$PERIPHERY`` or .build/release/periphery).
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import train_synthetic as T  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(os.environ.get("PERIPHERY", ROOT / ".build/release/periphery"))


class TrainerTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.tmp = tempfile.TemporaryDirectory()
        cls.data = Path(cls.tmp.name) / "data"
        subprocess.run([str(BIN), "synth", "--frames", "6", "--seed", "31", "--out", str(cls.data), "--network-inputs"],
                       check=True, capture_output=True)
        cls.frames = T.load_frames([cls.data], 1.0, 2.0)

    @classmethod
    def tearDownClass(cls) -> None:
        cls.tmp.cleanup()

    def test_targets_decode_back_to_the_labels(self) -> None:
        """Perfect logits on the positives and the encoded codes decode to every labelled vehicle."""
        boxes = 0
        for frame in self.frames.values():
            positive = (frame.labels >= 0) & (frame.labels < 4)
            classes = np.full((6720, 4), -10.0)
            classes[positive, frame.labels[positive]] = 10.0
            dirs = np.zeros((6720, 2))
            dirs[np.arange(6720), frame.dirs] = 5.0
            result = T.match(T.decode(classes, frame.codes, dirs, 0.5), frame.boxes, 0.6)
            inside = [b for b in frame.boxes if 0 <= b["x"] <= 40 and -10 <= b["y"] <= 10]
            boxes += len(inside)
            self.assertEqual(result["fn"][0], 0)
            self.assertLess(max(result["centre"], default=0), 1e-6)
            self.assertLess(max(result["yaw"], default=0), 1e-4)
        self.assertGreater(boxes, 3)

    def test_every_vehicle_has_positives_and_no_anchor_is_shared(self) -> None:
        for frame in self.frames.values():
            for box in frame.boxes:
                g = T.vehicle_to_grid(box)
                if not (-10 <= g[0] <= 10 and -0.5 <= g[1] <= 39):
                    continue
                nearest = np.argmin(np.hypot(T.CELL_CENTRES[:, 0] - g[0], T.CELL_CENTRES[:, 1] - g[1]))
                anchors = frame.labels[nearest * 8 : nearest * 8 + 8]
                if T.in_view(box):
                    self.assertTrue((anchors >= 0).all())  # positive (its own or a nearer box's), never ignored
                else:
                    self.assertTrue((anchors != 4).all())  # out of the network's view: never taught as background

    def test_near_matching_restricts_both_sides(self) -> None:
        """`docs/evaluation.md` "inside 10 m": a truth at 9.6 m whose prediction lies at 10.1 m is a near miss."""
        truth = [{"label": 0, "x": 9.6, "y": 0.0, "yaw": 0.0, "in_view": True}]
        dets = [(0.9, 0, 10.1, 0.0, 0.8, 4.5, 1.9, 1.5, 0.0)]
        self.assertEqual(T.match(dets, truth, 0.6)["tp"], [1])
        near = T.match(dets, truth, 0.6, max_range=10.0)
        self.assertEqual((near["tp"], near["fp"], near["fn"]), ([0], [0], [1]))

    def test_two_wheeler_weight_scales_only_two_wheeler_positives(self) -> None:
        frame = next(f for f in self.frames.values() if ((f.labels >= 0) & (f.labels < 4)).any())
        labels = torch.from_numpy(frame.labels.astype(np.int64))[None]
        codes = torch.from_numpy(frame.codes.astype(np.float32))[None]
        dirs = torch.from_numpy(frame.dirs.astype(np.int64))[None]
        torch.manual_seed(0)
        outputs = (torch.randn(1, 6720, 4), torch.randn(1, 6720, 9), torch.randn(1, 6720, 2))
        base = T.losses(outputs, labels, codes, dirs, 2.0, 0.8)
        same = T.losses(outputs, labels, codes, dirs, 2.0, 0.8, two_wheeler_weight=1.0)
        heavy = T.losses(outputs, labels, codes, dirs, 2.0, 0.8, two_wheeler_weight=3.0)
        self.assertEqual(float(base["cls"]), float(same["cls"]))
        self.assertEqual(float(base["box"]), float(heavy["box"]))
        if (frame.labels == 2).any():
            self.assertGreater(float(heavy["cls"]), float(base["cls"]))
        else:
            self.assertEqual(float(heavy["cls"]), float(base["cls"]))

    def test_near_box_weight_scales_only_near_positives(self) -> None:
        """Box codes of positives within the range weigh W times; classes and far positives do not change."""
        truth = [{"label": 0, "x": 8.0, "y": 1.0, "z": 0.8, "length": 4.5, "width": 1.9, "height": 1.6, "yaw": 0.0},
                 {"label": 0, "x": 30.0, "y": -2.0, "z": 0.8, "length": 4.5, "width": 1.9, "height": 1.6, "yaw": 0.0}]
        def box_loss(boxes, **kw):
            labels, codes, dirs, _ = T.encode_targets(boxes, 1.0, 2.0)
            torch.manual_seed(1)
            outputs = (torch.randn(1, 6720, 4), torch.randn(1, 6720, 9), torch.randn(1, 6720, 2))
            return T.losses(outputs, torch.from_numpy(labels)[None], torch.from_numpy(codes)[None],
                            torch.from_numpy(dirs)[None], 2.0, 0.8, **kw)
        base = box_loss(truth)
        heavy = box_loss(truth, near_box_weight=3.0, near_box_range=14.0)
        near_only = box_loss(truth[:1]), box_loss(truth[:1], near_box_weight=3.0, near_box_range=14.0)
        far_only = box_loss(truth[1:]), box_loss(truth[1:], near_box_weight=3.0, near_box_range=14.0)
        self.assertEqual(float(base["cls"]), float(heavy["cls"]))
        self.assertAlmostEqual(float(near_only[1]["box"]), 3.0 * float(near_only[0]["box"]), places=4)
        self.assertEqual(float(far_only[1]["box"]), float(far_only[0]["box"]))
        self.assertGreater(float(heavy["box"]), float(base["box"]))

    def test_lut_camera_fits_the_lut(self) -> None:
        """The camera fitted to a LUT sends each visible voxel to its LUT pixel within the LUT's rounding."""
        for frame in self.frames.values():
            P = T.feature_projection(frame.lut_index, frame.lut_visibility)
            vis = frame.lut_visibility > 0
            h = np.concatenate([T.VOXEL_POINTS[vis], np.ones((int(vis.sum()), 1))], 1) @ P.T
            u, v = h[:, 0] / h[:, 2], h[:, 1] / h[:, 2]
            self.assertLess(np.median(np.abs(u - (frame.lut_index[vis] % 128 + 0.5))), 0.5)
            self.assertLess(np.median(np.abs(v - (frame.lut_index[vis] // 128 + 0.5))), 0.5)
            self.assertTrue((h[:, 2] > 0).all())

    def test_resume_is_exact(self) -> None:
        """Four iterations straight equal two, a stop, and two more from the checkpoint, bit for bit."""
        common = ["--data", str(self.data), "--batch", "2", "--warmup", "2", "--threads", "1", "--checkpoint-every", "1",
                  "--log-every", "1"]
        a, b = Path(self.tmp.name) / "a", Path(self.tmp.name) / "b"
        T.main(common + ["--out", str(a), "--iterations", "4"])
        T.main(common + ["--out", str(b), "--iterations", "2"])
        T.main(common + ["--out", str(b), "--iterations", "4", "--resume"])
        ca = torch.load(a / "checkpoint.pt", weights_only=False)
        cb = torch.load(b / "checkpoint.pt", weights_only=False)
        self.assertEqual(ca["iteration"], 4)
        self.assertEqual(cb["iteration"], 4)
        for k in ca["model"]:
            self.assertTrue(torch.equal(ca["model"][k], cb["model"][k]), k)
        for k in ca["aux"]:
            self.assertTrue(torch.equal(ca["aux"][k], cb["aux"][k]), k)


if __name__ == "__main__":
    torch.set_num_threads(1)
    unittest.main()
