"""Tensors of one batch of frames, augmented for training or as they are for evaluation."""
from __future__ import annotations

from typing import List, Optional

import numpy as np
import torch

from periphery.train.augmentation import Augmentation, augment_frame
from periphery.train.data import Frame, normalise


def batch(frames: List[Frame], rng: Optional[np.random.Generator], device: torch.device,
          aug: Augmentation = Augmentation()):
    """Tensors of one batch; with ``rng`` each frame is augmented (``augment_frame``), without it used as is."""
    samples = [augment_frame(f, aug, rng) if rng is not None else (f, f.pixels) for f in frames]
    images = np.stack([normalise(pixels, f.letterbox) for f, pixels in samples])
    frames = [f for f, _ in samples]
    to = lambda a: torch.from_numpy(np.stack(a)).to(device)  # noqa: E731
    return (torch.from_numpy(images).to(device).contiguous(memory_format=torch.channels_last),
            to([f.lut_index for f in frames]), to([f.lut_visibility for f in frames]), to([f.labels for f in frames]),
            to([f.codes for f in frames]), to([f.dirs for f in frames]), to([f.mask for f in frames]))
