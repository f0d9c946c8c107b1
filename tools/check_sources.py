#!/usr/bin/env python3
"""Checks the sources' house rules that a compiler does not: no line over 160 characters in Swift
and C under Sources/, Tests/, Examples/ and Fuzz/. Exit status 1, naming each file and line, when
one is broken."""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIMIT = 160
failures = []
for folder in ("Sources", "Tests", "Examples", "Fuzz"):
    for path in sorted((ROOT / folder).rglob("*")):
        if path.suffix not in (".swift", ".c", ".h") or not path.is_file():
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if len(line) > LIMIT:
                failures.append(f"{path.relative_to(ROOT)}:{number}: {len(line)} characters (limit {LIMIT})")
for failure in failures:
    print(failure)
if failures:
    sys.exit(1)
print(f"sources: no line over {LIMIT} characters")
