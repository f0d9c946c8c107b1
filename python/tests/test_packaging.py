"""The package's declarations (python/pyproject.toml) against its code and tools/requirements.txt.

* every extra's requirement is an exact pin, and for the tools' extras the same pin as tools/requirements.txt (the venv of
  `make venv` installs both in one resolve, so a drift would fail there; this names it);
* the runtime depends on NumPy alone, and the modules of ``periphery`` outside the tools'
  subpackages import nothing else outside the standard library;
* each tools subpackage imports (function bodies included) only the standard library, NumPy,
  ``periphery`` and the distributions of its extra (``reference`` those of ``train``);
* every console script names an importable module and a callable ``main``.
"""
from __future__ import annotations

import ast
import importlib
import re
import sys
from pathlib import Path
from typing import Dict, Set

import pytest

tomllib = pytest.importorskip("tomllib")

PYTHON = Path(__file__).resolve().parents[1]
ROOT = PYTHON.parent
PROJECT = tomllib.loads((PYTHON / "pyproject.toml").read_text(encoding="utf-8"))["project"]
# Import name → distribution, where they differ.
DISTRIBUTION = {"PIL": "pillow"}
# The extra whose distributions each tools subpackage may import.
EXTRA_OF = {"reference": "train", "train": "train", "convert": "convert", "bench": "bench", "fleet": "fleet"}
# The extras `make venv` installs with tools/requirements.txt; fleet's Ray and pyarrow go into a venv of
# their own (`make fleet-venv`), so only their being exact pins is checked.
TOOLS_EXTRAS = {"train", "convert", "bench"}


def pins(requirements: list) -> Dict[str, str]:
    out = {}
    for line in requirements:
        match = re.fullmatch(r"([A-Za-z0-9_.-]+)==([^\s;#]+)", line.strip())
        assert match, f"not an exact pin: {line!r}"
        out[match.group(1).lower()] = match.group(2)
    return out


def requirements_txt() -> Dict[str, str]:
    lines = [line.split("#")[0].strip() for line in (ROOT / "tools/requirements.txt").read_text().splitlines()]
    return pins([line for line in lines if line and not line.startswith("-")])


def imported(folder: Path) -> Set[str]:
    """Top-level names of every absolute import in the folder's modules (function bodies included)."""
    names = set()
    for path in folder.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                names |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return names


def test_extras_are_the_pins_of_tools_requirements() -> None:
    pinned = requirements_txt()
    extras = PROJECT["optional-dependencies"]
    assert set(extras) == TOOLS_EXTRAS | {"fleet"}
    for extra, requirements in extras.items():
        for name, version in pins(requirements).items():
            if extra not in TOOLS_EXTRAS:
                continue
            assert pinned.get(name) == version, f"[{extra}] {name}=={version}, tools/requirements.txt: {pinned.get(name)}"


def test_the_runtime_needs_only_numpy() -> None:
    assert pins(PROJECT["dependencies"]) == {"numpy": requirements_txt()["numpy"]}
    foreign = imported(PYTHON / "periphery") - set(sys.stdlib_module_names) - {"numpy", "periphery"}
    assert not foreign, f"periphery/*.py import {sorted(foreign)}, which the runtime does not depend on"


@pytest.mark.parametrize("subpackage", sorted(EXTRA_OF))
def test_each_subpackage_imports_only_its_extra(subpackage: str) -> None:
    allowed = set(pins(PROJECT["optional-dependencies"][EXTRA_OF[subpackage]])) | {"numpy", "periphery"}
    names = imported(PYTHON / "periphery" / subpackage) - set(sys.stdlib_module_names)
    foreign = {name for name in names if DISTRIBUTION.get(name, name).lower() not in allowed}
    assert not foreign, f"periphery.{subpackage} imports {sorted(foreign)}, not in periphery[{EXTRA_OF[subpackage]}]"


@pytest.mark.parametrize("script", sorted(PROJECT["scripts"]))
def test_console_scripts_resolve(script: str) -> None:
    module, _, function = PROJECT["scripts"][script].partition(":")
    assert script.startswith("periphery-")
    assert callable(getattr(importlib.import_module(module), function)), PROJECT["scripts"][script]
