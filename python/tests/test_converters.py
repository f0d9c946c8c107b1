"""Round trips and refusals of the weight converters (``periphery.convert``, `make test-tools`).

Everything is made here from the PyTorch reference with the committed random weights
(``Weights/safety40-random-init.safetensors``, BN statistics included):

(a) ``torch.save`` → ``periphery.convert.checkpoint`` → ``periphery forward`` matches PyTorch within
    1e-4 relative (float32);
(b) ``coremltools.convert`` to two mlprogram packages → ``periphery.convert.coreml`` → ``periphery
    forward`` matches PyTorch within 2e-2 relative on the head outputs (float16 weights), with the
    same ten best candidates and the same decoded detections;
(c) corrupted or foreign checkpoints and packages are refused with errors that name the file and
    the key or op.

Relative error is ``max |swift − torch| / max |torch|`` per output. The binary is ``$PERIPHERY``
or .build/release/periphery.
"""
from __future__ import annotations

import pickle
import shutil
import subprocess
import sys
from pathlib import Path
from typing import List, NamedTuple

import numpy as np
import pytest
import torch

from periphery.convert import checkpoint as ck
from periphery.convert import coreml as cc
from periphery.convert import verify_parity as vp
from periphery.reference import safety40 as s40

# coremltools and torch warn at length about the conversions made here; none of it is a finding.
pytestmark = pytest.mark.filterwarnings("ignore")

ROOT = Path(__file__).resolve().parents[2]
RANDOM_WEIGHTS = ROOT / "Weights/safety40-random-init.safetensors"
CALIBRATION = vp.DEFAULT_CALIBRATION


class Setup(NamedTuple):
    """What every test shares (made once per module): the scratch folder, the reference model with
    the random weights, the inputs, PyTorch's outputs on them and the exported Core ML packages."""

    tmp: Path
    binary: Path
    model: s40.Safety40
    images: List[vp.Input]
    reference: List[dict]
    packages: tuple


@pytest.fixture(scope="module")
def setup(periphery_cli: Path, tmp_path_factory) -> Setup:
    from periphery.convert import export_coreml

    tmp = tmp_path_factory.mktemp("converters")
    subprocess.run([str(periphery_cli), "lut", "--calibration", str(CALIBRATION), "--out", str(tmp / "lut.bin")],
                   check=True, capture_output=True)
    model = s40.load_state(RANDOM_WEIGHTS)
    images = vp.inputs(1, CALIBRATION, s40.load_lut(tmp / "lut.bin"))
    reference = [vp.torch_outputs(model, case.image, case.lut) for case in images]
    packages = export_coreml.export(model, tmp / "packages")
    return Setup(tmp, periphery_cli, model, images, reference, packages)


class Config:
    """Stands in for an mmcv Config pickled beside the weights."""


def round_trip(setup: Setup, weights: Path, label: str):
    """(swift, reference, relative error per output) for every input; the errors are printed."""
    out = []
    swift = (vp.swift_outputs(setup.binary, weights, case.calibration, case.image, setup.tmp) for case in setup.images)
    for got, want in zip(swift, setup.reference):
        errors = {key: vp.relative_error(got[key], want[key]) for key in vp.OUTPUTS}
        print(f"\n  {label} round trip, relative errors: {errors}", file=sys.stderr)
        out.append((got, want, errors))
    return out


# --- (a) checkpoints ------------------------------------------------------------------------------
def test_nested_prefixed_checkpoint_runs_like_pytorch(setup: Setup) -> None:
    """mmcv layout: state dict under `state_dict`, DataParallel `module.` prefixes, BN counters."""
    state = {f"module.{k}": v for k, v in setup.model.state_dict().items()}
    state["module.backbone.bn1.num_batches_tracked"] = torch.tensor(7)
    path = setup.tmp / "epoch_11.pth"
    torch.save({"state_dict": state, "meta": {"epoch": 11}}, path)
    out = setup.tmp / "from_checkpoint.safetensors"
    metadata = ck.convert(path, out)
    assert metadata["state_dict_at"] == "state_dict"
    assert metadata["bn_folded"] == "false"
    for got, want, errors in round_trip(setup, out, "checkpoint"):
        for key in vp.OUTPUTS:
            assert errors[key] <= 1e-4, key
        assert vp.top_candidates(got["classes"]) == vp.top_candidates(want["classes"])


def test_layouts_and_aliases_map_to_the_same_tensors(setup: Setup) -> None:
    plain = {k: v for k, v in setup.model.state_dict().items() if not k.endswith("num_batches_tracked")}
    aliased = {("img_backbone." + k[len("backbone."):] if k.startswith("backbone.") else
                "pts_bbox_head." + k[len("bbox_head."):] if k.startswith("bbox_head.") else k): v
               for k, v in plain.items()}
    for layout in ({"model": {f"_orig_mod.{k}": v for k, v in plain.items()}}, {"state_dict": aliased}, plain):
        state, _ = ck.find_state_dict(layout, Path("x.pth"))
        tensors, counts = ck.map_names(state, Path("x.pth"))
        assert sorted(tensors) == sorted(plain)
        assert counts["mapped"] == len(plain)
        np.testing.assert_array_equal(tensors["bbox_head.conv_cls.bias"], plain["bbox_head.conv_cls.bias"].numpy())


def test_f16_output_is_f16(setup: Setup) -> None:
    path = setup.tmp / "plain.pth"
    torch.save(setup.model.state_dict(), path)
    out = setup.tmp / "plain16.safetensors"
    ck.convert(path, out, dtype="f16")
    tensors, metadata = s40.read_safetensors(out)
    assert {t.dtype for t in tensors.values()} == {np.dtype(np.float16)}
    assert metadata["dtype"] == "F16"


# --- (c) checkpoint refusals ------------------------------------------------------------------------
def refused_checkpoint(setup: Setup, payload, *fragments: str, **options) -> str:
    path = setup.tmp / "bad.pth"
    if isinstance(payload, bytes):
        path.write_bytes(payload)
    else:
        torch.save(payload, path)
    with pytest.raises(ck.CheckpointError) as caught:
        ck.convert(path, setup.tmp / "bad.safetensors", **options)
    message = str(caught.value)
    for fragment in (str(path), *fragments):
        assert fragment in message
    assert not (setup.tmp / "bad.safetensors").exists()
    return message


def test_unmapped_keys_are_listed(setup: Setup) -> None:
    state = dict(setup.model.state_dict()) | {"backbone.fc.weight": torch.zeros(10, 512),
                                              "aux_head.conv.weight": torch.zeros(1)}
    refused_checkpoint(setup, state, "2 keys map to no Safety40 tensor", "backbone.fc.weight", "aux_head.conv.weight")
    refused_checkpoint(setup, state, "backbone.fc.weight", drop=["aux_head.*"])


def test_wrong_shape_and_missing_tensors_are_named(setup: Setup) -> None:
    state = dict(setup.model.state_dict())
    state["neck_3d.fuse.weight"] = torch.zeros(256, 256, 1, 1)  # a four-level grid's fuse
    refused_checkpoint(setup, state, "neck_3d.fuse.weight", "(256, 256, 1, 1)")
    state = dict(setup.model.state_dict())
    del state["bbox_head.conv_dir_cls.bias"]
    refused_checkpoint(setup, state, "missing tensors", "bbox_head.conv_dir_cls.bias")


def test_truncated_and_foreign_files_are_refused(setup: Setup) -> None:
    path = setup.tmp / "whole.pth"
    torch.save(setup.model.state_dict(), path)
    refused_checkpoint(setup, path.read_bytes()[: 100_000], "cannot load the checkpoint")
    refused_checkpoint(setup, b"not a checkpoint at all", "cannot load the checkpoint")
    refused_checkpoint(setup, torch.zeros(3), "no state dict found")
    refused_checkpoint(setup, {"optimizer": {"lr": 0.1}}, "no state dict found")


def test_pickled_objects_need_trust(setup: Setup) -> None:
    path = setup.tmp / "bad.pth"
    with open(path, "wb") as f:
        torch.save({"state_dict": setup.model.state_dict(), "meta": {"config": Config}}, f, pickle_module=pickle)
    with pytest.raises(ck.CheckpointError) as caught:
        ck.convert(path, setup.tmp / "bad.safetensors")
    assert "--trust-pickle" in str(caught.value)


# --- (b) Core ML packages -------------------------------------------------------------------------
def test_packages_run_like_pytorch_within_float16(setup: Setup) -> None:
    out = setup.tmp / "from_coreml.safetensors"
    metadata = cc.convert(*setup.packages, out)
    assert metadata["dtype"] == "F16"
    assert metadata["folded_by_converter"] == "false"
    tensors, _ = s40.read_safetensors(out)
    assert len(tensors) == 2 * len(s40.conv_specs())  # weight + bias per conv, no BN
    for got, want, errors in round_trip(setup, out, "core ml"):
        for key in vp.HEAD:
            assert errors[key] <= 2e-2, key
        assert vp.top_candidates(got["classes"]) == vp.top_candidates(want["classes"])
        for threshold in (0.5, 0.2):
            assert vp.same_detections(vp.detections(got, threshold), vp.detections(want, threshold))
    # Random weights give few confident candidates; at 0.2 the comparison has enough to bite.
    assert len(vp.detections(setup.reference[0], 0.2)) >= 5


def test_interpreted_program_matches_pytorch(setup: Setup) -> None:
    """The MIL interpreter that verify_parity trusts agrees with the model the packages came from."""
    got = vp.CoreMLSource(*setup.packages)(setup.images[0].image, setup.images[0].lut)
    for key in vp.OUTPUTS:
        assert vp.relative_error(got[key], setup.reference[0][key]) <= 2e-2, key


# --- (c) Core ML refusals -------------------------------------------------------------------------
def broken_copy(setup: Setup, name: str) -> Path:
    target = setup.tmp / "broken" / name
    shutil.rmtree(target.parent, ignore_errors=True)
    shutil.copytree(setup.packages[0], target.parent / "backbone_static.mlpackage")
    shutil.copytree(setup.packages[1], target.parent / "head_static.mlpackage")
    return target.parent


def refused_packages(setup: Setup, backbone: Path, head: Path, *fragments: str) -> None:
    with pytest.raises(cc.ConversionError) as caught:
        cc.convert(backbone, head, setup.tmp / "refused.safetensors")
    for fragment in fragments:
        assert fragment in str(caught.value)
    assert not (setup.tmp / "refused.safetensors").exists()


def test_swapped_packages_are_refused(setup: Setup) -> None:
    backbone, head = setup.packages
    refused_packages(setup, head, backbone, str(head), "not the Safety40 backbone", "conv 13 (expected 29)")


def test_truncated_weights_and_missing_files_are_refused(setup: Setup) -> None:
    folder = broken_copy(setup, "weights")
    blob = folder / "head_static.mlpackage/Data/com.apple.CoreML/weights/weight.bin"
    blob.write_bytes(blob.read_bytes()[: 1_000_000])
    refused_packages(setup, folder / "backbone_static.mlpackage", folder / "head_static.mlpackage", "head_static.mlpackage")
    (folder / "backbone_static.mlpackage/Manifest.json").unlink()
    refused_packages(setup, folder / "backbone_static.mlpackage", setup.packages[1], "no Manifest.json")
    refused_packages(setup, setup.tmp / "nowhere.mlpackage", setup.packages[1], "no such directory")


def test_foreign_network_is_refused_naming_the_op(setup: Setup) -> None:
    import coremltools as ct

    class Foreign(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.sigmoid(torch.nn.functional.avg_pool2d(x, 8))

    traced = torch.jit.trace(Foreign().eval(), torch.zeros(s40.IMAGE_SHAPE))
    path = setup.tmp / "foreign.mlpackage"
    ct.convert(traced, inputs=[ct.TensorType(name="image", shape=s40.IMAGE_SHAPE)], convert_to="mlprogram").save(str(path))
    refused_packages(setup, path, setup.packages[1], str(path), "which the Safety40 backbone does not have")
