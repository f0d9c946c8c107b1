"""`periphery synth --cityscapes3d` read by cityscapesScripts' own box and camera classes
(cityscapes3d.py states what is compared and the bounds; docs/guides/training.md §6), and the check
itself refusing each of seven corruptions of a dataset written from the formulas. Marked `tools`:
cityscapesscripts is in the tools' group of the venv (`make venv-tools`, `make test-tools`)."""

from __future__ import annotations

import shutil

import pytest

from cityscapes3d import CORRUPTIONS, CheckError, check, mutate, summary, write_dataset
from helpers import run

pytestmark = pytest.mark.tools


def test_cityscapes3d_check_accepts_a_dataset_written_from_the_formulas(tmp_path):
    write_dataset(str(tmp_path / "good"))
    print(summary(str(tmp_path / "good"), check(str(tmp_path / "good"))))


@pytest.mark.parametrize("key, change", [c[1:] for c in CORRUPTIONS], ids=[c[0].replace(" ", "-") for c in CORRUPTIONS])
def test_cityscapes3d_check_refuses_a_corrupted_dataset(tmp_path, key, change):
    write_dataset(str(tmp_path / "good"))
    shutil.copytree(tmp_path / "good", tmp_path / "bad")
    mutate(str(tmp_path / "bad"), key, "000001", change)
    with pytest.raises(CheckError):
        check(str(tmp_path / "bad"))


def test_synth_cityscapes3d_files_read_with_cityscapesscripts_classes(periphery, tmp_path):
    out = tmp_path / "cs3d"
    run([periphery, "synth", "--frames", "8", "--seed", "7", "--out", out, "--cityscapes3d", "--near-two-wheelers", "1"])
    print(summary(str(out), check(str(out))))
