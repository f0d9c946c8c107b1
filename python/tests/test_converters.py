#!/usr/bin/env python3
"""Round trips and refusals of the weight converters (`make test-tools`).

Everything is made here from the PyTorch reference with the committed random weights
(``Weights/safety40-random-init.safetensors``, BN statistics included):

(a) ``torch.save`` → ``convert_checkpoint.py`` → ``periphery forward`` matches PyTorch within
    1e-4 relative (float32);
(b) ``coremltools.convert`` to two mlprogram packages → ``convert_coreml.py`` → ``periphery
    forward`` matches PyTorch within 2e-2 relative on the head outputs (float16 weights), with the
    same ten best candidates and the same decoded detections;
(c) corrupted or foreign checkpoints and packages are refused with errors that name the file and
    the key or op.

Relative error is ``max |swift − torch| / max |torch|`` per output. The binary is ``$PERIPHERY``
or .build/release/periphery.
"""
from __future__ import annotations

import os
import pickle
import shutil
import subprocess
import sys
import tempfile
import unittest
import warnings
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import convert_checkpoint as ck  # noqa: E402
import convert_coreml as cc  # noqa: E402
import safety40_torch as s40  # noqa: E402
import verify_parity as vp  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(os.environ.get("PERIPHERY", ROOT / ".build/release/periphery"))
RANDOM_WEIGHTS = ROOT / "Weights/safety40-random-init.safetensors"
CALIBRATION = vp.DEFAULT_CALIBRATION


def setUpModule() -> None:
    global TMP, MODEL, IMAGES, REFERENCE, PACKAGES
    warnings.simplefilter("ignore")
    TMP = Path(tempfile.mkdtemp(prefix="periphery-converters-"))
    subprocess.run([str(BIN), "lut", "--calibration", str(CALIBRATION), "--out", str(TMP / "lut.bin")],
                   check=True, capture_output=True)
    MODEL = s40.load_state(RANDOM_WEIGHTS)
    IMAGES = vp.inputs(1, CALIBRATION, s40.load_lut(TMP / "lut.bin"))
    REFERENCE = [vp.torch_outputs(MODEL, case.image, case.lut) for case in IMAGES]
    import export_coreml

    PACKAGES = export_coreml.export(MODEL, TMP / "packages")


def tearDownModule() -> None:
    shutil.rmtree(TMP, ignore_errors=True)


class Config:
    """Stands in for an mmcv Config pickled beside the weights."""


def round_trip(weights: Path, label: str):
    """(swift, reference, relative error per output) for every input; the errors are printed."""
    out = []
    for got, want in zip((vp.swift_outputs(BIN, weights, case.calibration, case.image, TMP) for case in IMAGES), REFERENCE):
        errors = {key: vp.relative_error(got[key], want[key]) for key in vp.OUTPUTS}
        print(f"\n  {label} round trip, relative errors: {errors}", file=sys.stderr)
        out.append((got, want, errors))
    return out


class CheckpointRoundTrip(unittest.TestCase):
    def test_nested_prefixed_checkpoint_runs_like_pytorch(self) -> None:
        """mmcv layout: state dict under `state_dict`, DataParallel `module.` prefixes, BN counters."""
        state = {f"module.{k}": v for k, v in MODEL.state_dict().items()}
        state["module.backbone.bn1.num_batches_tracked"] = torch.tensor(7)
        path = TMP / "epoch_11.pth"
        torch.save({"state_dict": state, "meta": {"epoch": 11}}, path)
        out = TMP / "from_checkpoint.safetensors"
        metadata = ck.convert(path, out)
        self.assertEqual(metadata["state_dict_at"], "state_dict")
        self.assertEqual(metadata["bn_folded"], "false")
        for got, want, errors in round_trip(out, "checkpoint"):
            for key in vp.OUTPUTS:
                self.assertLessEqual(errors[key], 1e-4, key)
            self.assertEqual(vp.top_candidates(got["classes"]), vp.top_candidates(want["classes"]))

    def test_layouts_and_aliases_map_to_the_same_tensors(self) -> None:
        plain = {k: v for k, v in MODEL.state_dict().items() if not k.endswith("num_batches_tracked")}
        aliased = {("img_backbone." + k[len("backbone."):] if k.startswith("backbone.") else
                    "pts_bbox_head." + k[len("bbox_head."):] if k.startswith("bbox_head.") else k): v
                   for k, v in plain.items()}
        for layout in ({"model": {f"_orig_mod.{k}": v for k, v in plain.items()}}, {"state_dict": aliased}, plain):
            state, _ = ck.find_state_dict(layout, Path("x.pth"))
            tensors, counts = ck.map_names(state, Path("x.pth"))
            self.assertEqual(sorted(tensors), sorted(plain))
            self.assertEqual(counts["mapped"], len(plain))
            np.testing.assert_array_equal(tensors["bbox_head.conv_cls.bias"], plain["bbox_head.conv_cls.bias"].numpy())

    def test_f16_output_is_f16(self) -> None:
        path = TMP / "plain.pth"
        torch.save(MODEL.state_dict(), path)
        out = TMP / "plain16.safetensors"
        ck.convert(path, out, dtype="f16")
        tensors, metadata = s40.read_safetensors(out)
        self.assertEqual({t.dtype for t in tensors.values()}, {np.dtype(np.float16)})
        self.assertEqual(metadata["dtype"], "F16")


class CheckpointRefusals(unittest.TestCase):
    def refused(self, payload, *fragments: str, **options) -> str:
        path = TMP / "bad.pth"
        if isinstance(payload, bytes):
            path.write_bytes(payload)
        else:
            torch.save(payload, path)
        with self.assertRaises(ck.CheckpointError) as caught:
            ck.convert(path, TMP / "bad.safetensors", **options)
        message = str(caught.exception)
        for fragment in (str(path), *fragments):
            self.assertIn(fragment, message)
        self.assertFalse((TMP / "bad.safetensors").exists())
        return message

    def test_unmapped_keys_are_listed(self) -> None:
        state = dict(MODEL.state_dict()) | {"backbone.fc.weight": torch.zeros(10, 512), "aux_head.conv.weight": torch.zeros(1)}
        self.refused(state, "2 keys map to no Safety40 tensor", "backbone.fc.weight", "aux_head.conv.weight")
        self.refused(state, "backbone.fc.weight", drop=["aux_head.*"])

    def test_wrong_shape_and_missing_tensors_are_named(self) -> None:
        state = dict(MODEL.state_dict())
        state["neck_3d.fuse.weight"] = torch.zeros(256, 256, 1, 1)  # a four-level grid's fuse
        self.refused(state, "neck_3d.fuse.weight", "(256, 256, 1, 1)")
        state = dict(MODEL.state_dict())
        del state["bbox_head.conv_dir_cls.bias"]
        self.refused(state, "missing tensors", "bbox_head.conv_dir_cls.bias")

    def test_truncated_and_foreign_files_are_refused(self) -> None:
        path = TMP / "whole.pth"
        torch.save(MODEL.state_dict(), path)
        self.refused(path.read_bytes()[: 100_000], "cannot load the checkpoint")
        self.refused(b"not a checkpoint at all", "cannot load the checkpoint")
        self.refused(torch.zeros(3), "no state dict found")
        self.refused({"optimizer": {"lr": 0.1}}, "no state dict found")

    def test_pickled_objects_need_trust(self) -> None:
        path = TMP / "bad.pth"
        with open(path, "wb") as f:
            torch.save({"state_dict": MODEL.state_dict(), "meta": {"config": Config}}, f, pickle_module=pickle)
        with self.assertRaises(ck.CheckpointError) as caught:
            ck.convert(path, TMP / "bad.safetensors")
        self.assertIn("--trust-pickle", str(caught.exception))


class CoreMLRoundTrip(unittest.TestCase):
    def test_packages_run_like_pytorch_within_float16(self) -> None:
        out = TMP / "from_coreml.safetensors"
        metadata = cc.convert(*PACKAGES, out)
        self.assertEqual(metadata["dtype"], "F16")
        self.assertEqual(metadata["folded_by_converter"], "false")
        tensors, _ = s40.read_safetensors(out)
        self.assertEqual(len(tensors), 2 * len(s40.conv_specs()))  # weight + bias per conv, no BN
        for got, want, errors in round_trip(out, "core ml"):
            for key in vp.HEAD:
                self.assertLessEqual(errors[key], 2e-2, key)
            self.assertEqual(vp.top_candidates(got["classes"]), vp.top_candidates(want["classes"]))
            for threshold in (0.5, 0.2):
                self.assertTrue(vp.same_detections(vp.detections(got, threshold), vp.detections(want, threshold)))
        # Random weights give few confident candidates; at 0.2 the comparison has enough to bite.
        self.assertGreaterEqual(len(vp.detections(REFERENCE[0], 0.2)), 5)

    def test_interpreted_program_matches_pytorch(self) -> None:
        """The MIL interpreter that verify_parity.py trusts agrees with the model the packages came from."""
        got = vp.CoreMLSource(*PACKAGES)(IMAGES[0].image, IMAGES[0].lut)
        for key in vp.OUTPUTS:
            self.assertLessEqual(vp.relative_error(got[key], REFERENCE[0][key]), 2e-2, key)


class CoreMLRefusals(unittest.TestCase):
    def copy(self, name: str) -> Path:
        target = TMP / "broken" / name
        shutil.rmtree(target.parent, ignore_errors=True)
        shutil.copytree(PACKAGES[0], target.parent / "backbone_static.mlpackage")
        shutil.copytree(PACKAGES[1], target.parent / "head_static.mlpackage")
        return target.parent

    def refused(self, backbone: Path, head: Path, *fragments: str) -> None:
        with self.assertRaises(cc.ConversionError) as caught:
            cc.convert(backbone, head, TMP / "refused.safetensors")
        for fragment in fragments:
            self.assertIn(fragment, str(caught.exception))
        self.assertFalse((TMP / "refused.safetensors").exists())

    def test_swapped_packages_are_refused(self) -> None:
        self.refused(PACKAGES[1], PACKAGES[0], str(PACKAGES[1]), "not the Safety40 backbone", "conv 13 (expected 29)")

    def test_truncated_weights_and_missing_files_are_refused(self) -> None:
        folder = self.copy("weights")
        blob = folder / "head_static.mlpackage/Data/com.apple.CoreML/weights/weight.bin"
        blob.write_bytes(blob.read_bytes()[: 1_000_000])
        self.refused(folder / "backbone_static.mlpackage", folder / "head_static.mlpackage", "head_static.mlpackage")
        (folder / "backbone_static.mlpackage/Manifest.json").unlink()
        self.refused(folder / "backbone_static.mlpackage", PACKAGES[1], "no Manifest.json")
        self.refused(TMP / "nowhere.mlpackage", PACKAGES[1], "no such directory")

    def test_foreign_network_is_refused_naming_the_op(self) -> None:
        import coremltools as ct

        class Foreign(torch.nn.Module):
            def forward(self, x: torch.Tensor) -> torch.Tensor:
                return torch.sigmoid(torch.nn.functional.avg_pool2d(x, 8))

        traced = torch.jit.trace(Foreign().eval(), torch.zeros(s40.IMAGE_SHAPE))
        path = TMP / "foreign.mlpackage"
        ct.convert(traced, inputs=[ct.TensorType(name="image", shape=s40.IMAGE_SHAPE)], convert_to="mlprogram").save(str(path))
        self.refused(path, PACKAGES[1], str(path), "which the Safety40 backbone does not have")


if __name__ == "__main__":
    unittest.main(verbosity=2)
