#!/usr/bin/env python3
"""Tests of the trainer (tools/train.py): target coding, auxiliary masks, exact resume, dataset
layouts, geometric augmentation, fine-tuning from safetensors and torchrun/DDP (`make test-tools`).

Runs on a few frames made here by `periphery synth --network-inputs` (the binary is
``$PERIPHERY`` or .build/release/periphery). The KITTI and Cityscapes 3D tests need
`periphery prepare` (and `synth --cityscapes3d`) and are skipped, saying so, without them.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import train as T  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(os.environ.get("PERIPHERY", ROOT / ".build/release/periphery"))
TORCHRUN = Path(sys.executable).parent / "torchrun"


def cli_has(*words: str) -> bool:
    """Whether the CLI knows a subcommand (and options): it accepts `--help` and the help names them."""
    result = subprocess.run([str(BIN), words[0], "--help"], capture_output=True, text=True)
    text = result.stdout + result.stderr
    return result.returncode == 0 and "unknown command" not in text and all(w in text for w in words[1:])


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
        """`docs/guides/evaluation.md` "inside 10 m": a truth at 9.6 m whose prediction lies at 10.1 m is a near miss."""
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


    # --- dataset layouts and don't-care labels ------------------------------------------------------
    def test_unknown_and_out_of_view_labels_are_never_positives(self) -> None:
        """`"label": -1` (a class that is not a Safety40 class) and `"in_view": false` only ignore anchors."""
        car = {"label": 0, "x": 12.0, "y": 1.0, "z": 0.8, "length": 4.5, "width": 1.9, "height": 1.6, "yaw": 0.2}
        for box in ({**car, "label": -1, "class": "unknown"}, {**car, "in_view": False},
                    {**car, "label": -1, "in_view": False}):
            labels, _, _, positive = T.encode_targets([box], 0.8, 1.6)
            self.assertFalse(positive.any(), box)
            self.assertGreater(int((labels == -1).sum()), 0, box)  # an ignored region, not background
            self.assertEqual(T.match([(0.9, 0, 12.0, 1.0, 0.8, 4.5, 1.9, 1.6, 0.2)], [box], 0.6)["fp"], [0])

    def test_overfits_two_frames_and_fine_tunes_from_its_export(self) -> None:
        """A native dir: 12 iterations on 2 frames bring the total loss under half its first value; the
        exported F16 weights load back with --init-from FILE.safetensors."""
        data, out = Path(self.tmp.name) / "two", Path(self.tmp.name) / "overfit"
        subprocess.run([str(BIN), "synth", "--frames", "2", "--seed", "7", "--out", str(data), "--network-inputs"],
                       check=True, capture_output=True)
        weights = out / "w.safetensors"
        T.main(["--data", str(data), "--out", str(out), "--iterations", "12", "--batch", "2", "--warmup", "3",
                "--lr", "1e-3", "--no-photometric", "--threads", "2", "--log-every", "1", "--checkpoint-every", "12",
                "--export", str(weights)])
        entries = [json.loads(line) for line in (out / "train.log").read_text().splitlines()]
        totals = [sum(e[k] for k in ("cls", "box", "dir", "aux")) for e in entries if "cls" in e]
        self.assertEqual(len(totals), 12)
        self.assertLess(totals[-1], 0.5 * totals[0], totals)
        args = T.argparse.Namespace(seed=1, aux_weight=1.0, init_from=weights, verbose=False)
        model, _ = T.build_model(args, torch.device("cpu"))
        trained = torch.load(out / "checkpoint.pt", weights_only=False)["model"]
        for k, v in model.state_dict().items():
            if not k.endswith("num_batches_tracked"):
                self.assertTrue(torch.equal(v, trained[k].half().float()), k)

    def _prepared_layout(self, flag: str, keep) -> None:
        if not cli_has("prepare"):
            self.skipTest(f"`{BIN} prepare` does not exist yet: rerun when it does")
        if not cli_has("synth", flag):
            self.skipTest(f"`{BIN} synth` has no {flag} yet: rerun when it has")
        made = Path(self.tmp.name) / f"made{flag}"
        subprocess.run([str(BIN), "synth", "--frames", "4", "--seed", "5", "--out", str(made), flag],
                       check=True, capture_output=True)
        # Only the foreign layout's own files, so that nothing synthetic-native can be read instead.
        root = Path(self.tmp.name) / f"root{flag}"
        root.mkdir()
        for entry in made.iterdir():
            if keep(entry.name):
                (root / entry.name).symlink_to(entry)
        out = Path(self.tmp.name) / f"run{flag}"
        T.main(["--data", str(root), "--out", str(out), "--iterations", "2", "--batch", "2", "--warmup", "1",
                "--threads", "2", "--log-every", "1"])
        cache = T.cache_path(root, T.argparse.Namespace(cache=None, out=out), None)
        self.assertTrue((cache / "complete").exists())
        self.assertTrue(T.is_native(cache))
        self.assertGreater(len(list((cache / "network").glob("*.bin"))), 0)
        self.assertEqual(torch.load(out / "checkpoint.pt", weights_only=False)["iteration"], 2)
        # A second run reuses the cache (its marker is not rewritten).
        stamp = (cache / "complete").stat().st_mtime_ns
        T.main(["--data", str(root), "--out", str(out), "--iterations", "3", "--batch", "2", "--warmup", "1",
                "--threads", "2", "--log-every", "1", "--resume"])
        self.assertEqual((cache / "complete").stat().st_mtime_ns, stamp)

    def test_trains_from_a_kitti_layout(self) -> None:
        self._prepared_layout("--kitti", lambda name: name not in ("images", "labels", "calibration", "network"))

    def test_trains_from_a_cityscapes3d_layout(self) -> None:
        self._prepared_layout("--cityscapes3d", lambda name: name not in ("images", "labels", "calibration", "network"))

    # --- geometric augmentation --------------------------------------------------------------------
    def test_flip_twice_is_the_identity(self) -> None:
        for frame in list(self.frames.values())[:3]:
            once, twice = T.flip_sample(frame), T.flip_sample(T.flip_sample(frame))
            self.assertFalse(np.array_equal(once.pixels, frame.pixels))
            self.assertTrue(np.array_equal(twice.pixels, frame.pixels))
            self.assertEqual(twice.letterbox, frame.letterbox)
            self.assertTrue(np.array_equal(twice.lut_visibility, frame.lut_visibility))
            vis = frame.lut_visibility > 0
            self.assertTrue(np.array_equal(twice.lut_index[vis], frame.lut_index[vis]))  # indices count where visible
            self.assertEqual(twice.boxes, frame.boxes)
            for a, b in ((twice.labels, frame.labels), (twice.codes, frame.codes), (twice.dirs, frame.dirs),
                         (twice.mask, frame.mask)):
                self.assertTrue(np.array_equal(a, b))

    def test_flipped_sample_is_the_mirrored_world(self) -> None:
        """The flipped sample's targets are those of the mirrored labels, and are the original targets
        mirrored (head cell ix ↔ 20 − ix; classes, ignores, y/z/size codes equal; x code negated;
        rotation code rt' = −2π − 2·ra − rt, since grid yaw g = −yaw − π mirrors to −g − 2π and the
        anchor rotations are 0 and 1.57, not symmetric). The flipped LUT is the contract's LUT of the
        mirrored camera (feature u → 128 − u: the image mirror x → 512 − x over u = x/4) built from
        the camera fitted to the original LUT, up to that fit."""
        mirror_image = np.array([[-1.0, 0, 128], [0, 1, 0], [0, 0, 1]])
        mirror_world = np.diag([1.0, -1.0, 1.0, 1.0])
        for frame in list(self.frames.values())[:3]:
            flipped = T.flip_sample(frame)
            labels, codes, dirs, _ = T.encode_targets(T.mirror_boxes(frame.boxes), *frame.radii)
            self.assertTrue(np.array_equal(flipped.labels, labels))
            self.assertTrue(np.array_equal(flipped.codes, codes))
            self.assertTrue(np.array_equal(flipped.dirs, dirs))
            m = T.MIRROR_ANCHOR
            self.assertTrue(np.array_equal(flipped.labels, frame.labels[m]))
            pos = (flipped.labels >= 0) & (flipped.labels < 4)
            np.testing.assert_allclose(flipped.codes[pos, 0], -frame.codes[m][pos, 0], atol=1e-6)
            np.testing.assert_allclose(flipped.codes[pos, 1:6], frame.codes[m][pos, 1:6], atol=1e-6)
            ra = T.ANCHORS[pos, 6]
            np.testing.assert_allclose(flipped.codes[pos, 6], -2 * np.pi - 2 * ra - frame.codes[m][pos, 6], atol=1e-5)
            P = T.contract_projection(frame.lut_index, frame.lut_visibility)
            index, vis = T.lut_from_projection(mirror_image @ P @ mirror_world)
            same = (vis == flipped.lut_visibility) & ((vis == 0) | (index == flipped.lut_index))
            self.assertGreater(same.mean(), 0.99)  # measured: 99.6-99.8 %

    def test_zoom_keeps_image_and_lut_consistent(self) -> None:
        """s = 1 leaves the pixels and (up to the fitted camera) the LUT unchanged; a zoom by s about a
        point moves each voxel's LUT pixel by the same similarity, u' = s·(u − cx/4) + cx/4."""
        for frame in list(self.frames.values())[:3]:
            same = T.zoom_sample(frame, 1.0, 256.0, 128.0)
            self.assertEqual(same.letterbox, frame.letterbox)
            self.assertTrue(np.array_equal(same.pixels, frame.pixels))
            agree = (same.lut_visibility == frame.lut_visibility) & (
                (frame.lut_visibility == 0) | (same.lut_index == frame.lut_index))
            self.assertGreater(agree.mean(), 0.99)
            s, cx, cy = 1.1, 240.0, 120.0
            zoomed = T.zoom_sample(frame, s, cx, cy)
            both = (zoomed.lut_visibility > 0) & (frame.lut_visibility > 0)
            u, v = frame.lut_index[both] % 128, frame.lut_index[both] // 128
            u2, v2 = zoomed.lut_index[both] % 128, zoomed.lut_index[both] // 128
            self.assertLessEqual(np.abs(u2 - (s * (u - cx / 4) + cx / 4)).max(), 0.5 * s + 0.5 + 0.05)
            self.assertLessEqual(np.abs(v2 - (s * (v - cy / 4) + cy / 4)).max(), 0.5 * s + 0.5 + 0.05)
            self.assertTrue(zoomed.pixels[:, : zoomed.letterbox[1]].max(initial=0) == 0)

    def test_default_augmentation_draws_as_before(self) -> None:
        """Flip and zoom off, photometric on: the samples and RNG stream of the old trainer."""
        frame = next(iter(self.frames.values()))
        a, b = np.random.default_rng(3), np.random.default_rng(3)
        _, pixels = T.augment_frame(frame, T.Augmentation(), a)
        self.assertTrue(np.array_equal(pixels, T.augment(frame.pixels, frame.letterbox, b)))
        self.assertEqual(a.bit_generator.state, b.bit_generator.state)

    # --- torchrun / DDP ---------------------------------------------------------------------------
    def test_torchrun_ranks_take_disjoint_shards_and_match_one_process(self) -> None:
        """`torchrun --nproc-per-node 2` on CPU (Gloo), batch 1 per rank, one iteration: the ranks take
        disjoint frames (positions 0 and 1 of the epoch order) and their synchronised gradients equal a
        single-process reference on the same global batch: max |DDP − reference| ≤ 1e-5 × max |reference|.

        BatchNorm in training mode normalises over each rank's own micro-batch (no SyncBatchNorm), so
        one forward pass over the whole global batch would differ. The reference therefore runs each
        rank's micro-batch separately, from the same initial weights, and averages the two gradients:
        exactly what DDP computes."""
        if not TORCHRUN.exists():
            self.skipTest(f"no {TORCHRUN}")
        out, rec = Path(self.tmp.name) / "ddp", Path(self.tmp.name) / "ddp-record"
        seed = 11
        env = dict(os.environ, OMP_NUM_THREADS="1")
        result = subprocess.run([str(TORCHRUN), "--standalone", "--nproc-per-node", "2", str(ROOT / "tools/train.py"),
                                 "--data", str(self.data), "--out", str(out), "--iterations", "1", "--batch", "1",
                                 "--warmup", "2", "--threads", "1", "--log-every", "1", "--no-photometric",
                                 "--seed", str(seed), "--debug-record", str(rec)],
                                capture_output=True, text=True, env=env, timeout=300)
        self.assertEqual(result.returncode, 0, result.stdout[-3000:] + result.stderr[-3000:])
        seen = [[json.loads(line) for line in (rec / f"rank{r}.jsonl").read_text().splitlines()] for r in (0, 1)]
        names = [seen[r][0]["frames"] for r in (0, 1)]
        self.assertEqual(len(names[0]), 1)
        self.assertFalse(set(names[0]) & set(names[1]))
        order = torch.load(out / "checkpoint.pt", weights_only=False)["order"]
        self.assertEqual(names[0] + names[1], order[:2])
        self.assertEqual(len(torch.load(out / "checkpoint.pt", weights_only=False)["rng_ranks"]), 2)
        self.assertEqual(len((out / "train.log").read_text().splitlines()), 1)  # rank 0 alone writes it
        ddp = [torch.load(rec / f"rank{r}-iter1.pt") for r in (0, 1)]
        args = T.argparse.Namespace(seed=seed, aux_weight=1.0, init_from=None, verbose=False)
        model, aux = T.build_model(args, torch.device("cpu"))
        net = T.Trainable(model, aux)
        params = list(model.named_parameters()) + [("aux." + n, p) for n, p in aux.named_parameters()]
        frames = T.load_frames([self.data], 0.8, 1.6)  # the trainer's default radii
        grads = []
        for rank in (0, 1):
            chunk = [frames[k] for k in names[rank]]
            images, idx, vis, labels, codes, dirs, masks = T.batch(chunk, None, torch.device("cpu"))
            outputs = net(images, idx, vis)
            parts = T.losses(outputs[:3], labels, codes, dirs, 2.0, 0.8)
            parts["aux"] = T.aux_loss(outputs[3], masks, 1.0)
            net.zero_grad(set_to_none=True)
            sum(parts.values()).backward()
            grads.append({n: p.grad.detach().clone() for n, p in params})
        self.assertEqual(set(ddp[0]), set(grads[0]))
        scale = max(float(((grads[0][n] + grads[1][n]) / 2).abs().max()) for n in grads[0])
        worst = max(float((ddp[r][n] - (grads[0][n] + grads[1][n]) / 2).abs().max()) for r in (0, 1) for n in grads[0])
        self.assertLessEqual(worst, 1e-5 * scale, (worst, scale))


if __name__ == "__main__":
    torch.set_num_threads(1)
    unittest.main()
