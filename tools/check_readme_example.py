#!/usr/bin/env python3
"""Checks the README against the code: its first Swift block is Examples/QuickStart/main.swift and its
second Examples/LiveStream/main.swift, byte for byte (tools/check_live.sh runs the live one on a
stream), and the built first example runs and prints detections; the parity tolerance it states is the one
NetworkParityTests enforces. Usage: check_readme_example.py EXAMPLE_BINARY"""
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
readme = (ROOT / "README.md").read_text()
blocks = re.findall(r"```swift\n(.*?)```", readme, flags=re.S)
source = (ROOT / "Examples/QuickStart/main.swift").read_text()
if not blocks or blocks[0] != source:
    sys.exit("README's first ```swift block differs from Examples/QuickStart/main.swift")
if len(blocks) < 2 or blocks[1] != (ROOT / "Examples/LiveStream/main.swift").read_text():
    sys.exit("README's second ```swift block differs from Examples/LiveStream/main.swift")
tolerances = set(re.findall(r"\)\) <= (\d+e-\d+)", (ROOT / "Tests/PeripheryInferenceTests/NetworkParityTests.swift").read_text()))
stated = re.findall(r"PyTorch reference \(`python/periphery/reference/safety40.py`\) to (\d+e-\d+) relative", readme)
if len(tolerances) != 1 or stated != sorted(tolerances):
    sys.exit(f"README states parity to {stated}, NetworkParityTests enforces {sorted(tolerances)}")
run = subprocess.run([sys.argv[1]], cwd=ROOT, capture_output=True, text=True, timeout=300)
lines = [line for line in run.stdout.splitlines() if re.match(r"\w+ score \d\.\d\d at x -?\d+\.\d m, y -?\d+\.\d m$", line)]
if run.returncode != 0 or not lines:
    sys.exit(f"example failed (exit {run.returncode}):\n{run.stdout}{run.stderr}")
print(f"README example: same text as Examples/QuickStart/main.swift; {len(lines)} detections")
