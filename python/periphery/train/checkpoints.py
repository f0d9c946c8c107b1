"""Checkpoints and the exported weights.

A checkpoint (``--out``/checkpoint.pt, written atomically) holds the model, the optimiser, the
iteration, the epoch's frame order and every rank's RNG states, so a stopped run resumes exactly where
it was (``--resume``; exactly only with the same world size). The export is the F16 weights with
provenance metadata.
"""
from __future__ import annotations

import os
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

import numpy as np
import torch

from periphery.reference import safety40 as ref
from periphery.train.distributed import World
from periphery.train.model import AuxiliaryHead


@dataclass
class Progress:
    """How far a run has come: iterations done, the epoch, its frame order and the position in it."""

    iteration: int = 0
    epoch: int = 0
    order: List[str] = field(default_factory=list)
    position: int = 0
    images_seen: int = 0


def rng_state(np_rng: np.random.Generator) -> dict:
    return {"python": random.getstate(), "numpy": np_rng.bit_generator.state, "torch": torch.get_rng_state(),
            "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None}


def save_checkpoint(path: Path, payload: dict) -> None:
    tmp = path.with_suffix(".tmp")
    torch.save(payload, tmp)
    os.replace(tmp, path)


def checkpoint(model: ref.Safety40, aux: Optional[AuxiliaryHead], optimiser: torch.optim.Optimizer,
               progress: Progress, rng_states: List[dict], world: World, args) -> dict:
    """What ``save_checkpoint`` writes: the run's state and its arguments (paths as strings)."""
    return {"model": model.state_dict(), "aux": aux.state_dict() if aux is not None else None,
            "optimizer": optimiser.state_dict(), "iteration": progress.iteration, "epoch": progress.epoch,
            "order": progress.order, "position": progress.position, "images_seen": progress.images_seen,
            "rng": rng_states[0], "rng_ranks": rng_states, "world_size": world.size,
            "args": vars(args) | {"data": [str(d) for d in args.data], "val": str(args.val), "out": str(args.out),
                                  "export": str(args.export), "cache": str(args.cache),
                                  "init_from": str(args.init_from), "debug_record": str(args.debug_record),
                                  "calibrate_scores": [str(d) for d in args.calibrate_scores or []]}}


def resume(path: Path, device: torch.device, model: ref.Safety40, aux: Optional[AuxiliaryHead],
           optimiser: torch.optim.Optimizer, np_rng: np.random.Generator, world: World, seed: int,
           say: Callable[[str], None]) -> Tuple[Progress, np.random.Generator]:
    """Loads a checkpoint into the model, auxiliary head and optimiser and restores this rank's RNG
    states; returns the progress and the augmentation generator to continue with."""
    ck = torch.load(path, map_location=device, weights_only=False)
    model.load_state_dict(ck["model"])
    if aux is not None:
        aux.load_state_dict(ck["aux"])
    optimiser.load_state_dict(ck["optimizer"])
    progress = Progress(ck["iteration"], ck["epoch"], ck["order"], ck["position"], ck["images_seen"])
    saved = ck.get("rng_ranks") or [ck["rng"]]
    if len(saved) == world.size:
        state = saved[world.rank]
        random.setstate(state["python"])
        np_rng.bit_generator.state = state["numpy"]
        torch.set_rng_state(state["torch"])
        if state["cuda"] is not None and torch.cuda.is_available():
            torch.cuda.set_rng_state_all(state["cuda"])
    else:
        np_rng = np.random.default_rng([seed + world.rank, progress.iteration])
        say(f"warning: the checkpoint holds the RNG states of {len(saved)} ranks, this run has {world.size}: "
            "augmentation continues from fresh seeds (the run is not the uninterrupted one)")
    say(f"resumed at iteration {progress.iteration} (epoch {progress.epoch}, {progress.images_seen} images seen)")
    return progress, np_rng


def export(model: ref.Safety40, path: Path, metadata: Dict[str, str]) -> None:
    state = {k: v.detach().float().cpu().numpy().astype(np.float16) for k, v in model.state_dict().items()
             if not k.endswith("num_batches_tracked")}
    ref.write_safetensors(path, state, metadata)
