"""The package's declarations (python/pyproject.toml) against its code and python/requirements-dev.txt.

* python/requirements-dev.txt, where every pin of the repository lives, holds exact pins only, each
  package once;
* every requirement of the package (its dependencies, every extra, the build system's) is an exact
  pin, the same as python/requirements-dev.txt's (a published package carries its own pins; this
  keeps them the ones the tests and tools install);
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
PYPROJECT = tomllib.loads((PYTHON / "pyproject.toml").read_text(encoding="utf-8"))


def pins(requirements: list) -> Dict[str, str]:
    out = {}
    for line in requirements:
        match = re.fullmatch(r"([A-Za-z0-9_.-]+)==([^\s;#]+)", line.strip())
        assert match, f"not an exact pin: {line!r}"
        out[match.group(1).lower()] = match.group(2)
    return out


def requirements_dev() -> Dict[str, str]:
    lines = [line.split("#")[0].strip() for line in (PYTHON / "requirements-dev.txt").read_text().splitlines()]
    lines = [line for line in lines if line]
    found = pins(lines)
    assert len(found) == len(lines), "python/requirements-dev.txt names a package twice"
    return found


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


def test_every_requirement_is_the_pin_of_requirements_dev() -> None:
    pinned = requirements_dev()
    extras = PROJECT["optional-dependencies"]
    assert set(extras) == set(EXTRA_OF.values())
    declared = {"dependencies": PROJECT["dependencies"], "build-system": PYPROJECT["build-system"]["requires"]}
    declared |= {f"[{extra}]": requirements for extra, requirements in extras.items()}
    for where, requirements in declared.items():
        for name, version in pins(requirements).items():
            assert pinned.get(name) == version, f"{where} {name}=={version}, python/requirements-dev.txt: {pinned.get(name)}"


def test_the_runtime_needs_only_numpy() -> None:
    assert pins(PROJECT["dependencies"]) == {"numpy": requirements_dev()["numpy"]}
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
