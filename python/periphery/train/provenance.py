"""The provenance metadata of the exported weights: what the network was trained on, how, and
where its scores were calibrated (`docs/guides/weights.md`)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Dict, List

import torch

from periphery.reference import safety40 as ref
from periphery.train.augmentation import Augmentation
from periphery.train.distributed import World
from periphery.train.prepare import layout

# The recipe's settings that the metadata records (`trainer_settings`).
RECIPE_SETTINGS = ("lr", "warmup", "weight_decay", "box_weight", "dir_weight", "pos_radius", "ignore_radius", "seed",
                   "iterations", "batch", "aux_weight", "oversample_near_two_wheelers", "two_wheeler_weight",
                   "near_box_weight", "near_box_range")


def provenance_sentence(args, layouts: List[str]) -> str:
    """The ``provenance`` sentence: the trainer, the start (scratch or ``--init-from``) and the data."""
    if layouts == ["synthetic"] and not args.init_from:
        return ("trained from scratch by periphery-train on frames of Periphery's synthetic world "
                "(periphery synth); synthetic scenes only - real cameras need the real Safety40 checkpoint")
    return ("trained by periphery-train "
            + (f"from {args.init_from.name}" if args.init_from else "from scratch")
            + f" on {', '.join(layouts)} frames ({', '.join(d.name for d in args.data)})")


def trainer_settings(args, world: World, augmentation: Augmentation) -> str:
    return json.dumps({k: v for k, v in sorted(vars(args).items()) if k in RECIPE_SETTINGS}
                      # The file's name, not this machine's path to it.
                      | {"init_from": args.init_from.name if args.init_from else None}
                      | ({"world_size": world.size, "global_batch": args.batch * world.size} if world.distributed else {})
                      | ({"flip": args.flip} if args.flip else {})
                      | ({"zoom": args.zoom, "zoom_extent": args.zoom_extent} if args.zoom else {})
                      | ({"photometric": augmentation.photometric} if augmentation.photometric != 1.0 else {}))


def export_metadata(args, model: ref.Safety40, frames: int, iterations: int, images_seen: int, device: torch.device,
                    world: World, augmentation: Augmentation) -> Dict[str, str]:
    """The metadata of the exported weights at the end of training (before score calibration)."""
    layouts = sorted({layout(d) for d in args.data})
    return {
        **ref.WEIGHTS_METADATA, "bn_folded": "false", "trained_focal_px": "565.6",
        "parameter_count": str(sum(p.numel() for p in model.parameters())), "trained": "true",
        "training_data": "synthetic" if layouts == ["synthetic"] else ",".join(layouts),
        "provenance": provenance_sentence(args, layouts),
        "data_seed": args.data_seed, "frames": str(frames), "iterations": str(iterations),
        "images_seen": str(images_seen), "batch": str(args.batch), "device": str(device),
        "trainer_settings": trainer_settings(args, world, augmentation),
    }


def dataset_name(directory: Path) -> str:
    """A dataset as the metadata names it: the `periphery synth` command that made it, which the
    command records in DIR/synth.json, or else the directory's own name (never the machine's path)."""
    try:
        command = json.loads((directory / "synth.json").read_text())["command"]
    except FileNotFoundError:
        return directory.resolve().name
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise SystemExit(f"{directory / 'synth.json'}: not a synth record ({error})") from error
    if not isinstance(command, str):
        raise SystemExit(f"{directory / 'synth.json'}: 'command' is not a string")
    return command


def score_calibration_entry(shifts: List[float], threshold_before: float, table: Dict[str, float],
                            directories: List[Path], near_recall: float, frames: int) -> str:
    """The ``score_calibration`` entry: the logit shifts and the datasets they were fitted on."""
    return json.dumps({
        "logit_shift": shifts, "threshold_before": threshold_before, "fitted_on": [dataset_name(d) for d in directories],
        "near_recall_target": near_recall, "frames": frames, "f1_by_threshold": table}, sort_keys=True)
