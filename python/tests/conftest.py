"""Shared fixtures of the Python tests (`make test-tools`: ``python -m pytest python/tests``).

The tests import the package as installed (``pip install -e python`` in ``make venv-tools``); they need
the release CLI, ``$PERIPHERY`` or the checkout's .build/release/periphery.
"""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(os.environ.get("PERIPHERY", ROOT / ".build/release/periphery"))


@pytest.fixture(scope="session")
def periphery_cli() -> Path:
    """The `periphery` CLI; the tests fail, saying so, without it."""
    if not BIN.is_file():
        pytest.fail(f"no periphery CLI at {BIN}: build it (swift build -c release) or set PERIPHERY")
    return BIN


@pytest.fixture(scope="session")
def cli_has(periphery_cli: Path):
    """``cli_has(command, *options)``: whether the CLI knows a subcommand (and options): it accepts
    ``--help`` and the help names them."""

    def has(*words: str) -> bool:
        result = subprocess.run([str(periphery_cli), words[0], "--help"], capture_output=True, text=True)
        text = result.stdout + result.stderr
        return result.returncode == 0 and "unknown command" not in text and all(w in text for w in words[1:])

    return has
