#!/usr/bin/env bash
# Builds the DocC documentation of every library module: .build/docs/MODULE.doccarchive.
#
#   bash tools/build_docs.sh [SWIFTPM OPTIONS...]      (what `make docs` runs)
#
# The options (`make docs` passes the release flags of `make test` and --scratch-path) go to
# `swift package ... dump-symbol-graph`, which builds with them — a no-op after `make test`, whose
# build it reuses — and extracts each module's public symbol graph. `docc convert` then builds each
# module's catalog, Sources/MODULE/MODULE.docc, against that module's graphs (its own and its
# extensions of other modules') with warnings treated as errors. Every module is converted even when
# one fails, so that one run lists every warning; the script fails if any module had one.
set -euo pipefail
cd "$(dirname "$0")/.."

SWIFT=${SWIFT:-swift}
DOCC=${DOCC:-$(command -v docc || true)}
if [ -z "$DOCC" ]; then
    # The toolchain ships docc beside swift.
    DOCC="$(dirname "$(command -v "$SWIFT")")/docc"
fi
if [ ! -x "$DOCC" ]; then
    echo "build_docs: docc not found (set DOCC, or put the Swift toolchain's bin on PATH)" >&2
    exit 1
fi

MODULES=(Periphery PeripheryCore PeripheryGeometry PeripheryRendering PeripheryIO PeripherySynthetic PeripheryInference PeripheryRun
    PeripheryServer)
OUT=.build/docs
GRAPHS=$OUT/symbol-graphs

# Symbol graphs. The build first, so that a compile error fails here; then the extraction, which
# exits 1 whatever happens to the library modules, because it also tries the test modules (never
# built by `swift build`): each module of MODULES is checked below instead. SwiftPM reuses its
# output folder, so its location comes from its own report and stale graphs from the marker's time.
dump=$(mktemp)
log=$(mktemp)
marker=$(mktemp)
trap 'rm -f "$dump" "$log" "$marker"' EXIT
"$SWIFT" build "$@"
"$SWIFT" package "$@" dump-symbol-graph >"$dump" 2>&1 || true
source_graphs=$(sed -n 's/^Files written to //p' "$dump" | tail -n 1)
if [ -z "$source_graphs" ] || [ ! -d "$source_graphs" ]; then
    cat "$dump" >&2
    echo "build_docs: no symbol graph folder in the output of dump-symbol-graph" >&2
    exit 1
fi

rm -rf "$OUT"
mkdir -p "$GRAPHS"
failed=()
for module in "${MODULES[@]}"; do
    graphs=$GRAPHS/$module
    mkdir -p "$graphs"
    if [ ! "$source_graphs/$module.symbols.json" -nt "$marker" ] || grep -q "symbol graph for '$module'" "$dump"; then
        grep -A 3 "symbol graph for '$module'" "$dump" >&2 || true
        echo "build_docs: no symbol graph for $module in $source_graphs" >&2
        failed+=("$module")
        continue
    fi
    # The module's own graph and its extensions of other modules (MODULE@OTHER.symbols.json).
    cp "$source_graphs/$module.symbols.json" "$graphs/"
    find "$source_graphs" -maxdepth 1 -name "$module@*.symbols.json" -newer "$marker" -exec cp {} "$graphs/" \;

    echo "== docc convert $module"
    status=0
    "$DOCC" convert "Sources/$module/$module.docc" \
        --additional-symbol-graph-dir "$graphs" \
        --fallback-display-name "$module" \
        --fallback-bundle-identifier "org.periphery.$module" \
        --output-path "$OUT/$module.doccarchive" \
        --warnings-as-errors >"$log" 2>&1 || status=$?
    cat "$log"
    # Belt and braces: any warning fails the module, whatever docc's exit status.
    if [ "$status" -ne 0 ] || grep -q "warning:" "$log"; then
        failed+=("$module")
    elif [ ! -d "$OUT/$module.doccarchive" ]; then
        echo "build_docs: docc wrote no archive for $module" >&2
        failed+=("$module")
    fi
done

if [ "${#failed[@]}" -ne 0 ]; then
    echo "build_docs: DocC failed for: ${failed[*]}" >&2
    exit 1
fi
echo "build_docs: ${#MODULES[@]} archives in $OUT"
