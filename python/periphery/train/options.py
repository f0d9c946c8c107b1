"""The trainer's command line (``periphery-train --help``)."""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import List, Optional


def dataset_options(ap: argparse.ArgumentParser) -> None:
    """The datasets and how `periphery prepare` converts them."""
    ap.add_argument("--data", type=Path, nargs="+", required=True,
                    help="dataset directories, any layout (network/ + labels/ as they are; others via `periphery prepare`)")
    ap.add_argument("--val", type=Path, help="held-out dataset directory (any layout) for the F1 in the log")
    ap.add_argument("--out", type=Path, required=True, help="run directory (checkpoint.pt, train.log)")
    ap.add_argument("--cache", type=Path, help="where prepared datasets go (default OUT/prepared)")
    ap.add_argument("--layout", choices=("native", "kitti", "cityscapes3d"),
                    help="`periphery prepare --layout`: the layout to read where a directory holds several")
    ap.add_argument("--split", help="dataset split of --data for `periphery prepare` (e.g. train)")
    ap.add_argument("--val-split", help="dataset split of --val and --calibrate-scores for `periphery prepare` (e.g. val)")
    ap.add_argument("--mount-height", type=float, help="camera height above the road in metres, for `periphery prepare` (KITTI)")
    ap.add_argument("--mount-pitch", type=float, help="camera pitch in degrees, nose up, for `periphery prepare` (KITTI)")
    ap.add_argument("--strict", action="store_true", help="`periphery prepare --strict`: a bad frame is fatal, not skipped")


def schedule_options(ap: argparse.ArgumentParser) -> None:
    """The optimiser and its schedule, the anchor targets, the seed and the threads."""
    ap.add_argument("--iterations", type=int, default=4000)
    ap.add_argument("--batch", type=int, default=4, help="batch per rank (under torchrun the global batch is this × world size)")
    ap.add_argument("--lr", type=float, default=6e-4)
    ap.add_argument("--warmup", type=int, default=300)
    ap.add_argument("--weight-decay", type=float, default=0.01)
    ap.add_argument("--box-weight", type=float, default=2.0)
    ap.add_argument("--dir-weight", type=float, default=0.8)
    ap.add_argument("--pos-radius", type=float, default=0.8, help="metres: head cells this close to a box centre are positive")
    ap.add_argument("--ignore-radius", type=float, default=1.6, help="metres: other anchors this close are ignored")
    ap.add_argument("--seed", type=int, default=20261201)
    ap.add_argument("--threads", type=int, default=0, help="CPU threads (0: all cores)")


def output_options(ap: argparse.ArgumentParser) -> None:
    """What the run writes: log, checkpoints, the export and its provenance."""
    ap.add_argument("--log-every", type=int, default=20)
    ap.add_argument("--val-every", type=int, default=500)
    ap.add_argument("--checkpoint-every", type=int, default=100)
    ap.add_argument("--resume", action="store_true", help="continue from OUT/checkpoint.pt")
    ap.add_argument("--export", type=Path, help="write the F16 weights here when training ends")
    ap.add_argument("--data-seed", default="", help="provenance: the synth seeds of --data (metadata only)")
    ap.add_argument("--evaluation", type=Path,
                    help="a `periphery eval --json` result to record in the exported metadata (key `evaluation`)")
    ap.add_argument("--training-hours", default="", help="provenance: wall-clock hours and machine (metadata only)")


def recipe_options(ap: argparse.ArgumentParser) -> None:
    """Initialisation, score calibration, loss weights and augmentation."""
    ap.add_argument("--aux-weight", type=float, default=1.0, help="weight of the auxiliary vehicle-pixel loss (0: off)")
    ap.add_argument("--init-from", type=Path,
                    help="start from this network: a checkpoint.pt of this trainer (not its optimiser) or a "
                         "Safety40 .safetensors file (fine-tuning our exported weights)")
    ap.add_argument("--calibrate-scores", type=Path, nargs="+", metavar="DIR",
                    help="before export, shift the class logits so that the F1-best threshold on these held-out "
                         "datasets becomes 0.60 (Platt-style bias, folded into bbox_head.conv_cls.bias)")
    ap.add_argument("--oversample-near-two-wheelers", type=int, default=1, metavar="TIMES",
                    help="frames with an in-view two-wheeler within 12 m appear this many times per epoch")
    ap.add_argument("--calibration-near-recall", type=float, default=0.0, metavar="R",
                    help="score calibration meets recall inside 10 m >= R on its frames first, then maximises F1")
    ap.add_argument("--two-wheeler-weight", type=float, default=1.0,
                    help="weight of two-wheeler positives in the class loss (1: as every class)")
    ap.add_argument("--near-box-weight", type=float, default=1.0,
                    help="weight of the box codes of positives within --near-box-range metres (1: as every range)")
    ap.add_argument("--near-box-range", type=float, default=14.0, metavar="M",
                    help="metres: range of the head cells whose positives --near-box-weight weighs")
    ap.add_argument("--photometric", action=argparse.BooleanOptionalAction, default=True,
                    help="photometric augmentation (default on)")
    ap.add_argument("--photometric-prob", type=float, default=1.0, metavar="P",
                    help="probability of the photometric augmentation per sample (1: always, as before)")
    ap.add_argument("--flip", type=float, default=0.0, metavar="P",
                    help="probability of the horizontal flip (image, LUT and labels mirrored) per sample (default 0)")
    ap.add_argument("--zoom", type=float, default=0.0, metavar="P",
                    help="probability of the scale jitter (image and LUT zoomed together) per sample (default 0)")
    ap.add_argument("--zoom-extent", type=float, default=0.1, metavar="E", help="scale jitter s in [1-E, 1+E]")


def device_options(ap: argparse.ArgumentParser) -> None:
    """Precision, test records and the time limit."""
    ap.add_argument("--amp", action=argparse.BooleanOptionalAction, default=None,
                    help="bfloat16 autocast of forward and losses on CUDA (default: on with CUDA; CPU never)")
    ap.add_argument("--debug-record", type=Path, metavar="DIR",
                    help="write, per rank and iteration, the frame names (DIR/rankR.jsonl) and the synchronised "
                         "gradients before clipping (DIR/rankR-iterN.pt): large, for tests only")
    ap.add_argument("--max-minutes", type=float, default=0, help="stop (after a checkpoint) when this much time has passed")


def parse_arguments(argv: Optional[List[str]], description: str) -> argparse.Namespace:
    """The arguments of one run, in the order ``--help`` lists them."""
    ap = argparse.ArgumentParser(description=description)
    for add in (dataset_options, schedule_options, output_options, recipe_options, device_options):
        add(ap)
    return ap.parse_args(argv)
