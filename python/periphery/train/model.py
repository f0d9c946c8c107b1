"""The network as the trainer runs it: Safety40 with one LUT per frame, the training-only auxiliary
head, and the model every rank builds (``--init-from``)."""
from __future__ import annotations

import math
import random
from typing import Optional, Tuple

import torch
import torch.nn.functional as F

from periphery.reference import safety40 as ref


def forward(model: ref.Safety40, images: torch.Tensor, lut_index: torch.Tensor, lut_vis: torch.Tensor, aux=None):
    """Batched Safety40 forward with one LUT per frame → (classes [B,6720,4], boxes [B,6720,9], dirs [B,6720,2]),
    plus the auxiliary head's vehicle logits [B, 64·128] on the features when ``aux`` is given."""
    feats = model.features(images)
    aux_logits = aux(feats).reshape(feats.shape[0], -1) if aux is not None else None
    b = feats.shape[0]
    flat = feats.reshape(b, ref.FEATURE_C, ref.FEATURE_H * ref.FEATURE_W)
    vol = torch.gather(flat, 2, lut_index[:, None, :].expand(b, ref.FEATURE_C, ref.VOXELS)) * lut_vis[:, None, :]
    vol = vol.reshape(b, ref.FEATURE_C, ref.GRID_X, ref.GRID_Y, ref.GRID_Z)
    bev = model.neck_3d(vol)
    cls, reg, dirs = model.bbox_head(bev)
    per = lambda t, c: t.permute(0, 2, 3, 1).reshape(b, -1, c)  # noqa: E731
    outputs = (per(cls, ref.CLASSES), per(reg, ref.CODE_SIZE), per(dirs, 2))
    return outputs if aux is None else (*outputs, aux_logits)


class AuxiliaryHead(torch.nn.Module):
    """Training-only head on the stride-4 features: which pixels show a vehicle. Dense 2-D
    supervision teaches the from-scratch backbone vehicle features far faster than the sparse BEV
    targets alone; it is not part of the exported network."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(ref.FEATURE_C, 64, 3, 1, 1)
        self.out = torch.nn.Conv2d(64, 1, 1)
        torch.nn.init.normal_(self.out.weight, 0, 0.01)
        torch.nn.init.constant_(self.out.bias, -math.log(0.99 / 0.01))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(F.relu(self.conv(x)))


def init_head(model: ref.Safety40) -> None:
    for conv in (model.bbox_head.conv_cls, model.bbox_head.conv_reg, model.bbox_head.conv_dir_cls):
        torch.nn.init.normal_(conv.weight, 0, 0.01)
        torch.nn.init.zeros_(conv.bias)
    torch.nn.init.constant_(model.bbox_head.conv_cls.bias, -math.log(0.99 / 0.01))


class Trainable(torch.nn.Module):
    """The model and the auxiliary head as one module, so that DistributedDataParallel sees the whole
    forward pass (``forward``) and synchronises every gradient."""

    def __init__(self, model: ref.Safety40, aux: Optional["AuxiliaryHead"]) -> None:
        super().__init__()
        self.model = model
        self.aux = aux

    def forward(self, images: torch.Tensor, lut_index: torch.Tensor, lut_vis: torch.Tensor):
        return forward(self.model, images, lut_index, lut_vis, self.aux)


def build_model(args, device: torch.device) -> Tuple[ref.Safety40, Optional[AuxiliaryHead]]:
    """The network and auxiliary head as every rank builds them (same seed: same initial weights),
    with ``--init-from`` applied."""
    random.seed(args.seed)
    torch.manual_seed(args.seed)
    # channels-last convolutions run about twice as fast on CPU (oneDNN), measured here.
    model = ref.Safety40().to(device, memory_format=torch.channels_last)
    init_head(model)
    aux = AuxiliaryHead().to(device, memory_format=torch.channels_last) if args.aux_weight > 0 else None
    if args.init_from:
        if args.init_from.suffix == ".safetensors":
            # Our exported weights (F16 or F32, BN unfolded or folded): the network only, fresh aux head.
            ref.load_state(args.init_from, model)
            note = "safetensors weights"
        else:
            init = torch.load(args.init_from, map_location=device, weights_only=False)
            model.load_state_dict(init["model"])
            if aux is not None and init.get("aux"):
                aux.load_state_dict(init["aux"])
            note = f"iteration {init['iteration']}, {init['images_seen']} images"
        if getattr(args, "verbose", True):
            print(f"initialised from {args.init_from} ({note})", flush=True)
    model.train()
    return model, aux
