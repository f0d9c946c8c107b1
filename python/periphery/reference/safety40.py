"""Independent PyTorch reference of the Safety40 network (`docs/reference/network.md`).

The module tree reproduces the Fast-BEV / mmdet3d checkpoint names one to one, so
``model.state_dict()`` keys are exactly the tensor names of the weight files:

* ``backbone.*``      ResNet-18, torchvision layout, no fc            (`docs/reference/network.md#1-backbone-resnet-18`)
* ``neck.*``          FPN, 64 channels, 4 outputs, no activation      (§2)
* ``neck_fuse_0.*``   3×3 conv with bias fusing P0..P3 at stride 4     (§3)
* gather              features → volume through the ProjectionLUT       (§4, `docs/reference/contract.md#5-projectionlut`)
* ``neck_3d.*``       M2BevNeck: space-to-channel, fuse, 6 modules      (§5)
* ``bbox_head.*``     three 1×1 convs, candidate-major outputs          (§6)

All batch norms run in eval mode with eps 1e-5. Nothing here downloads anything.

Besides the model this module has the shared helpers of the tools: ``load_state`` (safetensors
F16/F32/BF16 → float32), ``load_lut`` (the 32,800-byte ProjectionLUT file), ``fixture_image``
(the deterministic parity input) and ``parameter_counts``.

Run ``periphery-reference --self-test`` (or ``python -m periphery.reference.safety40 --self-test``) to
check names, shapes and parameter counts.
"""
from __future__ import annotations

import argparse
import functools
import json
import os
import struct
import sys
from pathlib import Path
from typing import Dict, List, NamedTuple, Optional, Tuple

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from periphery import _checkout

# --- contract constants (`docs/reference/contract.md#11-pipeline-and-shapes`) -------------------------------------------
IMAGE_SHAPE = (1, 3, 256, 512)
FEATURE_C, FEATURE_H, FEATURE_W = 64, 64, 128
GRID_X, GRID_Y, GRID_Z = 41, 80, 2
VOXELS = GRID_X * GRID_Y * GRID_Z  # 6560
HEAD_X, HEAD_Y = 21, 40
ANCHORS = 8
CLASSES = 4
CODE_SIZE = 9
CANDIDATES = HEAD_X * HEAD_Y * ANCHORS  # 6720

EXPECTED_TOTAL_PARAMETERS = 15_206_520
EXPECTED_HEAD_PARAMETERS = 3_672_568  # neck_3d + bbox_head
EXPECTED_BACKBONE_PARAMETERS = 11_176_512
EXPECTED_FPN_FUSE_PARAMETERS = 357_440

BN_EPS = 1e-5
# Metadata every Safety40 weight file carries (docs/guides/weights.md).
WEIGHTS_METADATA = {"architecture": "safety40-fastbev-r18", "format": "safety40-weights-v1",
                    "classes": "light_vehicle,large_vehicle,two_wheeler,pedestrian"}
REPO_ROOT = _checkout.REPO_ROOT
DEFAULT_LUT = REPO_ROOT / "Sources/PeripheryInference/Resources/Conformance/selfcheck_lut.bin"

# Normalisation of `docs/reference/contract.md#14-input-normalisation` (0–255 pixels, RGB).
PIXEL_MEAN = (123.675, 116.28, 103.53)
PIXEL_STD = (58.395, 57.12, 57.375)


# --- building blocks -----------------------------------------------------------------------
def static_hw(x: torch.Tensor) -> Tuple[int, int]:
    """(H, W) of an NCHW tensor as plain ints (constants, not Shape ops, in an ONNX trace)."""
    return int(x.shape[2]), int(x.shape[3])


def _bn(channels: int) -> nn.BatchNorm2d:
    return nn.BatchNorm2d(channels, eps=BN_EPS)


class BasicBlock(nn.Module):
    """torchvision ResNet BasicBlock: conv1/bn1/relu/conv2/bn2 + shortcut, relu."""

    def __init__(self, cin: int, cout: int, stride: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = _bn(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = _bn(cout)
        self.downsample: Optional[nn.Sequential] = None
        if stride != 1 or cin != cout:
            self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, 0, bias=False), _bn(cout))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        shortcut = x if self.downsample is None else self.downsample(x)
        return F.relu(y + shortcut)


class ResNet18(nn.Module):
    """ResNet-18 without avgpool/fc; returns C2..C5 (`docs/reference/network.md#1-backbone-resnet-18`)."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
        self.bn1 = _bn(64)
        widths = [64, 128, 256, 512]
        cin = 64
        for i, w in enumerate(widths):
            stride = 1 if i == 0 else 2
            setattr(self, f"layer{i + 1}", nn.Sequential(BasicBlock(cin, w, stride), BasicBlock(w, w, 1)))
            cin = w

    def forward(self, x: torch.Tensor) -> List[torch.Tensor]:
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.max_pool2d(x, 3, 2, 1)  # implicit padding is −∞
        outs = []
        for name in ("layer1", "layer2", "layer3", "layer4"):
            x = getattr(self, name)(x)
            outs.append(x)
        return outs


class ConvBN(nn.Module):
    """mmcv ConvModule with a conv (no bias) and a BN; ``relu`` selects the activation."""

    def __init__(self, cin: int, cout: int, kernel: int, stride: int = 1, relu: bool = False) -> None:
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, kernel, stride, kernel // 2, bias=False)
        self.bn = _bn(cout)
        self.relu = relu

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.bn(self.conv(x))
        return F.relu(y) if self.relu else y


class FPN(nn.Module):
    """mmdet 2.x FPN, 64 channels, 4 outputs, BN, no activation (`docs/reference/network.md#2-fpn-64-channels-4-outputs-no-activation`)."""

    def __init__(self, in_channels: Tuple[int, ...] = (64, 128, 256, 512), out_channels: int = 64) -> None:
        super().__init__()
        self.lateral_convs = nn.ModuleList(ConvBN(c, out_channels, 1) for c in in_channels)
        self.fpn_convs = nn.ModuleList(ConvBN(out_channels, out_channels, 3) for _ in in_channels)

    def forward(self, inputs: List[torch.Tensor]) -> List[torch.Tensor]:
        lat = [conv(x) for conv, x in zip(self.lateral_convs, inputs)]
        for i in range(len(lat) - 1, 0, -1):
            lat[i - 1] = lat[i - 1] + F.interpolate(lat[i], size=static_hw(lat[i - 1]), mode="nearest")
        return [conv(x) for conv, x in zip(self.fpn_convs, lat)]


class ResModule2D(nn.Module):
    """M2BevNeck residual module: conv0 (BN, ReLU) → conv1 (BN) → + input → ReLU."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv0 = ConvBN(channels, channels, 3, relu=True)
        self.conv1 = ConvBN(channels, channels, 3, relu=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.relu(self.conv1(self.conv0(x)) + x)


class M2BevNeck(nn.Module):
    """``neck_3d``: space-to-channel (k = z·64 + c), 1×1 fuse with bias, 6 modules (`docs/reference/network.md#5-bev-neck-neck_3d`)."""

    def __init__(self) -> None:
        super().__init__()
        self.fuse = nn.Conv2d(FEATURE_C * GRID_Z, 256, 1, 1, 0, bias=True)
        self.model = nn.Sequential(
            ResModule2D(256),
            ConvBN(256, 192, 3, stride=2, relu=True),
            ResModule2D(192),
            ConvBN(192, 192, 3, relu=True),
            ResModule2D(192),
            ConvBN(192, 192, 3, relu=True),
        )

    def forward(self, volume: torch.Tensor) -> torch.Tensor:
        bev = volume.permute(0, 2, 3, 4, 1).reshape(-1, GRID_X, GRID_Y, GRID_Z * FEATURE_C).permute(0, 3, 1, 2)
        return self.model(self.fuse(bev))


class AnchorHead(nn.Module):
    """``bbox_head``: three 1×1 convolutions with bias (`docs/reference/network.md#6-anchor-head-bbox_head`)."""

    def __init__(self, channels: int = 192) -> None:
        super().__init__()
        self.conv_cls = nn.Conv2d(channels, ANCHORS * CLASSES, 1, bias=True)
        self.conv_reg = nn.Conv2d(channels, ANCHORS * CODE_SIZE, 1, bias=True)
        self.conv_dir_cls = nn.Conv2d(channels, ANCHORS * 2, 1, bias=True)

    def forward(self, bev: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        return self.conv_cls(bev), self.conv_reg(bev), self.conv_dir_cls(bev)


def lut_gather(features: torch.Tensor, index: torch.Tensor, visibility: torch.Tensor) -> torch.Tensor:
    """ProjectionLUT gather: features [1,64,64,128] → volume [1,64,41,80,2]; invisible voxels 0."""
    flat = features.reshape(-1, FEATURE_C, FEATURE_H * FEATURE_W)
    vol = torch.index_select(flat, 2, index) * visibility.to(features.dtype)
    return vol.reshape(-1, FEATURE_C, GRID_X, GRID_Y, GRID_Z)


def candidate_major(x: torch.Tensor, per_anchor: int) -> torch.Tensor:
    """[1, 8·C, 21, 40] → [6720, C] with row (ix·40 + iy)·8 + a and column k = channel a·C + k."""
    return x.permute(0, 2, 3, 1).reshape(-1, per_anchor)


class Outputs(NamedTuple):
    """Every tensor the parity tests compare, plus the raw head maps."""

    features: torch.Tensor  # [1, 64, 64, 128]
    volume: torch.Tensor  # [1, 64, 41, 80, 2]
    bev: torch.Tensor  # [1, 192, 21, 40]
    classes: torch.Tensor  # [6720, 4]
    boxes: torch.Tensor  # [6720, 9]
    directions: torch.Tensor  # [6720, 2]


class Safety40(nn.Module):
    """The whole Safety40 network. ``forward(image)`` returns (classes, boxes, directions).

    The ProjectionLUT is held as two buffers (``lut_index`` int64, ``lut_visibility`` float) that
    are not part of the weights (``persistent=False``); set them with :meth:`set_lut`.
    """

    def __init__(self) -> None:
        super().__init__()
        self.backbone = ResNet18()
        self.neck = FPN()
        self.neck_fuse_0 = nn.Conv2d(4 * 64, 64, 3, 1, 1, bias=True)
        self.neck_3d = M2BevNeck()
        self.bbox_head = AnchorHead()
        self.register_buffer("lut_index", torch.zeros(VOXELS, dtype=torch.int64), persistent=False)
        self.register_buffer("lut_visibility", torch.zeros(VOXELS), persistent=False)

    # -- LUT --
    def set_lut(self, index: np.ndarray, visibility: np.ndarray) -> None:
        """Installs a ProjectionLUT (indices into the 64×128 plane; visibility 0/1)."""
        index = np.asarray(index)
        visibility = np.asarray(visibility)
        if index.shape != (VOXELS,) or visibility.shape != (VOXELS,):
            raise ValueError(f"LUT must hold {VOXELS} indices and visibilities, got {index.shape}, {visibility.shape}")
        if index.min() < 0 or index.max() >= FEATURE_H * FEATURE_W:
            raise ValueError("LUT index out of range [0, 8192)")
        self.lut_index = torch.as_tensor(index.astype(np.int64), device=self.lut_index.device)
        self.lut_visibility = torch.as_tensor(
            visibility.astype(np.float64), dtype=self.lut_visibility.dtype, device=self.lut_visibility.device
        )

    # -- stages --
    def features(self, image: torch.Tensor) -> torch.Tensor:
        """Backbone + FPN + fuse: image [1,3,256,512] → features [1,64,64,128]."""
        p = self.neck(self.backbone(image))
        size = static_hw(p[0])
        up = [p[0]] + [F.interpolate(t, size=size, mode="bilinear", align_corners=False) for t in p[1:]]
        return self.neck_fuse_0(torch.cat(up, dim=1))

    def gather(self, features: torch.Tensor) -> torch.Tensor:
        """ProjectionLUT gather through the installed LUT (``lut_gather``)."""
        return lut_gather(features, self.lut_index, self.lut_visibility)

    def head(self, volume: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """neck_3d + bbox_head: volume → (bev, classes [6720,4], boxes [6720,9], directions [6720,2])."""
        bev = self.neck_3d(volume)
        cls, reg, dirs = self.bbox_head(bev)
        return bev, candidate_major(cls, CLASSES), candidate_major(reg, CODE_SIZE), candidate_major(dirs, 2)

    def run(self, image: torch.Tensor) -> Outputs:
        """Runs the whole network and returns every intermediate the parity tests use."""
        feats = self.features(image)
        vol = self.gather(feats)
        bev, classes, boxes, directions = self.head(vol)
        return Outputs(feats, vol, bev, classes, boxes, directions)

    def forward(self, image: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        out = self.run(image)
        return out.classes, out.boxes, out.directions


# --- parameters and weights ----------------------------------------------------------------
def parameter_counts(model: nn.Module) -> Dict[str, int]:
    """Counts learnable parameters (conv weights/biases, BN weight/bias; no running stats)."""
    parts = {"backbone": 0, "fpn_fuse": 0, "head": 0}
    for name, p in model.named_parameters():
        if name.startswith("backbone."):
            parts["backbone"] += p.numel()
        elif name.startswith(("neck.", "neck_fuse_0.")):
            parts["fpn_fuse"] += p.numel()
        elif name.startswith(("neck_3d.", "bbox_head.")):
            parts["head"] += p.numel()
        else:
            raise AssertionError(f"unexpected parameter {name}")
    parts["total"] = sum(parts.values())
    return parts


def weight_names(model: nn.Module) -> Dict[str, Tuple[int, ...]]:
    """Name → shape of every tensor a weight file must hold (parameters and BN running stats)."""
    return {k: tuple(v.shape) for k, v in model.state_dict().items() if not k.endswith("num_batches_tracked")}


_ST_DTYPES = {"F16": np.float16, "F32": np.float32, "F64": np.float64, "BF16": None, "I64": np.int64, "I32": np.int32}


def read_safetensors(path: Path) -> Tuple[Dict[str, np.ndarray], Dict[str, str]]:
    """Reads a safetensors file into numpy (BF16 is widened to float32). Returns (tensors, metadata)."""
    data = Path(path).read_bytes()
    if len(data) < 8:
        raise ValueError(f"{path}: not a safetensors file (too short)")
    (hlen,) = struct.unpack("<Q", data[:8])
    if 8 + hlen > len(data):
        raise ValueError(f"{path}: header length {hlen} runs past the end of the file")
    header = json.loads(data[8 : 8 + hlen])
    meta = header.pop("__metadata__", {}) or {}
    base = 8 + hlen
    out: Dict[str, np.ndarray] = {}
    for name, info in header.items():
        dtype, shape, (start, end) = info["dtype"], info["shape"], info["data_offsets"]
        raw = data[base + start : base + end]
        if dtype == "BF16":
            bits = np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16
            arr = bits.view(np.float32)
        elif dtype in _ST_DTYPES:
            arr = np.frombuffer(raw, dtype=np.dtype(_ST_DTYPES[dtype]).newbyteorder("<"))
        else:
            raise ValueError(f"{path}: tensor {name} has unsupported dtype {dtype}")
        expected = int(np.prod(shape)) if shape else 1
        if arr.size != expected:
            raise ValueError(f"{path}: tensor {name} holds {arr.size} elements, shape {shape} needs {expected}")
        out[name] = arr.reshape(shape)
    return out, meta


_NP_TO_ST = {np.dtype(np.float16): "F16", np.dtype(np.float32): "F32", np.dtype(np.float64): "F64",
             np.dtype(np.int64): "I64", np.dtype(np.int32): "I32", np.dtype(np.uint8): "U8"}


def write_safetensors(path: Path | str, tensors: Dict[str, np.ndarray], metadata: Dict[str, str]) -> bytes:
    """Writes a safetensors file byte-for-byte reproducibly and returns its bytes.

    Tensors are laid out in name order; the header is compact JSON with ``__metadata__`` first and
    keys sorted, padded with spaces to a multiple of 8 bytes (the safetensors rules). The upstream
    writer orders the metadata by hash, so two runs would differ in the header bytes. The file is
    written under a temporary name and renamed, so it is never seen half-written.
    """
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
        raise TypeError("safetensors metadata must map str to str")
    header: Dict[str, object] = {"__metadata__": dict(sorted(metadata.items()))}
    blobs = []
    offset = 0
    for name in sorted(tensors):
        arr = np.ascontiguousarray(tensors[name])
        if arr.dtype not in _NP_TO_ST:
            raise TypeError(f"tensor {name}: unsupported dtype {arr.dtype}")
        raw = arr.astype(arr.dtype.newbyteorder("<"), copy=False).tobytes()
        header[name] = {"dtype": _NP_TO_ST[arr.dtype], "shape": list(arr.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    text += b" " * (-len(text) % 8)
    data = struct.pack("<Q", len(text)) + text + b"".join(blobs)
    path = Path(path)
    temporary = path.with_name(path.name + ".partial")
    temporary.write_bytes(data)
    os.replace(temporary, path)
    return data


class ConvSpec(NamedTuple):
    """One convolution of the network and the batch norm after it (`docs/reference/network.md`), by tensor name."""

    name: str  # tensor prefix: ``<name>.weight``, ``<name>.bias``
    bn: Optional[str]  # tensor prefix of the BN that follows, if any
    in_channels: int
    out_channels: int
    kernel: int
    stride: int
    in_hw: Tuple[int, int]  # spatial size of the input map
    part: str  # "backbone" (image → features) or "head" (volume → head outputs)


def batch_norm_after(conv: str) -> Optional[str]:
    """The BN tensor prefix that follows convolution ``conv`` in the checkpoint layout."""
    if conv.endswith(".conv"):
        return conv[: -len(".conv")] + ".bn"
    if conv.endswith(".downsample.0"):
        return conv[: -len(".0")] + ".1"
    head, _, last = conv.rpartition(".")
    return f"{head}.bn{last[len('conv'):]}" if last in ("conv1", "conv2") else None


@functools.lru_cache(maxsize=1)
def conv_specs() -> Tuple[ConvSpec, ...]:
    """Every convolution in execution order with its input size, measured on a zero pass."""
    model = Safety40().eval()
    sizes: Dict[str, Tuple[int, int]] = {}

    def record(name: str, args: Tuple[torch.Tensor, ...]) -> None:
        sizes.setdefault(name, static_hw(args[0]))

    hooks = [module.register_forward_pre_hook(lambda m, args, name=name: record(name, args))
             for name, module in model.named_modules() if isinstance(module, nn.Conv2d)]
    with torch.no_grad():
        model.head(model.gather(model.features(torch.zeros(IMAGE_SHAPE))))
    for hook in hooks:
        hook.remove()
    names = set(model.state_dict())
    specs = []
    for name in sizes:  # insertion order = execution order
        conv = model.get_submodule(name)
        bn = batch_norm_after(name)
        specs.append(ConvSpec(name, bn if bn and f"{bn}.weight" in names else None, conv.in_channels,
                              conv.out_channels, conv.kernel_size[0], conv.stride[0], sizes[name],
                              "head" if name.startswith(("neck_3d.", "bbox_head.")) else "backbone"))
    return tuple(specs)


def state_from_tensors(tensors: Dict[str, np.ndarray], source: str, model: Optional[Safety40] = None) -> Safety40:
    """Loads named tensors into ``model`` (a new one if None), per layer unfolded or BN-folded.

    A convolution followed by BN is *folded* when no tensor of its BN is present; then it must
    carry ``<conv>.bias``, and the BN is set to the identity plus that bias (mean 0, variance
    1 − eps, γ 1). Every tensor the network needs must be present with the right shape; extra
    tensors other than ``*.num_batches_tracked`` are an error naming ``source``. The returned
    model is in eval mode, float32, on CPU.
    """
    model = model or Safety40()
    wanted = dict(weight_names(model))
    for spec in conv_specs():
        if spec.bn and not any(k.startswith(spec.bn + ".") for k in tensors):
            for suffix in ("weight", "bias", "running_mean", "running_var"):
                del wanted[f"{spec.bn}.{suffix}"]
            wanted[f"{spec.name}.bias"] = (spec.out_channels,)
    extra = sorted(k for k in tensors if k not in wanted and not k.endswith("num_batches_tracked"))
    missing = sorted(k for k in wanted if k not in tensors)
    if missing or extra:
        raise ValueError(f"{source}: missing tensors {missing[:8]}{'…' if len(missing) > 8 else ''}; "
                         f"unexpected tensors {extra[:8]}{'…' if len(extra) > 8 else ''}")
    state = {}
    for name, shape in wanted.items():
        arr = tensors[name]
        if tuple(arr.shape) != shape:
            raise ValueError(f"{source}: tensor {name} has shape {tuple(arr.shape)}, expected {shape}")
        state[name] = torch.from_numpy(np.asarray(arr, dtype=np.float32))
    for spec in conv_specs():
        folded_bias = state.pop(f"{spec.name}.bias", None) if spec.bn else None
        if folded_bias is not None:
            c = spec.out_channels
            state |= {f"{spec.bn}.weight": torch.ones(c), f"{spec.bn}.bias": folded_bias,
                      f"{spec.bn}.running_mean": torch.zeros(c), f"{spec.bn}.running_var": torch.full((c,), 1.0 - BN_EPS)}
    model.load_state_dict(state, strict=False)
    return model.float().eval()


def load_state(path: Path | str, model: Optional[Safety40] = None) -> Safety40:
    """Loads a Safety40 weight file (F16/F32/BF16 → float32) into ``model``; see ``state_from_tensors``."""
    tensors, _ = read_safetensors(Path(path))
    return state_from_tensors(tensors, str(path), model)


# --- LUT and fixture input -----------------------------------------------------------------
def load_lut(path: Path | str = DEFAULT_LUT) -> Tuple[np.ndarray, np.ndarray]:
    """Reads a ProjectionLUT file: 6560 LE int32 indices then 6560 uint8 visibility (32,800 bytes)."""
    data = Path(path).read_bytes()
    if len(data) != 5 * VOXELS:
        raise ValueError(f"{path}: a LUT file is {5 * VOXELS} bytes, this one is {len(data)}")
    index = np.frombuffer(data[: 4 * VOXELS], dtype="<i4").astype(np.int64)
    vis = np.frombuffer(data[4 * VOXELS :], dtype=np.uint8)
    if index.min() < 0 or index.max() >= FEATURE_H * FEATURE_W or not np.isin(vis, (0, 1)).all():
        raise ValueError(f"{path}: LUT indices must lie in [0, 8192) and visibility be 0/1")
    return index, vis.astype(np.float32)


def fixture_image(seed: int = 20260831) -> np.ndarray:
    """A deterministic, real-looking normalised input [1,3,256,512] float32 (`docs/reference/contract.md#14-input-normalisation`).

    A synthetic road scene in 0–255 RGB: a sky gradient, a horizon, a darker road with a vanishing
    point and lane marks, a dozen soft coloured blobs standing in for vehicles, and a little seeded
    pixel noise; then normalised with MEAN/STD. Values lie within about [−2.12, 2.64].
    """
    rng = np.random.default_rng(seed)
    h, w = IMAGE_SHAPE[2], IMAGE_SHAPE[3]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    horizon = 0.42 * h
    img = np.zeros((h, w, 3))
    sky_t = np.clip(yy / horizon, 0, 1)[..., None]
    img[:] = (1 - sky_t) * np.array([110, 150, 215]) + sky_t * np.array([200, 210, 220])
    ground = yy >= horizon
    depth = np.clip((yy - horizon) / (h - horizon), 0, 1)
    grass = np.stack([90 + 40 * depth, 110 + 30 * depth, 60 + 10 * depth], -1)
    road_half = 6 + depth * (0.55 * w)
    on_road = ground & (np.abs(xx - w / 2) < road_half)
    road = np.stack([80 + 30 * depth, 82 + 30 * depth, 85 + 30 * depth], -1)
    img[ground] = grass[ground]
    img[on_road] = road[on_road]
    for lane in (-0.33, 0.0, 0.33):
        cx = w / 2 + lane * road_half
        dash = (np.floor(np.maximum(yy - horizon, 0.0) ** 0.7) % 4) < 2
        mark = ground & (np.abs(xx - cx) < 1 + 3 * depth) & dash
        img[mark] = 235
    for _ in range(12):
        cy = rng.uniform(horizon - 5, h - 20)
        cx = rng.uniform(0.1 * w, 0.9 * w)
        scale = 4 + 40 * (cy - horizon + 5) / (h - horizon)
        sy, sx = scale * rng.uniform(0.5, 0.9), scale * rng.uniform(0.8, 1.6)
        colour = rng.uniform(20, 250, 3)
        blob = np.exp(-(((yy - cy) / sy) ** 4 + ((xx - cx) / sx) ** 4))[..., None]
        img = img * (1 - blob) + colour * blob
    img += rng.normal(0.0, 4.0, img.shape)
    img = np.clip(img, 0, 255)
    norm = (img - np.array(PIXEL_MEAN)) / np.array(PIXEL_STD)
    return norm.transpose(2, 0, 1)[None].astype(np.float32)


def build_model(weights: Path | str, lut: Path | str = DEFAULT_LUT, dtype: torch.dtype = torch.float32) -> Safety40:
    """Loads weights and a LUT and returns the model in eval mode with the given dtype."""
    model = load_state(weights)
    idx, vis = load_lut(lut)
    model.set_lut(idx, vis)
    return model.to(dtype).eval()


# --- self-test -----------------------------------------------------------------------------
def self_test(weights: Optional[Path]) -> int:
    """Checks parameter counts, names and output shapes; with ``weights`` also loads and runs them."""
    torch.manual_seed(0)
    model = Safety40().eval()
    counts = parameter_counts(model)
    print(f"parameters: total {counts['total']:,} (expected {EXPECTED_TOTAL_PARAMETERS:,})")
    print(f"  backbone {counts['backbone']:,} (expected {EXPECTED_BACKBONE_PARAMETERS:,})")
    print(f"  fpn+fuse {counts['fpn_fuse']:,} (expected {EXPECTED_FPN_FUSE_PARAMETERS:,})")
    print(f"  head (neck_3d + bbox_head) {counts['head']:,} (expected {EXPECTED_HEAD_PARAMETERS:,})")
    ok = (counts["total"] == EXPECTED_TOTAL_PARAMETERS and counts["head"] == EXPECTED_HEAD_PARAMETERS
          and counts["backbone"] == EXPECTED_BACKBONE_PARAMETERS
          and counts["fpn_fuse"] == EXPECTED_FPN_FUSE_PARAMETERS)
    print(f"weight tensors: {len(weight_names(model))}")
    if weights is not None:
        model = load_state(weights)
    idx, vis = load_lut(DEFAULT_LUT)
    model.set_lut(idx, vis)
    with torch.inference_mode():
        out = model.run(torch.from_numpy(fixture_image()))
    shapes = {
        "features": (1, 64, 64, 128), "volume": (1, 64, 41, 80, 2), "bev": (1, 192, 21, 40),
        "classes": (6720, 4), "boxes": (6720, 9), "directions": (6720, 2),
    }
    for name, shape in shapes.items():
        t = getattr(out, name)
        good = tuple(t.shape) == shape and bool(torch.isfinite(t).all())
        ok &= good
        print(f"  {name:10s} {tuple(t.shape)} std {t.std().item():.4g} {'ok' if good else 'BAD'}")
    # candidate-major layout check against the raw conv output
    with torch.inference_mode():
        cls = model.bbox_head.conv_cls(out.bev)
    ix, iy, a, k = 7, 23, 5, 2
    layout = torch.equal(out.classes[(ix * 40 + iy) * 8 + a, k], cls[0, a * 4 + k, ix, iy])
    ok &= layout
    print(f"candidate-major layout: {'ok' if layout else 'BAD'}")
    print("self-test", "PASSED" if ok else "FAILED")
    return 0 if ok else 1


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--self-test", action="store_true", help="print parameter counts and check shapes; exit 1 on mismatch")
    ap.add_argument("--weights", type=Path, help="optional safetensors weight file to load in the self-test")
    args = ap.parse_args(argv)
    if not args.self_test:
        ap.print_help()
        return 2
    return self_test(args.weights)


if __name__ == "__main__":
    sys.exit(main())
