#!/usr/bin/env bash
# Compares a ProjectionLUT file with a golden one: visibility exact, indices exact on visible voxels.
set -euo pipefail
python3 - "$1" "$2" <<'PY'
import struct, sys
got, exp = (open(p, "rb").read() for p in sys.argv[1:3])
n = 6560
if len(got) != 5 * n or len(exp) != 5 * n:
    sys.exit(f"LUT files must be {5 * n} bytes, got {len(got)} and {len(exp)}")
gi, ei = struct.unpack(f"<{n}i", got[:4 * n]), struct.unpack(f"<{n}i", exp[:4 * n])
gv, ev = got[4 * n:], exp[4 * n:]
vis = sum(a != b for a, b in zip(gv, ev))
idx = sum(1 for i in range(n) if ev[i] and gi[i] != ei[i])
print(f"LUT: {vis} visibility mismatches, {idx} index mismatches on visible voxels, {sum(gv)}/{n} visible")
sys.exit(1 if vis or idx else 0)
PY
