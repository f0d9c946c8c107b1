"""Converts the iOS app's two Core ML packages to one Safety40 safetensors file.

    periphery-convert-coreml backbone_static.mlpackage head_static.mlpackage -o OUT.safetensors

Reads both mlprogram packages with coremltools (reading works on Linux; only prediction needs
macOS), walks their MIL programs and checks that they are the Safety40 graph of
`docs/reference/network.md`: one input and output of the contract's shapes (the head's three
outputs told apart by their trailing dimension 4/9/2, never by name), the op inventory of each
half, and every convolution's kernel, stride, padding, channels and input size. Each convolution
is given its checkpoint name by graph position and shape: convolutions with the same signature
(channels, kernel, stride, input size) form a dependency chain in the network, so the k-th of them
in the program's topological order is the k-th in `docs/reference/network.md`'s execution order.

The packages hold float16 weights with every batch norm folded into its convolution (coremltools
fuses them); the output holds ``<conv>.weight`` and ``<conv>.bias`` for every convolution and no
BN tensors (the runtime accepts this layout per layer). A package whose batch norms were left as
``batch_norm`` ops is folded here, in float64. Anything unexpected (another op, a compressed
weight, a shape that does not fit, a missing convolution) stops with a ``ConversionError`` that
names the package, the op and why.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
import warnings
from collections import Counter, defaultdict
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from periphery.reference import safety40 as s40

CONVERTER_VERSION = "1"

# Non-const ops each half must have, exactly (`docs/reference/contract.md#72-model-facts` for the backbone). Layout ops
# (LAYOUT_OPS) may appear in any number: exporters differ in how they spell space-to-channel and
# candidate-major flattening.
INVENTORY = {
    "backbone": {"conv": 29, "relu": 17, "add": 11, "upsample_nearest_neighbor": 3, "upsample_bilinear": 3,
                 "concat": 1, "max_pool": 1},
    "head": {"conv": 13, "relu": 9, "add": 3},
}
LAYOUT_OPS = {"cast", "reshape", "transpose", "stack", "squeeze", "expand_dims", "identity"}
HEAD_OUTPUTS = {s40.CLASSES: "classes", s40.CODE_SIZE: "boxes", 2: "directions"}


class ConversionError(Exception):
    """A package that is not the Safety40 graph, or cannot be read; the message says which and why."""


# --- reading --------------------------------------------------------------------------------
def package_digest(path: Path) -> str:
    """SHA-256 over every file of a package (relative path, NUL, size, NUL, bytes), in path order."""
    digest = hashlib.sha256()
    files = sorted(p for p in path.rglob("*") if p.is_file())
    for file in files:
        data = file.read_bytes()
        digest.update(f"{file.relative_to(path).as_posix()}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def load_program(path: Path):
    """The ``main`` function of a package's MIL program, and the model spec."""
    if not path.is_dir():
        raise ConversionError(f"{path}: not a Core ML package (no such directory)")
    if not (path / "Manifest.json").is_file():
        raise ConversionError(f"{path}: not a Core ML package (no Manifest.json)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import coremltools as ct
        from coremltools.converters.mil.frontend.milproto.load import load as milproto_load
    try:
        model = ct.models.MLModel(str(path), skip_model_load=True)
        spec = model.get_spec()
    except Exception as error:  # coremltools raises many types for unreadable packages
        raise ConversionError(f"{path}: cannot read the package ({type(error).__name__}: {error})") from error
    kind = spec.WhichOneof("Type")
    if kind != "mlProgram":
        raise ConversionError(f"{path}: model type is {kind!r}, expected an mlProgram (convert_to='mlprogram')")
    try:
        program = milproto_load(spec, spec.specificationVersion, model.weights_dir)
    except Exception as error:
        raise ConversionError(f"{path}: cannot read the MIL program or its weights ({type(error).__name__}: {error})") from error
    if set(program.functions) != {"main"}:
        raise ConversionError(f"{path}: expected one function 'main', found {sorted(program.functions)}")
    return program.functions["main"], spec


def const_value(var, path: Path, what: str) -> np.ndarray:
    """The value of a const input; compressed (constexpr_*) or computed weights are refused."""
    producer = var.op
    if producer is None or producer.op_type != "const":
        kind = "a graph input" if producer is None else f"op {producer.op_type!r} ({producer.name})"
        hint = " - decompress the package's weights first" if producer is not None and producer.op_type.startswith("constexpr") else ""
        raise ConversionError(f"{path}: {what} comes from {kind}, expected a plain const{hint}")
    value = var.val
    if not isinstance(value, np.ndarray) or value.dtype not in (np.float16, np.float32):
        raise ConversionError(f"{path}: {what} is {type(value).__name__}"
                              f"{'' if not isinstance(value, np.ndarray) else ' of ' + str(value.dtype)}, expected float16 or float32")
    return value


def scalar(op, key: str):
    var = op.inputs.get(key)
    return None if var is None else var.val


def ints(op, key: str) -> Optional[List[int]]:
    value = scalar(op, key)
    return None if value is None else [int(v) for v in np.atleast_1d(value)]


# --- checking -------------------------------------------------------------------------------
def check_inventory(path: Path, part: str, ops) -> None:
    counts = Counter(op.op_type for op in ops if op.op_type != "const")
    expected = dict(INVENTORY[part])
    if counts.get("batch_norm"):
        expected["batch_norm"] = sum(1 for spec in s40.conv_specs() if spec.part == part and spec.bn)
    for op in ops:
        if op.op_type != "const" and op.op_type not in expected and op.op_type not in LAYOUT_OPS:
            raise ConversionError(f"{path}: op {op.name!r} is a {op.op_type!r}, which the Safety40 {part} does not have")
    wrong = {k: (counts.get(k, 0), v) for k, v in expected.items() if counts.get(k, 0) != v}
    if wrong:
        detail = ", ".join(f"{k} {have} (expected {want})" for k, (have, want) in sorted(wrong.items()))
        raise ConversionError(f"{path}: not the Safety40 {part}: op inventory {detail}")


def check_io(path: Path, part: str, function) -> Dict[str, str]:
    """Checks the sole input (and the outputs) against the contract; returns name → role."""
    inputs = list(function.inputs.items())
    want = s40.IMAGE_SHAPE if part == "backbone" else (1, s40.FEATURE_C, s40.GRID_X, s40.GRID_Y, s40.GRID_Z)
    if len(inputs) != 1:
        raise ConversionError(f"{path}: expected one input, found {[n for n, _ in inputs]}")
    name, var = inputs[0]
    if tuple(var.shape) != want:
        raise ConversionError(f"{path}: input {name!r} has shape {list(var.shape)}, expected {list(want)} "
                              "(convert with static shapes)")
    roles = {name: "image" if part == "backbone" else "volume"}
    outputs = list(function.outputs)
    if part == "backbone":
        feature_shape = (1, s40.FEATURE_C, s40.FEATURE_H, s40.FEATURE_W)
        if len(outputs) != 1 or tuple(outputs[0].shape) != feature_shape:
            raise ConversionError(f"{path}: expected one output of shape {list(feature_shape)}, found "
                                  f"{[(o.name, list(o.shape)) for o in outputs]}")
        roles[outputs[0].name] = "features"
        return roles
    for out in outputs:
        shape = tuple(out.shape)
        channels = shape[-1] if shape else None
        role = HEAD_OUTPUTS.get(channels)
        if role is None or int(np.prod(shape)) != s40.CANDIDATES * channels or role in roles.values():
            raise ConversionError(f"{path}: head output {out.name!r} of shape {list(shape)} is none of classes "
                                  f"[…, {s40.CLASSES}], boxes […, {s40.CODE_SIZE}], directions […, 2] with "
                                  f"{s40.CANDIDATES} candidates, or repeats one")
        roles[out.name] = role
    if len(outputs) != 3:
        raise ConversionError(f"{path}: expected three head outputs, found {[o.name for o in outputs]}")
    return roles


def check_other_ops(path: Path, ops) -> None:
    """The parameter-free ops of the backbone must compute what `docs/reference/network.md` says."""
    for op in ops:
        if op.op_type == "max_pool":
            if ints(op, "kernel_sizes") != [3, 3] or ints(op, "strides") != [2, 2] or ints(op, "pad") not in ([1, 1, 1, 1], None) \
                    or (scalar(op, "pad_type") or "custom") != "custom":
                raise ConversionError(f"{path}: max_pool {op.name!r} is not 3×3 stride 2 pad 1")
        elif op.op_type == "upsample_bilinear" and bool(scalar(op, "align_corners")):
            raise ConversionError(f"{path}: upsample_bilinear {op.name!r} uses align_corners=True (`docs/reference/network.md#3-fuse-to-one-stride-4-map`: False)")
        elif op.op_type == "upsample_nearest_neighbor":
            factors = [float(scalar(op, "scale_factor_height") or 0), float(scalar(op, "scale_factor_width") or 0)]
            if factors != [2.0, 2.0]:
                raise ConversionError(f"{path}: upsample_nearest_neighbor {op.name!r} scales by {factors}, expected 2×2")


def conv_signature(in_channels: int, out_channels: int, kernel: int, stride: int, in_hw: Tuple[int, int]) -> tuple:
    return (in_channels, out_channels, kernel, stride, tuple(in_hw))


def conv_weights(path: Path, op) -> Tuple[tuple, np.ndarray, np.ndarray]:
    """(signature, weight, bias) of one conv op, with its attributes checked."""
    weight = const_value(op.inputs["weight"], path, f"weight of conv {op.name!r}")
    if weight.ndim != 4 or weight.shape[2] != weight.shape[3]:
        raise ConversionError(f"{path}: conv {op.name!r} has weight shape {list(weight.shape)}, expected [out, in, k, k]")
    cout, cin, k, _ = weight.shape
    x_shape = tuple(op.inputs["x"].shape)
    strides = ints(op, "strides") or [1, 1]
    groups = int(scalar(op, "groups") or 1)
    dilations = ints(op, "dilations") or [1, 1]
    pad_type = scalar(op, "pad_type") or "valid"
    pad = ints(op, "pad") or [0, 0, 0, 0]
    p = k // 2
    padding_ok = (pad_type == "custom" and pad == [p] * 4) or (pad_type == "valid" and p == 0) \
        or (pad_type == "same" and strides == [1, 1])
    if len(x_shape) != 4 or x_shape[1] != cin or groups != 1 or dilations != [1, 1] or strides[0] != strides[1] or not padding_ok:
        raise ConversionError(f"{path}: conv {op.name!r} (weight {list(weight.shape)}, input {list(x_shape)}, strides "
                              f"{strides}, pad {pad_type} {pad}, dilations {dilations}, groups {groups}) is not a "
                              "Safety40 convolution (dense, square, 'same'-padded)")
    bias_var = op.inputs.get("bias")
    bias = np.zeros(cout, np.float32) if bias_var is None else const_value(bias_var, path, f"bias of conv {op.name!r}")
    if bias.shape != (cout,):
        raise ConversionError(f"{path}: conv {op.name!r} has bias shape {list(bias.shape)}, expected [{cout}]")
    return conv_signature(cin, cout, k, strides[0], x_shape[2:]), weight, bias


def fold_following_batch_norm(path: Path, op, weight: np.ndarray, bias: np.ndarray) -> Tuple[np.ndarray, np.ndarray, bool]:
    """Folds a ``batch_norm`` op that consumes the conv's output (float64), if there is one."""
    children = op.outputs[0].child_ops
    norms = [c for c in children if c.op_type == "batch_norm"]
    if not norms:
        return weight, bias, False
    if len(children) != 1:
        raise ConversionError(f"{path}: conv {op.name!r} feeds a batch_norm and other ops; cannot fold")
    bn = norms[0]
    get = lambda key, default: (const_value(bn.inputs[key], path, f"{key} of batch_norm {bn.name!r}").astype(np.float64)  # noqa: E731
                                if key in bn.inputs else np.full(weight.shape[0], default))
    mean, variance, gamma, beta = get("mean", 0.0), get("variance", 1.0), get("gamma", 1.0), get("beta", 0.0)
    epsilon = float(scalar(bn, "epsilon") or 1e-5)
    scale = gamma / np.sqrt(variance + epsilon)
    folded_w = (weight.astype(np.float64) * scale[:, None, None, None]).astype(np.float32)
    folded_b = ((bias.astype(np.float64) - mean) * scale + beta).astype(np.float32)
    return folded_w, folded_b, True


def map_convolutions(path: Path, part: str, ops) -> Tuple[Dict[str, np.ndarray], bool]:
    """Checkpoint name → tensor for every convolution of one half, by signature and graph order."""
    expected: Dict[tuple, List[s40.ConvSpec]] = defaultdict(list)
    for spec in s40.conv_specs():
        if spec.part == part:
            expected[conv_signature(spec.in_channels, spec.out_channels, spec.kernel, spec.stride, spec.in_hw)].append(spec)
    taken: Dict[tuple, int] = defaultdict(int)
    tensors: Dict[str, np.ndarray] = {}
    folded_here = False
    for op in ops:
        if op.op_type != "conv":
            continue
        signature, weight, bias = conv_weights(path, op)
        candidates = expected.get(signature, [])
        index = taken[signature]
        if index >= len(candidates):
            cin, cout, k, stride, hw = signature
            raise ConversionError(f"{path}: conv {op.name!r} ({cin}→{cout}, {k}×{k} stride {stride} on {hw[0]}×{hw[1]}) "
                                  f"matches no {'further ' if candidates else ''}convolution of the Safety40 {part}")
        spec = candidates[index]
        taken[signature] += 1
        weight, bias, folded = fold_following_batch_norm(path, op, weight, bias)
        folded_here |= folded
        if spec.bn is None and folded:
            raise ConversionError(f"{path}: conv {op.name!r} ({spec.name}) is followed by a batch_norm it does not have")
        tensors[f"{spec.name}.weight"] = weight
        tensors[f"{spec.name}.bias"] = bias
    missing = [spec.name for signature, specs in expected.items() for spec in specs[taken[signature]:]]
    if missing:
        raise ConversionError(f"{path}: no conv for {', '.join(missing[:4])}{'…' if len(missing) > 4 else ''}")
    return tensors, folded_here


def read_part(path: Path, part: str) -> Tuple[Dict[str, np.ndarray], Dict[str, str], bool]:
    function, _ = load_program(path)
    ops = list(function.operations)
    check_inventory(path, part, ops)
    roles = check_io(path, part, function)
    check_other_ops(path, ops)
    tensors, folded_here = map_convolutions(path, part, ops)
    return tensors, roles, folded_here


# --- writing --------------------------------------------------------------------------------
def convert(backbone: Path, head: Path, output: Path, dtype: str = "auto") -> Dict[str, str]:
    """Converts the two packages to ``output``; returns the metadata written.

    ``dtype`` "auto" stores F16 (lossless for float16 packages) unless batch norms were folded
    here or a weight is float32, then F32."""
    import coremltools as ct

    tensors: Dict[str, np.ndarray] = {}
    roles: Dict[str, Dict[str, str]] = {}
    folded_here = False
    for path, part in ((backbone, "backbone"), (head, "head")):
        part_tensors, roles[part], folded = read_part(path, part)
        tensors |= part_tensors
        folded_here |= folded
    if dtype == "auto":
        dtype = "f32" if folded_here or any(v.dtype != np.float16 for v in tensors.values()) else "f16"
    numpy_type = np.float16 if dtype == "f16" else np.float32
    tensors = {name: value.astype(numpy_type) for name, value in tensors.items()}
    parameters = sum(int(v.size) for v in tensors.values())
    metadata = {
        **s40.WEIGHTS_METADATA, "bn_folded": "true", "parameter_count": str(parameters),
        "trained": "true", "training_data": "unknown (converted)",
        "provenance": f"converted from Core ML packages {backbone.name} + {head.name} by periphery-convert-coreml",
        "source": "coreml", "converter": "periphery-convert-coreml", "converter_version": CONVERTER_VERSION,
        "coremltools_version": ct.__version__,
        "source_packages": json.dumps({
            "backbone": {"name": backbone.name, "sha256": package_digest(backbone), "io": roles["backbone"]},
            "head": {"name": head.name, "sha256": package_digest(head), "io": roles["head"]}}, sort_keys=True),
        "folded_by_converter": "true" if folded_here else "false", "dtype": dtype.upper(),
    }
    output.parent.mkdir(parents=True, exist_ok=True)
    s40.write_safetensors(output, tensors, metadata)
    return metadata


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("backbone", type=Path, help="backbone_static.mlpackage (image → features)")
    ap.add_argument("head", type=Path, help="head_static.mlpackage (volume → classes, boxes, directions)")
    ap.add_argument("-o", "--output", type=Path, required=True, help="safetensors file to write")
    ap.add_argument("--dtype", choices=("auto", "f16", "f32"), default="auto",
                    help="stored precision (auto: F16 for float16 packages, lossless; F32 if anything was folded here)")
    args = ap.parse_args(argv)
    try:
        metadata = convert(args.backbone, args.head, args.output, args.dtype)
    except ConversionError as error:
        print(f"convert_coreml: {error}", file=sys.stderr)
        return 1
    print(f"wrote {args.output}: {metadata['parameter_count']} parameters, BN folded, {metadata['dtype']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
