#!/usr/bin/env bash
# `make test-python`: the wheel as a user gets it, then the binding's tests against the CLI.
#
#   bash tools/check_wheel.sh CLI [WHEEL_DIR]      (WHEEL_DIR default dist/)
#
# A fresh venv (.build/python-test-venv) gets the wheel and python/requirements-test.txt from
# `pip install` alone. Everything then runs with no toolchain on PATH or LD_LIBRARY_PATH (and no
# PERIPHERY_LIBRARY or PYTHONPATH): the example python/examples/detect_frame.py on the bundled frame,
# compared with `periphery detect --reject-implausible --json` (tools/compare_c_api.py: box fields
# equal as doubles, scores as float32), once more with the toolchain's folder hidden; `ldd` of every library in the installed package, which must
# resolve everything and nothing inside the toolchain; and pytest over python/tests/test_binding*.py.
set -euo pipefail
cd "$(dirname "$0")/.."
cli=$(realpath "${1:?usage: tools/check_wheel.sh CLI [WHEEL_DIR]}")
dist=${2:-dist}
python=${PYTHON:-python3}
version=$(sed -n 's/^version = "\(.*\)"/\1/p' python/pyproject.toml)
wheel=$(ls "$dist"/periphery-"$version"-*manylinux*_"$(uname -m)".whl)
toolchain=$(dirname "$(dirname "$(command -v "${SWIFT:-swift}")")")
source tools/swift_runtime.sh
runtime=$(swift_runtime_dir "$cli")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

venv=$PWD/.build/python-test-venv
rm -rf "$venv"
"$python" -m venv "$venv"
clean=(env -u LD_LIBRARY_PATH -u PERIPHERY_LIBRARY -u PYTHONPATH -u PYTHONHOME PATH=/usr/local/bin:/usr/bin:/bin)
"${clean[@]}" "$venv/bin/python" -m pip install --quiet --no-cache-dir --disable-pip-version-check "$wheel" -r python/requirements-test.txt
echo "check_wheel: installed $(basename "$wheel") into a fresh venv"

# The bundled frame, as the example does it, from outside the repository's python/ folder.
root=$PWD
(cd "$work" && "${clean[@]}" "$venv/bin/python" "$root/python/examples/detect_frame.py" "$root/Weights/safety40-synthetic.safetensors" \
    "$root/docs/sample/synthetic/frame.png" "$root/docs/sample/synthetic/calibration.json" > "$work/python.json")
"$cli" detect docs/sample/synthetic/frame.png --calibration docs/sample/synthetic/calibration.json \
    --weights Weights/safety40-synthetic.safetensors --reject-implausible --json "$work/cli.json" 2> /dev/null
python3 tools/compare_c_api.py "$work/cli.json" "$work/python.json" | sed 's/^c api:/check_wheel: python/'
# Again with the toolchain gone altogether: an empty tmpfs over it in a mount namespace of its own
# (root only; the toolchain must not hold the Python that runs the venv).
interpreter=$(realpath "$venv/bin/python")
if [ "$(id -u)" = 0 ] && [ "$toolchain" != /usr ] && [ "${interpreter#"$toolchain"/}" = "$interpreter" ] && unshare -m true 2> /dev/null; then
    (cd "$work" && unshare -m sh -c 'mount -t tmpfs none "$1" && shift && exec "$@"' sh "$toolchain" "${clean[@]}" "$venv/bin/python" \
        "$root/python/examples/detect_frame.py" "$root/Weights/safety40-synthetic.safetensors" "$root/docs/sample/synthetic/frame.png" \
        "$root/docs/sample/synthetic/calibration.json" > "$work/hidden.json")
    python3 tools/compare_c_api.py "$work/cli.json" "$work/hidden.json" | sed "s|^c api:|check_wheel: with $toolchain hidden, python|"
else
    echo "check_wheel: the run with $toolchain hidden is skipped (needs root and unshare -m)"
fi

# Every library in the installed package resolves, and none into the toolchain.
site=$("${clean[@]}" "$venv/bin/python" -c 'import periphery, pathlib; print(pathlib.Path(periphery.__file__).parent.parent)')
count=0
for so in "$site"/periphery/_lib/*.so "$site"/periphery.libs/*.so*; do
    resolved=$("${clean[@]}" ldd "$so")
    if grep -E "not found|$runtime/" <<< "$resolved"; then
        echo "check_wheel: $so resolves into $runtime or not at all" >&2
        exit 1
    fi
    count=$((count + 1))
done
echo "check_wheel: ldd of the $count libraries in $site/periphery resolves nothing inside $runtime"

"${clean[@]}" PERIPHERY="$cli" "$venv/bin/python" -m pytest -p no:cacheprovider -v -rs python/tests/test_binding.py python/tests/test_binding_sources.py
