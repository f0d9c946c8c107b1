"""Datasets of any layout the engine reads (`docs/guides/training.md` §6).

A ``--data`` directory that holds ``network/`` and ``labels/`` (`periphery synth --network-inputs`,
or a cache made as below) is read as it is. Any other directory (a KITTI object root, a Cityscapes 3D
root, a synthetic directory without network inputs) is first converted by ``$PERIPHERY prepare
--data DIR --out CACHE`` (binary from the environment variable PERIPHERY, default
.build/release/periphery; ``--split``, ``--mount-height``, ``--mount-pitch``, ``--layout`` and
``--strict`` are passed through). The cache is ``--cache``/<dir name>-<8 hex of the SHA-1 of DIR's
absolute path>[-<split>] (``--cache`` defaults to OUT/prepared) and is reused when it holds the
``complete`` marker of a successful prepare and was made with the same options (CACHE/prepare.json).
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import List, Optional

from periphery import _checkout


def is_native(directory: Path) -> bool:
    """A directory the trainer reads as it is: network inputs and labels (synth --network-inputs, or a prepared cache)."""
    return (directory / "network").is_dir() and (directory / "labels").is_dir()


def layout(directory: Path) -> str:
    """The dataset layout of a --data directory, for the provenance metadata (`docs/guides/training.md` §6)."""
    if is_native(directory):
        return "prepared" if (directory / "sources.csv").exists() else "synthetic"
    if (directory / "gtBbox3d").is_dir():
        return "cityscapes3d"
    if any((directory / sub / "label_2").is_dir() for sub in ("", "training")):
        return "kitti"
    if (directory / "images").is_dir() and (directory / "labels").is_dir():
        return "synthetic"
    return "unknown"


def periphery_binary() -> Path:
    return Path(os.environ.get("PERIPHERY", _checkout.DEFAULT_BINARY))


def prepare_options(args, split: Optional[str]) -> List[str]:
    options: List[str] = []
    if args.layout:
        options += ["--layout", args.layout]
    if split:
        options += ["--split", split]
    if args.mount_height is not None:
        options += ["--mount-height", repr(args.mount_height)]
    if args.mount_pitch is not None:
        options += ["--mount-pitch", repr(args.mount_pitch)]
    if args.strict:
        options += ["--strict"]
    return options


def cache_path(directory: Path, args, split: Optional[str]) -> Path:
    """OUT/prepared (or --cache)/<dir name>-<8 hex of sha1(absolute path)>[-<split>]."""
    absolute = directory.resolve()
    base = args.cache if args.cache is not None else args.out / "prepared"
    digest = hashlib.sha1(str(absolute).encode("utf-8")).hexdigest()[:8]
    return base / (f"{absolute.name}-{digest}" + (f"-{split}" if split else ""))


def prepared_ready(cache: Path, options: List[str]) -> bool:
    """A finished cache (`prepare` writes ``complete`` last) made with these options (``prepare.json``)."""
    try:
        return (is_native(cache) and (cache / "complete").exists()
                and json.loads((cache / "prepare.json").read_text()).get("options") == options)
    except (OSError, ValueError, AttributeError):
        return False


def prepare(directory: Path, args, split: Optional[str], run: bool) -> Path:
    """The native directory to read for ``directory``: itself, or its `periphery prepare` cache.

    With ``run`` false (ranks other than each node's local rank 0) only the finished cache is looked
    up. The cache is written under a temporary name and renamed; it is used only with `prepare`'s
    ``complete`` marker and a ``prepare.json`` naming the same options, so a half-written cache or
    one of other options is never used."""
    if is_native(directory):
        return directory
    if not directory.is_dir():
        raise SystemExit(f"{directory}: no such dataset directory")
    options = prepare_options(args, split)
    cache = cache_path(directory, args, split)
    if prepared_ready(cache, options) or not run:
        return cache
    binary = periphery_binary()
    partial = cache.with_name(f"{cache.name}.partial-{os.getpid()}")
    shutil.rmtree(partial, ignore_errors=True)
    partial.parent.mkdir(parents=True, exist_ok=True)
    command = [str(binary), "prepare", "--data", str(directory.resolve()), "--out", str(partial), *options]
    print("preparing: " + " ".join(command), flush=True)
    try:
        result = subprocess.run(command)
    except OSError as error:
        raise SystemExit(f"{directory}: cannot run {binary} prepare ({error}); set PERIPHERY to the CLI binary") from error
    if result.returncode != 0 or not is_native(partial):
        shutil.rmtree(partial, ignore_errors=True)
        raise SystemExit(f"{directory}: `{' '.join(command)}` failed (exit {result.returncode}); "
                         "a directory with network/ and labels/ is read as it is, any other needs `periphery prepare`")
    (partial / "prepare.json").write_text(json.dumps({"source": str(directory.resolve()), "options": options,
                                                      "layout": layout(directory), "command": command[1:3]},
                                                     sort_keys=True) + "\n")
    if cache.exists() and not prepared_ready(cache, options):
        shutil.rmtree(cache)  # a stale cache of other options, or one that never completed
    try:
        os.rename(partial, cache)
    except OSError:
        # Another node sharing this file system renamed its cache first: use that one.
        shutil.rmtree(partial, ignore_errors=True)
        if not prepared_ready(cache, options):
            raise
    return cache
