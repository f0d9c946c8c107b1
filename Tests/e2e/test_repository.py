"""The house rules that a compiler does not check (CONTRIBUTING.md), over the repository's files:

- no line over 160 characters in Swift and C under Sources/, Tests/, Examples/ and Fuzz/;
- every citation of a Markdown file in Sources/, Tests/, tools/, python/, docs/ (and README.md,
  CONTRIBUTING.md, Weights/README.md) names a file in the repository (from the root, from docs/ or
  from the citing file's folder), and its `#anchor`, if any, is a heading of that file (GitHub's
  anchor rule), so that a fresh clone can follow it;
- in the same files and the Makefile, every citation of a file under tools/, python/ or Tests/ (a
  path under one of them ending in .py, .sh, .c, .txt or .toml) names a file that exists (from the
  root or from the citing file's folder). A path in quotes is data, not a citation (the provenance
  string of a weight file, say), and is not checked;
- no Python file under tools/, python/ or Tests/ edits `sys.path`: the tools import the package
  `periphery` as installed (`make venv-tools` installs python/ in development mode), the scripts of
  tools/ import their neighbours from the folder Python puts first on the path by itself, and the
  end-to-end tests get tools/ from Tests/e2e/pytest.ini;
- on x86-64, `make deps` installs the cross compiler and qemu that `make test`'s NEON kernel test runs.

Each failure names the file and line. No build is needed: `make test` runs these first.
"""

from __future__ import annotations

import re
from pathlib import Path

from helpers import ROOT, run

LIMIT = 160
CITATION = re.compile(r"(?<![\w/.:-])((?:\.\./)?(?:[\w.-]+/)*[\w.-]+\.md)(#[\w-]+)?")
# A file of tools/, python/ or Tests/ named in prose, a comment or a command line (not inside quotes).
FILE_CITATION = re.compile(r"(?<![\w/.:'\"-])((?:tools|python|Tests)/(?:[\w.-]+/)*[\w-]+\.(?:py|sh|c|txt|toml))(?![\w/])")
SYS_PATH_EDIT = re.compile(r"\bsys\.path\s*(?:\.\s*(?:insert|append|extend)\b|\[|=|\+=)")
SKIPPED = {".venv", "__pycache__", "build", "dist"}


def lines_of(paths):
    for path in paths:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            yield path, f"{path.relative_to(ROOT)}:{number}", line


def cited_files() -> list:
    cited = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", ROOT / "Weights/README.md"]
    for folder in ("Sources", "Tests", "tools", "python", "docs", "Examples", "Fuzz"):
        cited += [p for p in sorted((ROOT / folder).rglob("*")) if p.is_file() and not SKIPPED & set(p.parts)
                  and not any(part.endswith(".egg-info") for part in p.parts)
                  and p.suffix in (".swift", ".c", ".h", ".py", ".sh", ".md", ".toml")]
    return cited


def anchors(path: Path) -> set:
    """GitHub-style anchors of a Markdown file's headings."""
    found = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        heading = re.match(r"#{1,6} +(.*)", line)
        if heading:
            text = re.sub(r"[^\w\- ]", "", heading.group(1).strip().lower().replace("`", ""))
            found.add("#" + text.replace(" ", "-"))
    return found


def test_no_source_line_is_over_160_characters():
    sources = [p for folder in ("Sources", "Tests", "Examples", "Fuzz") for p in sorted((ROOT / folder).rglob("*"))
               if p.suffix in (".swift", ".c", ".h") and p.is_file()]
    failures = [f"{where}: {len(line)} characters (limit {LIMIT})" for _, where, line in lines_of(sources) if len(line) > LIMIT]
    assert not failures, "\n".join(failures)


def test_every_markdown_citation_resolves_to_a_file_and_heading():
    failures = []
    for path, where, line in lines_of(cited_files()):
        for match in CITATION.finditer(line):
            name, anchor = match.group(1), match.group(2)
            target = next((c for c in (ROOT / name, ROOT / "docs" / name, path.parent / name) if c.is_file()), None)
            if target is None:
                failures.append(f"{where}: cites {name}, which is not in the repository")
            elif anchor and anchor not in anchors(target):
                failures.append(f"{where}: {name}{anchor}: no such heading in {target.relative_to(ROOT)}")
    assert not failures, "\n".join(failures)


def test_every_tools_python_and_tests_file_citation_resolves():
    failures = []
    for path, where, line in lines_of(cited_files() + [ROOT / "Makefile"]):
        for match in FILE_CITATION.finditer(line):
            name = match.group(1)
            if not (ROOT / name).is_file() and not (path.parent / name).is_file():
                failures.append(f"{where}: cites {name}, which is not in the repository")
    assert not failures, "\n".join(failures)


def test_no_python_file_edits_sys_path():
    python = [p for p in cited_files() if p.suffix == ".py" and p.relative_to(ROOT).parts[0] in ("tools", "python", "Tests")]
    failures = [f"{where}: edits sys.path (import the installed package `periphery`, or use pytest.ini's pythonpath)"
                for _, where, line in lines_of(python) if SYS_PATH_EDIT.search(line)]
    assert not failures, "\n".join(failures)


def test_make_deps_installs_the_cross_tools_of_the_arm64_kernel_test():
    """`make test` runs test-int8-arm64 on x86-64, so `make deps` must install its cross compiler and
    qemu: a fresh CI machine has neither (a Makefile variable used before its definition once left
    them out)."""
    database = run(["make", "-p", "-n", "deps"]).stdout
    packages = re.search(r"^DEB_PACKAGES := (.*)$", database, re.MULTILINE)
    assert packages, "make -p prints no DEB_PACKAGES"
    on_x86_64 = run(["uname", "-m"]).stdout.strip() == "x86_64"
    wanted = {"gcc-aarch64-linux-gnu", "libc6-dev-arm64-cross", "qemu-user-static"} if on_x86_64 else set()
    missing = wanted - set(packages.group(1).split())
    assert not missing, f"Makefile: DEB_PACKAGES lacks {sorted(missing)}"
