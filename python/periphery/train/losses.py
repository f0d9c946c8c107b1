"""The training losses (Anchor3DHead, `docs/guides/training.md`).

Sigmoid focal loss (γ 2, α 0.25) on classes, smooth-L1 (β 1/9) on the 7 box codes with
sin-difference on yaw (velocity codes weighted 0: Safety40 never reads them), softmax CE on the
direction bins; each divided by the number of positives. ``two_wheeler_weight`` weighs two-wheeler
positives in the class loss, ``near_box_weight`` the box codes of positives in head cells within
``near_box_range`` metres (range accuracy near the 10 m boundary of `docs/guides/evaluation.md`).
The auxiliary head's loss is the same focal loss per positive pixel.
"""
from __future__ import annotations

from typing import Dict

import numpy as np
import torch
import torch.nn.functional as F

from periphery.reference import safety40 as ref
from periphery.train.targets import ANCHORS, GRID_X_OFFSET

CODE_WEIGHTS = torch.tensor([1, 1, 1, 1, 1, 1, 1, 0, 0], dtype=torch.float32)
# Vehicle-frame range of each anchor's cell centre (vehicle x = grid y + offset, vehicle y = −grid x).
ANCHOR_RANGE = torch.from_numpy(np.hypot(ANCHORS[:, 1] + GRID_X_OFFSET, ANCHORS[:, 0])).float()  # [6720]


def sigmoid_focal(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Element-wise sigmoid focal loss, γ 2 and α 0.25, of logits against 0/1 targets."""
    p = torch.sigmoid(logits)
    ce = F.binary_cross_entropy_with_logits(logits, target, reduction="none")
    p_t = p * target + (1 - p) * (1 - target)
    return (0.25 * target + 0.75 * (1 - target)) * (1 - p_t) ** 2 * ce


def losses(outputs, labels, codes, dirs, box_weight: float, dir_weight: float,
           two_wheeler_weight: float = 1.0, near_box_weight: float = 1.0,
           near_box_range: float = 14.0) -> Dict[str, torch.Tensor]:
    cls, reg, dir_logits = outputs
    positive = (labels >= 0) & (labels < ref.CLASSES)
    valid = labels >= 0
    num_pos = max(float(positive.sum().item()), 1.0)
    onehot = F.one_hot(labels.clamp(min=0), ref.CLASSES + 1)[..., : ref.CLASSES].to(cls.dtype)
    focal = sigmoid_focal(cls, onehot).sum(-1)
    # Two-wheeler positives can weigh more: they are few and were scored below the threshold.
    weight = 1.0 + (two_wheeler_weight - 1.0) * (labels == 2).to(cls.dtype)
    loss_cls = (focal * valid * weight).sum() / num_pos
    pred = reg[positive]
    target = codes[positive]
    if pred.numel():
        # sin-difference on the yaw code: sin(p)cos(t) vs cos(p)sin(t)
        p_yaw, t_yaw = pred[:, 6:7], target[:, 6:7]
        pred = torch.cat([pred[:, :6], torch.sin(p_yaw) * torch.cos(t_yaw), pred[:, 7:]], 1)
        target = torch.cat([target[:, :6], torch.cos(p_yaw) * torch.sin(t_yaw), target[:, 7:]], 1)
        diff = (pred - target).abs()
        beta = 1.0 / 9.0
        sl1 = torch.where(diff < beta, 0.5 * diff * diff / beta, diff - 0.5 * beta)
        # A positive's cell lies within pos_radius of its truth, so the cell's range stands for it.
        near = (ANCHOR_RANGE.to(reg.device) <= near_box_range).expand_as(positive)[positive]
        row_weight = 1.0 + (near_box_weight - 1.0) * near.to(sl1.dtype)
        loss_box = (sl1 * CODE_WEIGHTS.to(sl1.device) * row_weight[:, None]).sum() / num_pos
        loss_dir = F.cross_entropy(dir_logits[positive], dirs[positive], reduction="sum") / num_pos
    else:
        loss_box = reg.sum() * 0
        loss_dir = dir_logits.sum() * 0
    return {"cls": loss_cls, "box": box_weight * loss_box, "dir": dir_weight * loss_dir}


def aux_loss(logits: torch.Tensor, mask: torch.Tensor, weight: float) -> torch.Tensor:
    """Sigmoid focal loss of the auxiliary vehicle-pixel head, per positive pixel."""
    target = F.max_pool2d(mask.reshape(-1, 1, ref.FEATURE_H, ref.FEATURE_W), 3, 1, 1).reshape(mask.shape)
    return weight * sigmoid_focal(logits, target).sum() / target.sum().clamp(min=1.0)
