#!/usr/bin/env python3
"""Lays frames of the structured synthetic world beside real road frames of the test set, for the
synthetic-world guide: each row a real frame (Tests/real, never used for training) and a rendered
one at the same size.

    .build/venv/bin/python tools/make_world_figure.py [--periphery .build/release/periphery] \
        [--seed 7] [-o docs/guides/pictures/structured-world.jpg]

The rendered frames come from `periphery synth --world structured --width 1280 --height 720
--frames 4 --seed SEED`, so the figure is remade from the committed sources by this one command.
"""
from __future__ import annotations

import argparse
import subprocess
import tempfile
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
REAL = ["A-udacity-test1.jpg", "B-solidYellowCurve.jpg", "C-pandaset-002-32.jpg", "A-sunsided-challenge3.jpg"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--periphery", default=str(ROOT / ".build/release/periphery"))
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("-o", "--out", type=Path, default=ROOT / "docs/guides/pictures/structured-world.jpg")
    args = ap.parse_args()
    tile = (480, 270)
    with tempfile.TemporaryDirectory() as scratch:
        subprocess.run([args.periphery, "synth", "--world", "structured", "--width", "1280", "--height", "720",
                        "--frames", str(len(REAL)), "--seed", str(args.seed), "--out", scratch], check=True)
        rendered = sorted(Path(scratch, "images").glob("*.png"))
        sheet = Image.new("RGB", (2 * tile[0], len(REAL) * tile[1]))
        for row, (real, synthetic) in enumerate(zip(REAL, rendered)):
            sheet.paste(Image.open(ROOT / "Tests/real/frames" / real).convert("RGB").resize(tile), (0, row * tile[1]))
            sheet.paste(Image.open(synthetic).convert("RGB").resize(tile), (tile[0], row * tile[1]))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    sheet.save(args.out, quality=85)
    print(f"{args.out}: real frames left, structured world right (seed {args.seed})")


if __name__ == "__main__":
    main()
