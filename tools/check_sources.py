#!/usr/bin/env python3
"""Checks the house rules that a compiler does not:
- no line over 160 characters in Swift and C under Sources/, Tests/, Examples/ and Fuzz/;
- every citation of a Markdown file in Sources/, Tests/, tools/, python/, docs/ (and README.md,
  CONTRIBUTING.md, Weights/README.md) names a file in the repository (from the root, from docs/ or
  from the citing file's folder), and its `#anchor`, if any, is a heading of that file (GitHub's
  anchor rule), so that a fresh clone can follow it;
- in the same files and the Makefile, every citation of a file under tools/ or python/ (a path
  under either ending in .py, .sh, .c, .txt or .toml) names a file that exists (from the root or
  from the citing file's folder). A path in quotes is data, not a citation (the provenance string
  of a weight file, say), and is not checked;
- no Python file under tools/ or python/ edits `sys.path`: the tools import the package
  `periphery` as installed (`make venv` installs python/ in development mode), and the scripts of
  tools/ import their neighbours from the folder Python puts first on the path by itself.
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
# A file of tools/ or python/ named in prose, a comment or a command line (not inside quotes).
FILE_CITATION = re.compile(r"(?<![\w/.:'\"-])((?:tools|python)/(?:[\w.-]+/)*[\w-]+\.(?:py|sh|c|txt|toml))(?![\w/])")
SYS_PATH_EDIT = re.compile(r"\bsys\.path\s*(?:\.\s*(?:insert|append|extend)\b|\[|=|\+=)")
SKIPPED = {".venv", "__pycache__", "build", "dist"}
cited = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", ROOT / "Weights/README.md"]
for folder in ("Sources", "Tests", "tools", "python", "docs", "Examples", "Fuzz"):
    cited += [p for p in sorted((ROOT / folder).rglob("*")) if p.is_file() and not SKIPPED & set(p.parts)
              and not any(part.endswith(".egg-info") for part in p.parts)
              and p.suffix in (".swift", ".c", ".h", ".py", ".sh", ".md", ".toml")]
for path in cited + [ROOT / "Makefile"]:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        where = f"{path.relative_to(ROOT)}:{number}"
        for match in FILE_CITATION.finditer(line):
            name = match.group(1)
            if not (ROOT / name).is_file() and not (path.parent / name).is_file():
                failures.append(f"{where}: cites {name}, which is not in the repository")
        if path.suffix == ".py" and path.relative_to(ROOT).parts[0] in ("tools", "python") and SYS_PATH_EDIT.search(line):
            failures.append(f"{where}: edits sys.path (import the installed package `periphery` instead)")
        if path.name == "Makefile":
            continue
        for match in CITATION.finditer(line):
            name, anchor = match.group(1), match.group(2)
            target = next((c for c in (ROOT / name, ROOT / "docs" / name, path.parent / name) if c.is_file()), None)
            if target is None:
                failures.append(f"{where}: cites {name}, which is not in the repository")
            elif anchor and anchor not in anchors(target):
                failures.append(f"{where}: {name}{anchor}: no such heading in {target.relative_to(ROOT)}")
for failure in failures:
    print(failure)
if failures:
    sys.exit(1)
print(f"sources: no line over {LIMIT} characters; every Markdown, tools/ and python/ citation resolves; "
      "no sys.path edits")
