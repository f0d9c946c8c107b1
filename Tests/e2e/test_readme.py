"""The README against the code: its first Swift block is Examples/QuickStart/main.swift and its second
Examples/LiveStream/main.swift, byte for byte (the live one is the example `periphery-live-example`);
the built first example runs and prints detections; the parity tolerance the README states is the one
NetworkParityTests enforces."""

from __future__ import annotations

import re

import pytest

from helpers import ROOT, run

README = (ROOT / "README.md").read_text()
BLOCKS = re.findall(r"```swift\n(.*?)```", README, flags=re.S)


def test_readme_first_swift_block_is_the_quickstart_example():
    assert BLOCKS and BLOCKS[0] == (ROOT / "Examples/QuickStart/main.swift").read_text(), \
        "README's first ```swift block differs from Examples/QuickStart/main.swift"


def test_readme_second_swift_block_is_the_live_stream_example():
    assert len(BLOCKS) >= 2 and BLOCKS[1] == (ROOT / "Examples/LiveStream/main.swift").read_text(), \
        "README's second ```swift block differs from Examples/LiveStream/main.swift"


def test_readme_parity_tolerance_is_the_one_the_parity_tests_enforce():
    tests = (ROOT / "Tests/PeripheryInferenceTests/NetworkParityTests.swift").read_text()
    tolerances = set(re.findall(r"\)\) <= (\d+e-\d+)", tests))
    stated = re.findall(r"PyTorch reference \(`python/periphery/reference/safety40.py`\) to (\d+e-\d+) relative", README)
    assert len(tolerances) == 1 and stated == sorted(tolerances), f"README states parity to {stated}, NetworkParityTests enforces {sorted(tolerances)}"


@pytest.fixture(scope="module")
def quickstart(periphery):
    example = periphery.parent / "periphery-example"
    if not example.is_file():
        pytest.fail(f"no {example}: build the package (swift build -c release -Xswiftc -enable-testing)")
    return example


def test_readme_quickstart_example_runs_and_prints_detections(quickstart):
    done = run([quickstart], timeout=300, check=False)
    lines = [line for line in done.stdout.splitlines() if re.match(r"\w+ score \d\.\d\d at x -?\d+\.\d m, y -?\d+\.\d m$", line)]
    assert done.returncode == 0 and lines, f"example failed (exit {done.returncode}):\n{done.stdout}{done.stderr}"
