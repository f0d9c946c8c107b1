"""Converts a Safety40 PyTorch checkpoint (Fast-BEV / mmdet3d state dict) to safetensors.

    periphery-convert-checkpoint CKPT.pth -o OUT.safetensors [--dtype f32|f16]

The checkpoint may be a plain state dict or one nested under ``state_dict`` or ``model`` (mmcv,
Lightning and plain ``torch.save`` layouts), with wrapper prefixes on its keys (``module.`` from
DataParallel, ``_orig_mod.`` from ``torch.compile``, ``model.`` from Lightning). Names are mapped
to the tensor names of `docs/reference/network.md`, which are the Fast-BEV checkpoint's own; the
mmdet3d spellings ``img_backbone.``, ``img_neck.`` and ``pts_bbox_head.`` map to ``backbone.``,
``neck.`` and ``bbox_head.``. ``num_batches_tracked`` is dropped. Anything else that does not map
to a tensor of the network, a shape that does not fit, or a tensor the network needs and the
checkpoint lacks, stops the conversion with the keys listed (``--drop GLOB`` discards keys the
user knows to be foreign, such as an auxiliary head). Batch norms are kept as they are (unfolded);
layers that arrive BN-folded (conv with bias, no BN) stay folded.

Checkpoints are pickles: by default they are loaded with ``torch.load(weights_only=True)``, which
runs no code from the file. A checkpoint that also pickles Python objects (an mmcv config, say)
needs ``--trust-pickle``, which runs the pickle: use it only on files from a source you trust.
"""
from __future__ import annotations

import argparse
import fnmatch
import hashlib
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np
import torch

from periphery.reference import safety40 as s40

CONVERTER_VERSION = "1"
WRAPPER_PREFIXES = ("module.", "_orig_mod.", "model.")
ALIASES = {"img_backbone.": "backbone.", "img_neck.": "neck.", "pts_bbox_head.": "bbox_head."}
NESTING_KEYS = ("state_dict", "model")


class CheckpointError(Exception):
    """A checkpoint that cannot be read or mapped; the message names the file and the keys."""


def load_checkpoint(path: Path, trust_pickle: bool = False) -> object:
    if not path.is_file():
        raise CheckpointError(f"{path}: no such file")
    try:
        return torch.load(path, map_location="cpu", weights_only=not trust_pickle)
    except Exception as error:  # torch raises UnpicklingError, RuntimeError, EOFError, ValueError …
        text = str(error).splitlines()[0] if str(error) else type(error).__name__
        hint = ("; it pickles Python objects besides tensors - rerun with --trust-pickle only if you trust its source"
                if not trust_pickle and "weights_only" in str(error) else "")
        raise CheckpointError(f"{path}: cannot load the checkpoint ({type(error).__name__}: {text}){hint}") from error


def find_state_dict(checkpoint: object, path: Path) -> Tuple[Dict[str, torch.Tensor], str]:
    """The tensor dictionary inside a checkpoint and where it was found (e.g. ``state_dict``)."""
    where: List[str] = []
    node = checkpoint
    for _ in range(4):
        if not isinstance(node, dict):
            break
        if any(isinstance(v, torch.Tensor) for v in node.values()):
            tensors = {k: v for k, v in node.items() if isinstance(v, torch.Tensor)}
            others = sorted(str(k) for k, v in node.items() if not isinstance(v, torch.Tensor))
            if others:
                raise CheckpointError(f"{path}: the state dict at {'/'.join(where) or 'top level'} also holds "
                                      f"non-tensor entries {others[:6]}")
            return tensors, "/".join(where) or "top level"
        nested = next((k for k in NESTING_KEYS if isinstance(node.get(k), dict)), None)
        if nested is None:
            break
        where.append(nested)
        node = node[nested]
    keys = sorted(str(k) for k in node)[:8] if isinstance(node, dict) else []
    raise CheckpointError(f"{path}: no state dict found (looked at the top level and under {list(NESTING_KEYS)}; "
                          f"keys there: {keys})")


def map_names(state: Dict[str, torch.Tensor], path: Path, drop: Sequence[str] = ()) -> Tuple[Dict[str, np.ndarray], Dict[str, int]]:
    """Checkpoint keys → network tensor names; returns the tensors and counts of what was done."""
    known = set(s40.weight_names(s40.Safety40())) | {f"{spec.name}.bias" for spec in s40.conv_specs() if spec.bn}
    mapped: Dict[str, np.ndarray] = {}
    origin: Dict[str, str] = {}
    unmapped: List[str] = []
    counts = {"mapped": 0, "dropped": 0, "num_batches_tracked": 0}
    for key, value in state.items():
        if any(fnmatch.fnmatchcase(key, pattern) for pattern in drop):
            counts["dropped"] += 1
            continue
        name = key
        stripped = True
        while stripped:
            stripped = False
            for prefix in WRAPPER_PREFIXES:
                if name.startswith(prefix) and name not in known:
                    name, stripped = name[len(prefix):], True
        for alias, ours in ALIASES.items():
            if name.startswith(alias):
                name = ours + name[len(alias):]
        if name.endswith("num_batches_tracked"):
            counts["num_batches_tracked"] += 1
            continue
        if name not in known:
            unmapped.append(key)
            continue
        if name in mapped:
            raise CheckpointError(f"{path}: keys {origin[name]!r} and {key!r} both map to {name}")
        if not value.is_floating_point():
            raise CheckpointError(f"{path}: tensor {key!r} is {value.dtype}, expected floating point")
        mapped[name] = value.detach().to(torch.float64).numpy()
        origin[name] = key
        counts["mapped"] += 1
    if unmapped:
        raise CheckpointError(f"{path}: {len(unmapped)} keys map to no Safety40 tensor: {sorted(unmapped)[:12]}"
                              f"{'…' if len(unmapped) > 12 else ''} (use --drop GLOB for keys you know to be foreign)")
    return mapped, counts


def convert(checkpoint: Path, output: Path, dtype: str = "f32", drop: Sequence[str] = (),
            trust_pickle: bool = False) -> Dict[str, str]:
    """Converts ``checkpoint`` to ``output``; returns the metadata written."""
    state, where = find_state_dict(load_checkpoint(checkpoint, trust_pickle), checkpoint)
    tensors, counts = map_names(state, checkpoint, drop)
    try:
        s40.state_from_tensors(tensors, str(checkpoint))  # the strict name and shape checks
    except ValueError as error:
        raise CheckpointError(str(error)) from error
    numpy_type = np.float16 if dtype == "f16" else np.float32
    if dtype == "f16":
        too_big = [k for k, v in tensors.items() if np.abs(v).max(initial=0) > 65504]
        if too_big:
            raise CheckpointError(f"{checkpoint}: tensors {too_big[:4]} exceed the float16 range; use --dtype f32")
    out = {name: value.astype(numpy_type) for name, value in tensors.items()}
    folded = [spec.name for spec in s40.conv_specs() if spec.bn and f"{spec.name}.bias" in out]
    parameters = sum(v.size for k, v in out.items() if not k.endswith(("running_mean", "running_var")))
    metadata = {
        **s40.WEIGHTS_METADATA,
        "bn_folded": "true" if len(folded) == sum(1 for s in s40.conv_specs() if s.bn) else "false" if not folded else "partly",
        "parameter_count": str(parameters),
        "trained": "true", "training_data": "unknown (converted)",
        "provenance": f"converted from PyTorch checkpoint {checkpoint.name} by periphery-convert-checkpoint",
        "source": "pytorch-checkpoint", "source_file": checkpoint.name,
        "source_sha256": hashlib.sha256(checkpoint.read_bytes()).hexdigest(), "state_dict_at": where,
        "converter": "periphery-convert-checkpoint", "converter_version": CONVERTER_VERSION, "dtype": dtype.upper(),
        "keys": f"{counts['mapped']} mapped, {counts['num_batches_tracked']} num_batches_tracked dropped, "
                f"{counts['dropped']} dropped by --drop",
    }
    output.parent.mkdir(parents=True, exist_ok=True)
    s40.write_safetensors(output, out, metadata)
    return metadata


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("checkpoint", type=Path, help="PyTorch checkpoint (.pth/.pt)")
    ap.add_argument("-o", "--output", type=Path, required=True, help="safetensors file to write")
    ap.add_argument("--dtype", choices=("f32", "f16"), default="f32", help="stored precision (default f32)")
    ap.add_argument("--drop", action="append", default=[], metavar="GLOB",
                    help="discard checkpoint keys matching this glob (repeatable), e.g. 'aux_head.*'")
    ap.add_argument("--trust-pickle", action="store_true",
                    help="allow Python objects in the checkpoint (runs the pickle: trusted files only)")
    args = ap.parse_args(argv)
    try:
        metadata = convert(args.checkpoint, args.output, args.dtype, args.drop, args.trust_pickle)
    except CheckpointError as error:
        print(f"convert_checkpoint: {error}", file=sys.stderr)
        return 1
    print(f"wrote {args.output}: {metadata['keys']}; {metadata['parameter_count']} parameters, {metadata['dtype']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
