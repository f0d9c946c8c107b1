"""`periphery lut` against the golden ProjectionLUT of the reference's self-check: visibility exact,
indices exact on visible voxels."""

from __future__ import annotations

import pytest

from detections import assert_lut_equal
from helpers import ROOT, run

GOLDEN = ROOT / "Sources/PeripheryInference/Resources/Conformance/selfcheck_lut.bin"


def test_lut_of_the_selfcheck_calibration_equals_the_golden_lut(periphery, tmp_path):
    run([periphery, "lut", "--calibration", "docs/calibration/comma-eon.json", "--out", tmp_path / "selfcheck_lut.bin"])
    assert_lut_equal(tmp_path / "selfcheck_lut.bin", GOLDEN)


def test_lut_comparison_finds_a_changed_index_and_visibility(tmp_path):
    # The comparison itself can fail: one visible voxel's index and one voxel's visibility changed.
    golden = bytearray(GOLDEN.read_bytes())
    visible = next(i for i in range(6560) if golden[4 * 6560 + i])
    changed = bytearray(golden)
    changed[4 * visible] ^= 1
    (tmp_path / "index.bin").write_bytes(changed)
    with pytest.raises(AssertionError, match="1 index mismatches"):
        assert_lut_equal(tmp_path / "index.bin", GOLDEN)
    changed = bytearray(golden)
    changed[4 * 6560 + visible] ^= 1
    (tmp_path / "visibility.bin").write_bytes(changed)
    with pytest.raises(AssertionError, match="1 visibility mismatches"):
        assert_lut_equal(tmp_path / "visibility.bin", GOLDEN)
