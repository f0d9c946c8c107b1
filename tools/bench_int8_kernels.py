#!/usr/bin/env python3
"""The INT8 convolution kernels of two versions of Sources/CInt8Kernels side by side.

Builds tools/bench_int8_kernels.c twice with the toolchain's clang and the C flags SwiftPM gives the
module in a release build (`swift build -c release -v`): against the sources of a git revision
(--base) and against the working tree's. Then runs the two alternately: each round times every
layer of the benchmark on every ISA given, single-threaded, the two builds one ISA after the other
(which goes first switching every round), so that both sides of a ratio see the same moment's load.
Prints, per ISA and layer and for each ISA's sum of layers, the median ms of either side, the median
of the per-round ratios new ÷ old and their range, and fails if the two builds' outputs differ.

    python3 tools/bench_int8_kernels.py --base 2ba1422 --rounds 9 avx512-vnni avx2 avx2-maddubs avx2-maddubs6

Run it without OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE (CONTRIBUTING.md, Benchmarks).
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODULE = "Sources/CInt8Kernels"
# SwiftPM's flags for a C target in `swift build -c release` (seen with -v), on the same clang.
CFLAGS = ["-O2", "-DSWIFT_PACKAGE=1", "-fblocks", "-fPIC", "-g", "-fno-omit-frame-pointer"]


def export_base(revision: str, folder: Path) -> None:
    """The module's files at `revision`, under `folder`."""
    names = subprocess.run(["git", "ls-tree", "-r", "--name-only", revision, MODULE], cwd=ROOT, check=True,
                           capture_output=True, text=True).stdout.split()
    for name in names:
        target = folder / Path(name).relative_to(MODULE)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(subprocess.run(["git", "show", f"{revision}:{name}"], cwd=ROOT, check=True,
                                          capture_output=True).stdout)


def build(clang: str, sources: Path, output: Path) -> None:
    command = [clang, *CFLAGS, "-I", str(sources / "include"), str(ROOT / "tools/bench_int8_kernels.c"),
               *sorted(str(p) for p in sources.glob("*.c")), "-lm", "-o", str(output)]
    subprocess.run(command, check=True)


def run(binary: Path, isas) -> dict:
    """{(isa, layer): (ms, checksum)} of one round."""
    environment = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
    text = subprocess.run([str(binary), *isas], check=True, capture_output=True, text=True, env=environment).stdout
    result = {}
    for line in text.splitlines():
        isa, layer, ms, checksum = line.split()
        result[(isa, layer)] = (float(ms), checksum)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("isas", nargs="+", help="avx512-vnni, avx-vnni, avx2, avx2-maddubs, avx2-maddubs6")
    parser.add_argument("--base", required=True, help="git revision of the old sources")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--clang", default="/opt/swift/usr/bin/clang")
    arguments = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        export_base(arguments.base, work / "base")
        build(arguments.clang, work / "base", work / "old")
        build(arguments.clang, ROOT / MODULE, work / "new")
        rounds = {"old": [], "new": []}
        for r in range(arguments.rounds):
            order = ("old", "new") if r % 2 == 0 else ("new", "old")
            times = {"old": {}, "new": {}}
            for isa in arguments.isas:
                for side in order:
                    times[side].update(run(work / side, [isa]))
            for side in order:
                rounds[side].append(times[side])
            print(f"round {r + 1}/{arguments.rounds} done", file=sys.stderr)

    keys = list(rounds["old"][0])
    for key in keys:
        if {r[key][1] for r in rounds["old"]} != {r[key][1] for r in rounds["new"]}:
            print(f"{key[0]} {key[1]}: the outputs differ between the builds", file=sys.stderr)
            return 1

    def row(label, old, new):
        ratios = [n / o for o, n in zip(old, new)]
        print(f"| {label} | {statistics.median(old):.2f} | {statistics.median(new):.2f} | "
              f"**{statistics.median(ratios):.3f}** ({min(ratios):.3f}–{max(ratios):.3f}) |")

    print(f"| ISA, layer | old ms | new ms | new ÷ old (per round) |")
    print("|---|---:|---:|---|")
    for isa in arguments.isas:
        layers = [layer for i, layer in keys if i == isa]
        for layer in layers:
            row(f"{isa} {layer}", [r[(isa, layer)][0] for r in rounds["old"]], [r[(isa, layer)][0] for r in rounds["new"]])
        row(f"**{isa}, all layers**", [sum(r[(isa, layer)][0] for layer in layers) for r in rounds["old"]],
            [sum(r[(isa, layer)][0] for layer in layers) for r in rounds["new"]])
    return 0


if __name__ == "__main__":
    sys.exit(main())
