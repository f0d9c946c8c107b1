#!/usr/bin/env bash
# The table of docs/results/safety-events.md: NHTSA's forward collision warning tests (LVS over a
# sweep of speeds, LVD, LVM; 7 trials each), 10 cut-ins and 31 minutes of free flow, written by `periphery
# synth --sequence --scenario` and evaluated by `periphery eval-events --body-pitch` (the camera's pitch follows the
# body's, from the drives' gyro and gravity) with the FP32 and the INT8 weights.
# A benchmark, not a test: on two cores the drives take about two hours to render, the FP32
# evaluation as long again.
#
#   tools/nhtsa_fcw_table.sh OUT
#
# Writes the drives to OUT/drives/{lvm,lvd,lvs-SPEED,cut-in,free}/SEED (a drive that is already there is
# kept), then per precision OUT/PRECISION-scenarios.{json,txt} (the NHTSA tests, the cut-ins and
# the TTC and headway errors) and OUT/PRECISION-free.{json,txt} (the false warnings).
#
# Environment: PERIPHERY (default .build/release/periphery), JOBS (commands at a time, default 2),
# SEEDS (default 201-207: the test seeds; 101-107 were the tuning ones), CUT_IN_SEEDS (default
# 201-210), FREE_SEEDS (default 301-331), LVS_SPEEDS (m/s, default 6 to 15 and NHTSA's 20.1168), PRECISIONS (default fp32 int8).
# An empty list leaves its drives out (FREE_SEEDS= : the NHTSA tests alone).
set -euo pipefail

OUT=${1:?usage: tools/nhtsa_fcw_table.sh OUT}
PERIPHERY=${PERIPHERY:-.build/release/periphery}
JOBS=${JOBS:-2}
SEEDS=${SEEDS-$(seq -s ' ' 201 207)}
CUT_IN_SEEDS=${CUT_IN_SEEDS-$(seq -s ' ' 201 210)}
FREE_SEEDS=${FREE_SEEDS-$(seq -s ' ' 301 331)}
LVS_SPEEDS=${LVS_SPEEDS-6 7 8 9 10 11 12 13 14 15 20.1168}
PRECISIONS=${PRECISIONS:-fp32 int8}
DRIVES=$OUT/drives
mkdir -p "$DRIVES"
export PERIPHERY

# One drive: DIR then synth's options; skipped when its truth.json (written last) is there.
synth_one() {
    local dir=$1
    shift
    [ -f "$dir/truth.json" ] && return 0
    rm -rf "$dir"
    "$PERIPHERY" synth --sequence "$@" --out "$dir" > /dev/null
}
export -f synth_one

scenario_drives=() free_drives=()
commands=()
for seed in $SEEDS; do
    for test in lvm lvd; do
        commands+=("$DRIVES/$test/$seed --scenario $test --frames 200 --seed $seed")
        scenario_drives+=("$DRIVES/$test/$seed")
    done
done
for speed in $LVS_SPEEDS; do
    for seed in $SEEDS; do
        commands+=("$DRIVES/lvs-$speed/$seed --scenario lvs --ego-speed $speed --frames 200 --seed $seed")
        scenario_drives+=("$DRIVES/lvs-$speed/$seed")
    done
done
for seed in $CUT_IN_SEEDS; do
    commands+=("$DRIVES/cut-in/$seed --scenario cut-in --frames 80 --seed $seed")
    scenario_drives+=("$DRIVES/cut-in/$seed")
done
for seed in $FREE_SEEDS; do
    commands+=("$DRIVES/free/$seed --scenario free --frames 600 --seed $seed")
    free_drives+=("$DRIVES/free/$seed")
done
[ "${#commands[@]}" -gt 0 ] && printf '%s\n' "${commands[@]}" | xargs -P "$JOBS" -L 1 bash -c 'synth_one "$@"' _

# The evaluations, JOBS at a time, each on one thread.
pids=()
for precision in $PRECISIONS; do
    for part in scenarios free; do
        if [ "$part" = scenarios ]; then drives=("${scenario_drives[@]}"); else drives=("${free_drives[@]}"); fi
        [ "${#drives[@]}" -gt 0 ] || continue
        "$PERIPHERY" eval-events --data "${drives[@]}" --precision "$precision" --threads 1 --body-pitch \
            --json "$OUT/$precision-$part.json" > "$OUT/$precision-$part.txt" 2> "$OUT/$precision-$part.log" &
        pids+=($!)
        if [ "${#pids[@]}" -ge "$JOBS" ]; then
            wait "${pids[0]}"
            pids=("${pids[@]:1}")
        fi
    done
done
for pid in "${pids[@]}"; do wait "$pid"; done
for report in "$OUT"/*-scenarios.txt "$OUT"/*-free.txt; do
    [ -f "$report" ] && { echo "== $report"; cat "$report"; }
done
