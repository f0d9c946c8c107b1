#!/usr/bin/env python3
"""Checks the house rules that a compiler does not:
- no line over 160 characters in Swift and C under Sources/, Tests/, Examples/ and Fuzz/;
- every citation of a Markdown file in Sources/, Tests/, tools/, docs/ (and
  README.md) names a file in the repository (from the root, from docs/ or from the citing file's
  folder), and its `#anchor`, if any, is a heading of that file (GitHub's anchor rule), so that a
  fresh clone can follow it.
Exit status 1, naming each file and line, when one is broken."""
import re
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

def anchors(path: Path) -> set:
    """GitHub-style anchors of a Markdown file's headings."""
    found = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        heading = re.match(r"#{1,6} +(.*)", line)
        if heading:
            text = re.sub(r"[^\w\- ]", "", heading.group(1).strip().lower().replace("`", ""))
            found.add("#" + text.replace(" ", "-"))
    return found


CITATION = re.compile(r"(?<![\w/.:-])((?:\.\./)?(?:[\w.-]+/)*[\w.-]+\.md)(#[\w-]+)?")
cited = [ROOT / "README.md"]
for folder in ("Sources", "Tests", "tools", "docs", "Examples", "Fuzz"):
    cited += [p for p in sorted((ROOT / folder).rglob("*")) if p.is_file() and ".venv" not in p.parts
              and p.suffix in (".swift", ".c", ".h", ".py", ".sh", ".md")]
for path in cited:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        for match in CITATION.finditer(line):
            name, anchor = match.group(1), match.group(2)
            target = next((c for c in (ROOT / name, ROOT / "docs" / name, path.parent / name) if c.is_file()), None)
            where = f"{path.relative_to(ROOT)}:{number}"
            if target is None:
                failures.append(f"{where}: cites {name}, which is not in the repository")
            elif anchor and anchor not in anchors(target):
                failures.append(f"{where}: {name}{anchor}: no such heading in {target.relative_to(ROOT)}")
for failure in failures:
    print(failure)
if failures:
    sys.exit(1)
print(f"sources: no line over {LIMIT} characters; every Markdown citation resolves")
