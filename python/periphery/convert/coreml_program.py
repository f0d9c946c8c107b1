"""Runs a Core ML package's MIL program with PyTorch ops, so that packages can be checked on Linux.

Core ML itself only predicts on macOS. This interpreter evaluates the ``main`` function of an
mlprogram op by op, in float32 (the package's float16 weights are widened; casts to float16 are
not emulated), for the ops the Safety40 halves use: ``conv``, ``batch_norm``, ``relu``, ``add``,
``max_pool``, ``upsample_nearest_neighbor``, ``upsample_bilinear``, ``concat`` and the layout ops
(``reshape``, ``transpose``, ``stack``, ``squeeze``, ``expand_dims``, ``cast``, ``identity``).
Any other op is an error naming it. Semantics follow the MIL op reference (coremltools
``mil.ops.defs``): pads are ``[top, bottom, left, right]``, max-pool padding is −∞, bilinear
upsampling without ``align_corners`` samples at half-pixel centres, nearest at ``floor(dst / scale)``.
"""
from __future__ import annotations

from typing import Callable, Dict, List

import numpy as np
import torch
import torch.nn.functional as F


class ProgramError(Exception):
    """An op the interpreter does not know, or an input it was not given."""


def _value(env: Dict[str, torch.Tensor], var) -> torch.Tensor:
    if var.op is not None and var.op.op_type == "const":
        value = var.val
        return torch.from_numpy(np.array(value, dtype=np.float32 if np.asarray(value).dtype.kind == "f" else None))
    if var.name not in env:
        raise ProgramError(f"no value for {var.name!r}")
    return env[var.name]


def _const(op, key: str, default=None):
    var = op.inputs.get(key)
    return default if var is None else var.val


def _padded(x: torch.Tensor, op, kernel: List[int], value: float) -> torch.Tensor:
    pad_type = _const(op, "pad_type", "valid")
    if pad_type == "custom":
        top, bottom, left, right = (int(v) for v in _const(op, "pad"))
    elif pad_type in ("same", "same_lower"):
        strides = [int(v) for v in _const(op, "strides", [1, 1])]
        pads = []
        for size, k, s in zip(x.shape[2:], kernel, strides):
            total = max((-(-size // s) - 1) * s + k - size, 0)
            small, large = total // 2, total - total // 2
            pads.append((large, small) if pad_type == "same_lower" else (small, large))
        (top, bottom), (left, right) = pads
    elif pad_type == "valid":
        return x
    else:
        raise ProgramError(f"op {op.name!r}: pad_type {pad_type!r} is not supported")
    return F.pad(x, (left, right, top, bottom), value=value)


def _conv(op, v):
    x, w = v("x"), v("weight")
    bias = v("bias") if "bias" in op.inputs else None
    x = _padded(x, op, list(w.shape[2:]), 0.0)
    return F.conv2d(x, w, bias, stride=[int(s) for s in _const(op, "strides", [1, 1])],
                    dilation=[int(d) for d in _const(op, "dilations", [1, 1])], groups=int(_const(op, "groups", 1)))


def _max_pool(op, v):
    kernel = [int(k) for k in _const(op, "kernel_sizes")]
    x = _padded(v("x"), op, kernel, float("-inf"))
    return F.max_pool2d(x, kernel, [int(s) for s in _const(op, "strides")], ceil_mode=bool(_const(op, "ceil_mode", False)))


def _reshape(op, v):
    x = v("x")
    shape = [int(d) for d in _const(op, "shape")]
    return x.reshape([x.shape[i] if d == 0 else d for i, d in enumerate(shape)])


def _axes(op, key: str = "axes") -> List[int]:
    return [int(a) for a in np.atleast_1d(_const(op, key, []))]


OPS: Dict[str, Callable] = {
    "conv": _conv,
    "batch_norm": lambda op, v: F.batch_norm(v("x"), v("mean"), v("variance"), v("gamma") if "gamma" in op.inputs else None,
                                             v("beta") if "beta" in op.inputs else None, False, 0.0,
                                             float(_const(op, "epsilon", 1e-5))),
    "relu": lambda op, v: F.relu(v("x")),
    "add": lambda op, v: v("x") + v("y"),
    "max_pool": _max_pool,
    "upsample_nearest_neighbor": lambda op, v: F.interpolate(
        v("x"), scale_factor=(float(_const(op, "scale_factor_height", 1)), float(_const(op, "scale_factor_width", 1))),
        mode="nearest"),
    "upsample_bilinear": lambda op, v: F.interpolate(
        v("x"), scale_factor=(float(_const(op, "scale_factor_height", 1)), float(_const(op, "scale_factor_width", 1))),
        mode="bilinear", align_corners=bool(_const(op, "align_corners", False))),
    "reshape": _reshape,
    "transpose": lambda op, v: v("x").permute([int(p) for p in _const(op, "perm")]),
    "squeeze": lambda op, v: v("x").squeeze(tuple(_axes(op))) if "axes" in op.inputs else v("x").squeeze(),
    "expand_dims": lambda op, v: v("x").reshape(_expanded(v("x").shape, _axes(op))),
    "cast": lambda op, v: v("x").float() if str(_const(op, "dtype", "fp32")).startswith("fp") else v("x"),
    "identity": lambda op, v: v("x"),
}


def _expanded(shape, axes: List[int]) -> List[int]:
    out = list(shape)
    rank = len(out) + len(axes)
    for axis in sorted(a % rank for a in axes):
        out.insert(axis, 1)
    return out


def run(function, inputs: Dict[str, np.ndarray]) -> Dict[str, np.ndarray]:
    """Evaluates a MIL function on named float32 inputs; returns every output by its name."""
    env: Dict[str, torch.Tensor] = {}
    for name in function.inputs:
        if name not in inputs:
            raise ProgramError(f"input {name!r} not given")
        env[name] = torch.from_numpy(np.ascontiguousarray(inputs[name], dtype=np.float32))
    with torch.no_grad():
        for op in function.operations:
            if op.op_type == "const":
                continue
            if op.op_type in ("concat", "stack"):
                values = [_value(env, var) for var in op.inputs["values"]]
                axis = int(_const(op, "axis"))
                if op.op_type == "concat" and bool(_const(op, "interleave", False)):
                    raise ProgramError(f"op {op.name!r}: interleaved concat is not supported")
                result = torch.cat(values, axis) if op.op_type == "concat" else torch.stack(values, axis)
            elif op.op_type in OPS:
                result = OPS[op.op_type](op, lambda key, op=op: _value(env, op.inputs[key]))
            else:
                raise ProgramError(f"op {op.name!r} is a {op.op_type!r}, which this interpreter does not run")
            env[op.outputs[0].name] = result
    return {var.name: env[var.name].numpy() for var in function.outputs}
