"""Where the repository checkout is, for the tools' default paths (weights, LUT, CLI binary).

The tools default to files of the checkout: ``Weights/…``, the self-check LUT under ``Sources/…``
and the release CLI ``.build/release/periphery``. When the package runs from a checkout (an
editable install, ``pip install -e python``, or ``python/`` itself), that is the folder above
``python/``; when it runs from an installed wheel, the defaults are taken relative to the working
directory, so run the tools from a checkout's root or pass the paths explicitly.

Standard library only: the runtime's subpackages may import it without the extras.
"""
from __future__ import annotations

from pathlib import Path


def _root() -> Path:
    here = Path(__file__).resolve().parent.parent.parent  # python/periphery/_checkout.py → the checkout
    return here if (here / "Package.swift").is_file() else Path.cwd()


REPO_ROOT = _root()
DEFAULT_BINARY = REPO_ROOT / ".build/release/periphery"
