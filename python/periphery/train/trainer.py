"""Trains the Safety40 network on dataset frames of any layout the engine reads (synthetic, KITTI object, Cityscapes 3D).

The recipe is `docs/guides/training.md`'s "Anchor3DHead" with remedy 3 for the contract's small
anchors; each part lives in a module of its own, whose docstring says how:

* ``data`` and ``prepare``: the frames exactly as the Swift engine feeds them (network inputs and
  labels; other layouts through a `periphery prepare` cache);
* ``targets``: the anchor targets (positive, ignored and background anchors, the DeltaXYZWLHR coder);
* ``projection``: the camera fitted to a frame's LUT, and the auxiliary head's vehicle silhouettes;
* ``augmentation`` and ``batches``: photometric jitter, flip and zoom (image, LUT and labels
  together), and the tensors of a batch;
* ``model`` and ``losses``: Safety40 with one LUT per frame plus an auxiliary, training-only head on
  the stride-4 features that learns which pixels show a vehicle (dense 2-D supervision, which a
  from-scratch backbone needs to learn vehicle features in hours rather than days; not part of the
  exported network), and their focal, smooth-L1 and direction losses;
* ``evaluation`` and ``score_calibration``: decode, matching and the report of
  `docs/guides/evaluation.md`, and the logit shifts of ``--calibrate-scores``;
* ``distributed``, ``checkpoints`` and ``provenance``: torchrun, exact resume, the export's metadata.

This module runs them: AdamW (0.9/0.999, weight decay 0.01), linear warm-up then cosine decay,
global-norm clip 35; BN in training mode (from scratch). ``--oversample-near-two-wheelers N`` repeats
the frames with a two-wheeler in view within 12 m N times per epoch (the rare, weak case).

Distributed: under ``torchrun --nproc-per-node N`` the model runs in DistributedDataParallel.
``--batch`` is the batch *per rank* (global batch = batch × world size); every rank draws the same
shuffled epoch order and rank r takes positions r, r + W, … of each global batch; rank r augments
with seed + rank. Only rank 0 writes train.log, checkpoints and the export. On CUDA the forward pass
and the losses run under ``torch.autocast(dtype=bfloat16)`` (``--amp``/``--no-amp``; the CPU path is
float32). ``--init-from`` takes a checkpoint.pt of this trainer or a Safety40 safetensors file
(fine-tuning from our exported weights).

``--out``/checkpoint.pt is written every ``--checkpoint-every`` iterations; ``train.log`` gets one
JSON line per logged iteration (losses, lr, images/s) and per validation (precision, recall, F1 and
centre error at 0.60 on the held-out frames of ``--val``, matched by `docs/guides/evaluation.md`).
Uses CUDA when present (``--debug-record DIR`` writes, per rank and iteration, the frame names and
the synchronised gradients: what the DDP test compares). ``--export`` writes the F16 weights with
provenance metadata; with ``--calibrate-scores DIR`` the class logits are first shifted so that the
operating point on DIR's frames sits at 0.60 (``--calibration-near-recall R`` puts recall inside
10 m up to R before F1).
"""
from __future__ import annotations

import argparse
import contextlib
import json
import math
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, TextIO, Tuple

import numpy as np
import torch

from periphery.reference import safety40 as ref
from periphery.train import distributed
from periphery.train.augmentation import Augmentation
from periphery.train.batches import batch
from periphery.train.checkpoints import Progress, checkpoint, export, resume, rng_state, save_checkpoint
from periphery.train.data import Frame, has_near_two_wheeler, load_frames
from periphery.train.distributed import World
from periphery.train.evaluation import evaluate
from periphery.train.losses import aux_loss, losses
from periphery.train.model import AuxiliaryHead, Trainable, build_model
from periphery.train.options import parse_arguments
from periphery.train.prepare import prepare
from periphery.train.provenance import export_metadata, score_calibration_entry
from periphery.train.score_calibration import calibrate_scores, fold_logit_shifts


def learning_rate(it: int, args) -> float:
    if it < args.warmup:
        return args.lr * (0.001 + 0.999 * it / args.warmup)
    t = (it - args.warmup) / max(args.iterations - args.warmup, 1)
    return args.lr * (0.02 + 0.98 * 0.5 * (1 + math.cos(math.pi * min(t, 1.0))))


@dataclass
class Datasets:
    """The native directories read for ``--data``, ``--val`` and ``--calibrate-scores``."""

    data: List[Path]
    val: Optional[Path]
    calibrate: List[Path]


def prepare_datasets(args, world: World) -> Datasets:
    """Datasets of other layouts are converted once (per node: its local rank 0), then read natively."""
    make = world.local_rank == 0
    data = [prepare(d, args, args.split, make) for d in args.data]
    val = prepare(args.val, args, args.val_split, make) if args.val else None
    calibrate = [prepare(d, args, args.val_split, make) for d in args.calibrate_scores or []]
    if world.distributed:
        distributed.barrier(world)
        data = [prepare(d, args, args.split, False) for d in args.data]
    return Datasets(data, val, calibrate)


def optimiser_for(model: ref.Safety40, aux: Optional[AuxiliaryHead], args
                  ) -> Tuple[List[Tuple[str, torch.nn.Parameter]], torch.optim.Optimizer]:
    """The trained parameters (the model's, then the auxiliary head's) and AdamW over them, without
    weight decay on biases and BN parameters."""
    decay, no_decay = [], []
    params = list(model.named_parameters()) + (list(aux.named_parameters()) if aux is not None else [])
    for name, p in params:
        (no_decay if p.ndim == 1 else decay).append(p)
    optimiser = torch.optim.AdamW([{"params": decay, "weight_decay": args.weight_decay},
                                   {"params": no_decay, "weight_decay": 0.0}],
                                  lr=args.lr, betas=(0.9, 0.999), eps=1e-8)
    return params, optimiser


@dataclass
class Run:
    """One rank's training run: where it runs, what it reads and writes, what it trains and how far it is."""

    args: argparse.Namespace
    world: World
    device: torch.device
    datasets: Datasets
    model: ref.Safety40
    aux: Optional[AuxiliaryHead]
    net: torch.nn.Module
    params: List[Tuple[str, torch.nn.Parameter]]
    optimiser: torch.optim.Optimizer
    augmentation: Augmentation
    np_rng: np.random.Generator
    log: Optional[TextIO]
    record: Optional[TextIO]
    progress: Progress = field(default_factory=Progress)
    frames: Dict[str, Frame] = field(default_factory=dict)
    val: List[Frame] = field(default_factory=list)

    @property
    def lead(self) -> bool:
        return self.world.rank == 0

    @property
    def amp(self) -> bool:
        return self.device.type == "cuda" and self.args.amp is not False

    @property
    def step(self) -> int:
        """The global batch."""
        return self.args.batch * self.world.size

    @property
    def checkpoint_path(self) -> Path:
        return self.args.out / "checkpoint.pt"

    def say(self, text: str) -> None:
        if self.lead:
            print(text, flush=True)


def open_logs(args, world: World) -> Tuple[Optional[TextIO], Optional[TextIO]]:
    """train.log (rank 0 only) and this rank's ``--debug-record`` file."""
    args.out.mkdir(parents=True, exist_ok=True)
    log = open(args.out / "train.log", "a", buffering=1) if world.rank == 0 else None
    record = None
    if args.debug_record:
        args.debug_record.mkdir(parents=True, exist_ok=True)
        record = open(args.debug_record / f"rank{world.rank}.jsonl", "a", buffering=1)
    return log, record


def start(args) -> Run:
    """Everything before the first iteration: the process group, the datasets, the model and
    optimiser (resumed from the checkpoint with ``--resume``) and the frames in memory."""
    world = distributed.world_from_environment()
    args.verbose = world.rank == 0
    device = distributed.join(world)
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    log, record = open_logs(args, world)
    datasets = prepare_datasets(args, world)
    np_rng = np.random.default_rng(args.seed + world.rank)  # rank r augments with seed + r
    model, aux = build_model(args, device)
    trainable = Trainable(model, aux)
    net = (torch.nn.parallel.DistributedDataParallel(trainable, device_ids=[device.index] if device.type == "cuda" else None)
           if world.distributed else trainable)
    params, optimiser = optimiser_for(model, aux, args)
    augmentation = Augmentation(args.photometric_prob if args.photometric else 0.0, args.flip, args.zoom, args.zoom_extent)
    run = Run(args, world, device, datasets, model, aux, net, params, optimiser, augmentation, np_rng, log, record)
    if args.resume and run.checkpoint_path.exists():
        run.progress, run.np_rng = resume(run.checkpoint_path, device, model, aux, optimiser, np_rng, world, args.seed,
                                          run.say)
    load_datasets(run)
    return run


def load_datasets(run: Run) -> None:
    args = run.args
    run.frames = load_frames(run.datasets.data, args.pos_radius, args.ignore_radius)
    if run.datasets.val and run.lead:
        run.val = list(load_frames([run.datasets.val], args.pos_radius, args.ignore_radius).values())
    run.say(f"{len(run.frames)} training frames, {len(run.val)} held-out frames, device {run.device}, "
            f"threads {torch.get_num_threads()}, world size {run.world.size} (global batch {run.step})"
            + (", bfloat16 autocast" if run.amp else ""))
    missing = [k for k in run.progress.order if k not in run.frames]
    if missing:
        raise SystemExit(f"checkpoint's epoch order names frames that are gone: {missing[:4]}")


def next_epoch(run: Run) -> None:
    """A new epoch picks up frames written since the last one (synth may still be running); rank 0's
    order is every rank's."""
    args, progress = run.args, run.progress
    run.frames = load_frames(run.datasets.data, args.pos_radius, args.ignore_radius, run.frames)
    order = sorted(run.frames)
    # Near two-wheelers are rare (7 % of frames) and were the detector's weakest case.
    order += [k for k in sorted(run.frames) if has_near_two_wheeler(run.frames[k])] * (args.oversample_near_two_wheelers - 1)
    random.Random(args.seed * 1000 + progress.epoch).shuffle(order)
    order = distributed.broadcast_object(order, run.world)
    if any(k not in run.frames for k in order):
        run.frames = load_frames(run.datasets.data, args.pos_radius, args.ignore_radius, run.frames)
    if len(order) < run.step:
        raise SystemExit(f"{len(order)} frames cannot fill a global batch of {run.step}")
    progress.order, progress.epoch, progress.position = order, progress.epoch + 1, 0


def train_step(run: Run, names: List[str]) -> Tuple[Dict[str, torch.Tensor], torch.Tensor]:
    """One optimiser step on this rank's frames ``names``: the loss parts and the gradient norm."""
    args = run.args
    for group in run.optimiser.param_groups:
        group["lr"] = learning_rate(run.progress.iteration, args)
    images, idx, vis, labels, codes, dirs, masks = batch([run.frames[k] for k in names], run.np_rng, run.device,
                                                          run.augmentation)
    with torch.autocast("cuda", dtype=torch.bfloat16) if run.amp else contextlib.nullcontext():
        outputs = run.net(images, idx, vis)
        if run.amp:
            outputs = tuple(o.float() for o in outputs)
        parts = losses(outputs[:3], labels, codes, dirs, args.box_weight, args.dir_weight, args.two_wheeler_weight,
                       args.near_box_weight, args.near_box_range)
        if run.aux is not None:
            parts["aux"] = aux_loss(outputs[3], masks, args.aux_weight)
        total = sum(parts.values())
    run.optimiser.zero_grad(set_to_none=True)
    total.backward()
    if run.record is not None:
        record_step(run, names, total)
    norm = torch.nn.utils.clip_grad_norm_([p for _, p in run.params], 35.0)
    run.optimiser.step()
    return parts, norm


def record_step(run: Run, names: List[str], total: torch.Tensor) -> None:
    """``--debug-record``: this rank's frames and loss, and its synchronised gradients before clipping."""
    it, rank = run.progress.iteration + 1, run.world.rank
    run.record.write(json.dumps({"iteration": it, "rank": rank, "frames": names, "loss": float(total.detach())}) + "\n")
    model_parameters = len(list(run.model.parameters()))
    torch.save({("aux." if i >= model_parameters else "") + name: p.grad.detach().cpu().clone()
                for i, (name, p) in enumerate(run.params) if p.grad is not None},
               run.args.debug_record / f"rank{rank}-iter{it}.pt")


@dataclass
class LossWindow:
    """The loss parts summed since the last log line, and when that line was written."""

    since: float
    sums: Dict[str, float] = field(default_factory=dict)

    def add(self, parts: Dict[str, torch.Tensor]) -> None:
        for k, v in parts.items():
            self.sums[k] = self.sums.get(k, 0.0) + float(v.detach())
        self.sums["n"] = self.sums.get("n", 0) + 1

    def write(self, run: Run, parts: Dict[str, torch.Tensor], norm: torch.Tensor) -> None:
        """One train.log line of the window's mean losses over every rank; the window starts again."""
        args, progress = run.args, run.progress
        means = distributed.all_reduce_mean([self.sums[k] / self.sums["n"] for k in parts], run.world, run.device)
        rate = args.log_every * run.step / (time.time() - self.since)
        self.since = time.time()
        entry = {"iteration": progress.iteration, "epoch": progress.epoch, "images_seen": progress.images_seen,
                 "lr": learning_rate(progress.iteration - 1, args), **dict(zip(parts, means)), "grad_norm": float(norm),
                 "images_per_s": rate}
        if run.lead:
            run.log.write(json.dumps(entry) + "\n")
        run.say(" ".join(f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {v}" for k, v in entry.items()))
        self.sums = {}


def validate(run: Run) -> None:
    result = {"iteration": run.progress.iteration, "validation": evaluate(run.model, run.val, run.device)}
    run.log.write(json.dumps(result) + "\n")
    run.say(json.dumps(result))


def save(run: Run) -> None:
    """The checkpoint, with every rank's RNG states (rank 0 writes it)."""
    states = distributed.all_gather_object(rng_state(run.np_rng), run.world)
    if run.lead:
        save_checkpoint(run.checkpoint_path, checkpoint(run.model, run.aux, run.optimiser, run.progress, states,
                                                        run.world, run.args))


def train(run: Run) -> bool:
    """Trains up to ``--iterations``; false when ``--max-minutes`` stopped the run first (after a checkpoint)."""
    args, progress = run.args, run.progress
    started = time.time()
    window = LossWindow(time.time())
    while progress.iteration < args.iterations:
        if progress.position + run.step > len(progress.order):
            next_epoch(run)
        # Rank r takes positions r, r + W, … of the global batch.
        names = progress.order[progress.position : progress.position + run.step][run.world.rank :: run.world.size]
        progress.position += run.step
        parts, norm = train_step(run, names)
        progress.iteration += 1
        progress.images_seen += run.step
        window.add(parts)
        if progress.iteration % args.log_every == 0:
            window.write(run, parts, norm)
        if run.val and (progress.iteration % args.val_every == 0 or progress.iteration == args.iterations):
            validate(run)
        out_of_time = args.max_minutes > 0 and time.time() - started > 60 * args.max_minutes
        if args.max_minutes > 0:
            out_of_time = distributed.broadcast_object(out_of_time, run.world)  # rank 0's clock decides for all
        if progress.iteration % args.checkpoint_every == 0 or progress.iteration == args.iterations or out_of_time:
            save(run)
        if out_of_time:
            run.say(f"stopping at iteration {progress.iteration} after {args.max_minutes} minutes; --resume continues")
            return False
    return True


def calibrate(run: Run, metadata: Dict[str, str]) -> None:
    """``--calibrate-scores``: fits the logit shifts on the held-out frames, folds them into the
    model and records them in ``metadata``."""
    args = run.args
    held_out = list(load_frames(run.datasets.calibrate, args.pos_radius, args.ignore_radius).values())
    shift, best, table = calibrate_scores(run.model, held_out, run.device, args.calibration_near_recall)
    fold_logit_shifts(run.model, shift)
    metadata["score_calibration"] = score_calibration_entry(shift, best, table, args.calibrate_scores,
                                                            args.calibration_near_recall, len(held_out))
    print(f"score calibration: F1-best threshold {best:.2f} on {len(held_out)} frames → logit shifts "
          + ", ".join(f"{v:+.4f}" for v in shift) + f" (F1 at 0.60: {table['per_class_f1_at_0.60']:.4f}, "
          f"recall inside 10 m {table['recall_10m_at_0.60']:.4f})", flush=True)


def export_weights(run: Run) -> None:
    """``--export``: the F16 weights, score-calibrated with ``--calibrate-scores``, with their provenance."""
    args = run.args
    metadata = export_metadata(args, run.model, len(run.frames), run.progress.iteration, run.progress.images_seen,
                               run.device, run.world, run.augmentation)
    if run.datasets.calibrate:
        calibrate(run, metadata)
    if run.val:
        metadata["validation"] = json.dumps(evaluate(run.model, run.val, run.device), sort_keys=True)
    if args.evaluation:
        metadata["evaluation"] = json.dumps(json.loads(args.evaluation.read_text()), sort_keys=True)
    if args.training_hours:
        metadata["training_time"] = args.training_hours
    export(run.model, args.export, metadata)
    print(f"wrote {args.export}", flush=True)


def finish(run: Run) -> int:
    for f in (run.log, run.record):
        if f is not None:
            f.close()
    distributed.leave(run.world)
    return 0


def main(argv: Optional[List[str]] = None) -> int:
    run = start(parse_arguments(argv, __doc__.split("\n\n")[0]))
    if train(run) and run.args.export and run.lead:
        export_weights(run)
    return finish(run)


if __name__ == "__main__":
    sys.exit(main())
