#!/usr/bin/env bash
# Live sources through the CLI (docs/guides/live.md), on loopback only: a synthetic drive encoded as H.264
# and sent by ffmpeg as MPEG-TS over UDP, over HTTP (the sender up only after the run started) and
# over RTSP (the run listening); a 1080p 30 frames/s stream the engine cannot keep up with; a sender
# lost for a while and one lost for good; SIGINT and SIGTERM during live and file runs; a cut
# MPEG-TS file and a lossy UDP relay; V4L2 errors. The live runs' detections are held to a file run
# of the same clip. Every background process (senders, relay, runs) runs under `timeout` and is
# killed on exit, pass or fail. Usage: tools/check_live.sh PERIPHERY_BINARY
set -euo pipefail
bin=${1:?usage: tools/check_live.sh PERIPHERY_BINARY}
out=.build/live-check
frames=90  # of the clip: 6 s at 15 frames/s
gop=15
began=$SECONDS

# Background processes: each under `timeout`, which makes its own process group; the cleanup kills
# every recorded group, whatever way the script ends.
pids=()
cleanup() {
    local pid
    for pid in "${pids[@]}"; do kill -KILL -- "-$pid" 2> /dev/null || true; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() { echo "live: FAILED: $*" >&2; exit 1; }
# report TEXT: a check's summary line, with the seconds it took.
mark=$SECONDS
report() {
    echo "live: $* [$((SECONDS - mark)) s]"
    mark=$SECONDS
}

# start LOG LIMIT COMMAND...: COMMAND in the background for at most LIMIT seconds (SIGTERM, then
# SIGKILL 10 s later); its timeout's pid in $bg.
start() {
    local log=$1 limit=$2
    shift 2
    timeout -k 10 "$limit" "$@" > "$log" 2>&1 &
    bg=$!
    pids+=("$bg")
}

# to_end LOG LIMIT COMMAND...: `start`, then `finish` (a signal to this script is then handled at once,
# where a command in the foreground would hold it up).
to_end() {
    start "$@"
    finish $bg
}

# finish PID [VAR]: waits for a background process; its exit status in $VAR (default $status).
finish() {
    local code=0
    { wait "$1"; } 2> /dev/null || code=$?
    printf -v "${2:-status}" %d "$code"
}

# signal SIG PID [gone-ok]: SIG to the command under the timeout PID, not to the timeout (which would
# pass it on to the whole group, and a second SIGINT makes periphery exit at once). Fails when the
# command has already ended, unless gone-ok.
signal() {
    local child=""
    read -r child _ <<< "$(cat "/proc/$2/task/$2/children" 2> /dev/null || ps -o pid= --ppid "$2" 2> /dev/null || true)" || true
    if [ -z "$child" ]; then
        test -n "${3:-}" || fail "no process under timeout $2 to send SIG$1"
        return 0
    fi
    kill "-$1" "$child" 2> /dev/null || test -n "${3:-}" || fail "cannot send SIG$1 to $child"
}

# wait_for SECONDS WHAT COMMAND...: polls COMMAND every 0.1 s until it succeeds; fails after SECONDS.
wait_for() {
    local limit=$1 what=$2 deadline=$((SECONDS + $1))
    shift 2
    until "$@"; do
        test "$SECONDS" -lt "$deadline" || fail "waited $limit s for $what"
        sleep 0.1
    done
}

# port_open udp|tcp PORT: a socket is bound (UDP) or listening (TCP) on PORT.
port_open() {
    local hex
    hex=$(printf ':%04X' "$2")
    # Columns: sl, local address (hex IP:PORT), remote address, state (0A: listening).
    { cat "/proc/net/$1" "/proc/net/${1}6" 2> /dev/null || true; } |
        awk -v p="$hex" -v tcp="$([ "$1" = tcp ] && echo 1)" \
            'substr($2, length($2) - 4) == p && (!tcp || $4 == "0A") { f = 1 } END { exit !f }'
}

# processed_at_least DIR N: the run in DIR has written N frame lines so far.
processed_at_least() {
    local n
    n=$(cat "$1/replay-safety40-v1.jsonl.partial" "$1/replay-safety40-v1.jsonl" 2> /dev/null | grep -c '"index"' || true)
    test "$n" -ge "$2"
}

# expect DIR STATUS WANT EXPR...: the run in DIR exited WANT (its status STATUS) and left its sidecar
# under its final name, with the summary last; each Python EXPR holds over the summary's fields
# (plus `frames`, the frame lines, and `accounted`, processed + dropped + corrupt), and so does
# $accounting: every frame received is processed, dropped or skipped as corrupt. Prints the counts.
accounting="received == accounted"
expect() {
    local dir=$1 got=$2 want=$3
    shift 3
    if [ "$got" -ne "$want" ]; then
        cat "$dir.err" >&2 || true
        fail "$dir: exit $got, not $want"
    fi
    python3 - "$dir" "$accounting" "$@" <<'PY'
import json, os, sys
folder, *tests = sys.argv[1:]
path = folder + "/replay-safety40-v1.jsonl"
if os.path.exists(path + ".partial"):
    sys.exit(f"live: FAILED: {path}.partial left behind")
if not os.path.exists(path):
    sys.exit(f"live: FAILED: no {path}")
lines = [json.loads(line) for line in open(path)]
summary = lines[-1].get("summary")
if lines[0].get("kind") != "periphery-replay" or summary is None:
    sys.exit(f"live: FAILED: {path}: no header or no summary last")
frames = lines[1:-1]
values = dict(summary, frames=frames, accounted=summary["processed"] + summary["dropped"] + summary["corrupt"])
for test in ["len(frames) == processed", *tests]:
    if not eval(test, {}, values):
        shown = {k: v for k, v in summary.items() if k not in ("latency_ms", "age_ms")}
        sys.exit(f"live: FAILED: {folder}: not {test}: {json.dumps(shown)}")
print(f"received {summary['received']}, processed {summary['processed']}, dropped {summary['dropped']}, "
      f"corrupt {summary['corrupt']}, ended {summary['ended']}")
PY
}

# outputs_finished DIR: the run's MCAP is complete and its MP4 has one frame per processed frame.
outputs_finished() {
    local dir=$1 processed got
    test ! -e "$dir/run.mcap.partial" && test ! -e "$dir/run.mp4.partial" || fail "$dir: an output left as .partial"
    python3 tools/check_mcap_complete.py "$dir/run.mcap" > /dev/null
    processed=$(python3 -c 'import json, sys; print(json.loads(list(open(sys.argv[1]))[-1])["summary"]["processed"])' \
        "$dir/replay-safety40-v1.jsonl")
    got=$(timeout 60 ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 "$dir/run.mp4")
    test "$got" = "$processed" || fail "$dir/run.mp4 holds $got frames, the sidecar $processed"
}

# The clip: a synthetic drive at 15 frames/s encoded as H.264 with a keyframe every second, and the
# same frames as a 1080p clip at 30 frames/s, both kept between runs (rendering the drive takes a
# while); the 1080p calibration is the drive's scaled ×2.
mkdir -p "$out"
find "$out" -mindepth 1 -maxdepth 1 ! -name media -exec rm -rf {} +
media=$out/media
clip=$media/clip.mp4
if [ ! -s "$media/done-$frames" ]; then
    rm -rf "$media" && mkdir -p "$media"
    to_end "$media/synth.log" 900 "$bin" synth --sequence --frames $frames --fps 15 --width 960 --height 540 --seed 31 \
        --out "$media/drive"
    test $status -eq 0 || fail "synth: $(cat "$media/synth.log")"
    cp "$media/drive/calibration.json" "$media/calibration.json"
    to_end "$media/encode.err" 300 ffmpeg -v error -y -framerate 15 -i "$media/drive/images/%06d.png" -c:v libx264 -pix_fmt yuv420p -g $gop -bf 0 \
        -tune zerolatency -crf 18 "$clip"
    test $status -eq 0 || fail "encoding $clip: $(cat "$media/encode.err")"
    to_end "$media/encode.err" 300 ffmpeg -v error -y -framerate 30 -i "$media/drive/images/%06d.png" -vf scale=1920:1080 -c:v libx264 \
        -preset veryfast -pix_fmt yuv420p -g 30 -bf 0 -tune zerolatency -crf 23 "$media/clip1080.mp4"
    test $status -eq 0 || fail "encoding clip1080.mp4: $(cat "$media/encode.err")"
    rm -rf "$media/drive/images"
    echo "$frames frames" > "$media/done-$frames"
fi
calibration=$media/calibration.json
python3 - "$calibration" "$out/calibration1080.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
for key in ("fx", "fy", "cx", "cy", "width", "height"):
    c["intrinsics"][key] *= 2
json.dump(c, open(sys.argv[2], "w"), indent=2)
PY
sent=$(timeout 60 ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 "$clip")
test "$sent" -eq $frames || fail "$clip holds $sent frames, not $frames"
seconds=$((frames / 15))

# The reference: a file run processes every frame.
to_end "$out/file.err" 600 "$bin" run "$clip" --calibration "$calibration" --out "$out/file"
test $status -eq 0 || fail "file run: exit $status: $(tail -3 "$out/file.err")"
counts=$(expect "$out/file" 0 0 "processed == $frames" "ended == 'end-of-input'")
report "reference: the file run of $clip: $counts ($(grep -o '[0-9.]* frames/s' "$out/file.err"))"

# a. Streams, each sending the clip twice over (-stream_loop 1; the engine may be slow). Each run must
# account for every frame sent but the first GOP (lost while probing a stream joined part-way), and
# find what the file run found in the frames it processed.
sent=$((2 * frames))
stream_check() {  # stream_check NAME: after the run in $out/NAME ended with $status
    local counts agreement
    counts=$(expect "$out/$1" "$status" 0 "ended == 'duration'" "processed >= 5" \
        "$((sent - gop)) <= accounted <= $sent")
    agreement=$(python3 tools/compare_live.py "$out/file/replay-safety40-v1.jsonl" "$out/$1/replay-safety40-v1.jsonl" \
        --period $seconds) || fail "$1: $agreement"
    report "$1: $counts of $sent sent; ${agreement#compare_live: }"
}

start "$out/udp.err" 60 "$bin" run udp://127.0.0.1:18101 --calibration "$calibration" --out "$out/udp" --duration $((2 * seconds + 5))
run=$bg
wait_for 30 "the UDP run to bind port 18101" port_open udp 18101
to_end "$out/sender.err" 60 ffmpeg -v error -re -stream_loop 1 -i "$clip" -c copy -f mpegts 'udp://127.0.0.1:18101?pkt_size=1316'
test $status -eq 0 || fail "sender: $(cat "$out/sender.err")"
finish $run
stream_check udp

start "$out/http.err" 60 "$bin" run http://127.0.0.1:18102/live.ts --calibration "$calibration" --out "$out/http" \
    --duration $((2 * seconds + 9))
run=$bg
sleep 2  # the source is not up yet: the run keeps trying
port_open tcp 18102 && fail "port 18102 in use"
start "$out/http-sender.err" 60 ffmpeg -v error -re -stream_loop 1 -i "$clip" -c copy -f mpegts -listen 1 \
    http://127.0.0.1:18102/live.ts
sender=$bg
finish $run
finish $sender sender_status
stream_check http

start "$out/rtsp.err" 60 "$bin" run rtsp://127.0.0.1:18103/live --listen --calibration "$calibration" --out "$out/rtsp" \
    --duration $((2 * seconds + 6))
run=$bg
wait_for 30 "the RTSP run to listen on port 18103" port_open tcp 18103
to_end "$out/sender.err" 60 ffmpeg -v error -re -stream_loop 1 -i "$clip" -c copy -f rtsp -rtsp_transport tcp rtsp://127.0.0.1:18103/live
test $status -eq 0 || fail "sender: $(cat "$out/sender.err")"
finish $run
stream_check rtsp

# b. Overload: 1080p at 30 frames/s on one worker thread. Frames are dropped, none queue.
sent1080=$frames  # the same frames at 30 frames/s
start "$out/overload.err" 60 "$bin" run udp://127.0.0.1:18104 --calibration "$out/calibration1080.json" --out "$out/overload" \
    --threads 1 --duration $((seconds / 2 + 5))
run=$bg
wait_for 30 "the overloaded run to bind port 18104" port_open udp 18104
to_end "$out/sender.err" 60 ffmpeg -v error -re -i "$media/clip1080.mp4" -c copy -f mpegts 'udp://127.0.0.1:18104?pkt_size=1316'
test $status -eq 0 || fail "sender: $(cat "$out/sender.err")"
finish $run
counts=$(expect "$out/overload" "$status" 0 "ended == 'duration'" "dropped > 0" "processed > 0" "accounted <= $sent1080")
report "overload (1080p, 30 frames/s, --threads 1): $counts of $sent1080 sent"

# c. Reconnect: the HTTP sender is killed about 4 s in and back 3 s later, sending the clip from the
# start again. The first frame after the gap carries it, the tracker starts afresh, and the run
# goes on to its duration.
start "$out/reconnect.err" 60 "$bin" run http://127.0.0.1:18105/live.ts --calibration "$calibration" --out "$out/reconnect" \
    --duration 16
run=$bg
start "$out/reconnect-sender1.err" 60 ffmpeg -v error -re -i "$clip" -c copy -f mpegts -listen 1 http://127.0.0.1:18105/live.ts
sender=$bg
sleep 4
wait_for 30 "the reconnect run's first frame" processed_at_least "$out/reconnect" 1
signal KILL $sender
finish $sender sender_status
sleep 3
start "$out/reconnect-sender2.err" 60 ffmpeg -v error -re -stream_loop 2 -i "$clip" -c copy -f mpegts -listen 1 \
    http://127.0.0.1:18105/live.ts
sender=$bg
finish $run
signal KILL $sender gone-ok
finish $sender sender_status
counts=$(expect "$out/reconnect" "$status" 0 "ended == 'duration'" "reconnects >= 1")
gap=$(python3 - "$out/reconnect/replay-safety40-v1.jsonl" <<'PY'
import json, sys
frames = [json.loads(line) for line in open(sys.argv[1])][1:-1]
gaps = [k for k, f in enumerate(frames) if f.get("gap_s", 0) >= 2]
def fail(why):
    print(why)
    sys.exit(1)
if not gaps:
    fail("no frame line with gap_s >= 2: " + str([f["gap_s"] for f in frames if "gap_s" in f]))
k = gaps[0]
if not any(f.get("tracker_reset") for f in frames[k:k + 2]):
    fail(f"no tracker_reset on the frame after the gap (index {frames[k]['index']}) or the next")
after = len(frames) - k
if after < 5:
    fail(f"only {after} frames processed from the gap on")
print(f"a gap of {frames[k]['gap_s']:.1f} s before frame {frames[k]['index']}, the tracker reset, {after} frames from there on")
PY
) || fail "reconnect: $gap"
# The sender restarted the clip with the same timestamps: one offset holds both sides of the gap.
agreement=$(python3 tools/compare_live.py "$out/file/replay-safety40-v1.jsonl" "$out/reconnect/replay-safety40-v1.jsonl" \
    --period $seconds) || fail "reconnect: $agreement"
report "reconnect: $counts; $gap; ${agreement#compare_live: }"

# A sender that never returns: the run gives up after --reconnect-timeout, exits 3 and finishes
# every output.
start "$out/lost.err" 60 "$bin" run http://127.0.0.1:18106/live.ts --calibration "$calibration" --out "$out/lost" \
    --reconnect-timeout 3 --mcap "$out/lost/run.mcap" --render-video "$out/lost/run.mp4"
run=$bg
start "$out/lost-sender.err" 60 ffmpeg -v error -re -i "$clip" -c copy -f mpegts -listen 1 http://127.0.0.1:18106/live.ts
sender=$bg
sleep 3
wait_for 30 "the lost run's first frame" processed_at_least "$out/lost" 1
signal KILL $sender
finish $sender sender_status
finish $run
counts=$(expect "$out/lost" "$status" 3 "ended == 'timeout'" "processed > 0")
outputs_finished "$out/lost"
grep -q "127.0.0.1:18106" "$out/lost.err" || fail "lost: the error does not name the source: $(cat "$out/lost.err")"
report "lost for good: exit 3 after the reconnect timeout; $counts; sidecar, MCAP and MP4 finished"

# d. Stop: SIGINT and SIGTERM, during a live run and during a file run, each with an MCAP and an
# MP4: exit 0, everything finished, one MP4 frame per processed frame.
for sig in INT TERM; do
    dir=$out/stop-udp-$sig
    start "$dir.err" 60 "$bin" run udp://127.0.0.1:18107 --calibration "$calibration" --out "$dir" \
        --mcap "$dir/run.mcap" --render-video "$dir/run.mp4"
    run=$bg
    wait_for 30 "the UDP run to bind port 18107" port_open udp 18107
    start "$out/stop-sender.err" 60 ffmpeg -v error -re -stream_loop 1 -i "$clip" -c copy -f mpegts 'udp://127.0.0.1:18107?pkt_size=1316'
    sender=$bg
    wait_for 30 "3 frames of the UDP run" processed_at_least "$dir" 3
    signal "$sig" "$run"
    finish $run
    signal KILL $sender gone-ok
    finish $sender sender_status
    counts=$(expect "$dir" "$status" 0 "ended == 'stopped'")
    outputs_finished "$dir"
    udp_counts=$counts

    dir=$out/stop-file-$sig
    start "$dir.err" 120 "$bin" run "$clip" --calibration "$calibration" --out "$dir" --threads 1 \
        --mcap "$dir/run.mcap" --render-video "$dir/run.mp4"
    run=$bg
    began_run=$SECONDS
    wait_for 60 "3 frames of the file run" processed_at_least "$dir" 3
    while [ $((SECONDS - began_run)) -lt 5 ]; do sleep 0.2; done  # about 5 s in
    signal "$sig" "$run"
    finish $run
    counts=$(expect "$dir" "$status" 0 "ended == 'stopped'" "processed < $frames")
    outputs_finished "$dir"
    report "SIG$sig: UDP run $udp_counts; file run $counts of $frames; sidecars, MCAPs and MP4s finished"
done

# f. Damaged input: an MPEG-TS file cut inside a packet fails naming the file and the frame (exit 3).
to_end "$out/remux.err" 60 ffmpeg -v error -y -i "$clip" -t 2 -c copy -f mpegts "$out/whole.ts"
test $status -eq 0 || fail "remuxing: $(cat "$out/remux.err")"
size=$(stat -c %s "$out/whole.ts")
cut=$((size * 6 / 10))
if [ $((cut % 188)) -eq 0 ]; then cut=$((cut + 94)); fi
head -c "$cut" "$out/whole.ts" > "$out/cut.ts"
to_end "$out/cut.err" 300 "$bin" run "$out/cut.ts" --calibration "$calibration" --out "$out/cut"
counts=$(expect "$out/cut" "$status" 3 "ended == 'input-failed'" "processed > 0")
grep -q "cut.ts: .*ends inside frame" "$out/cut.err" || fail "cut.ts: $(cat "$out/cut.err")"
report "a TS file cut at byte $cut of $size: exit 3, '$(grep -o 'ends inside frame [0-9]*' "$out/cut.err")'; $counts"

# A UDP relay that loses 1 % of the datagrams: damaged frames are skipped and counted, or with
# --keep-corrupt processed and marked. (At 3 % nearly every frame is damaged: a run skipping them
# processed 2 of 75. At 1 % about four in five are, and the loss is the same every run: the
# sender's datagrams and the relay's seeded choice do not change.)
for keep in skip keep; do
    dir=$out/lossy-$keep
    start "$dir.err" 60 "$bin" run udp://127.0.0.1:18109 --calibration "$calibration" --out "$dir" --duration $((seconds + 5)) \
        $([ $keep = keep ] && echo --keep-corrupt)
    run=$bg
    wait_for 30 "the lossy run to bind port 18109" port_open udp 18109
    start "$dir-relay.out" 60 python3 tools/lossy_udp_relay.py --listen 127.0.0.1:18108 --to 127.0.0.1:18109 --drop 0.01 --seed 1 \
        --seconds $((seconds + 5))
    relay=$bg
    wait_for 30 "the relay to bind port 18108" port_open udp 18108
    to_end "$out/sender.err" 60 ffmpeg -v error -re -i "$clip" -c copy -f mpegts 'udp://127.0.0.1:18108?pkt_size=1316'
    test $status -eq 0 || fail "sender: $(cat "$out/sender.err")"
    finish $run
    signal TERM $relay gone-ok
    finish $relay relay_status
    if [ $keep = skip ]; then
        counts=$(expect "$dir" "$status" 0 "ended == 'duration'" "corrupt > 0" "processed > 0" \
            "not any('corrupt' in f for f in frames)")
    else
        # Kept, a damaged frame is processed, marked in its line and counted in corrupt_kept.
        counts=$(expect "$dir" "$status" 0 "ended == 'duration'" "corrupt == 0" "corrupt_kept > 0" \
            "corrupt_kept == sum(f.get('corrupt') is True for f in frames)")
    fi
    relayed=$(grep -o 'forwarded.*' "$dir-relay.out" || echo "no relay count")
    report "lossy relay (1 %, $relayed), $([ $keep = keep ] && echo --keep-corrupt || echo "corrupt skipped"): $counts"
done

# g. V4L2 without a camera: errors that name the device and the option.
fails() {  # fails PATTERN... -- COMMAND...: COMMAND exits non-zero and its stderr holds every PATTERN
    local patterns=()
    while [ "$1" != -- ]; do patterns+=("$1"); shift; done
    shift
    to_end "$out/v4l2.err" 60 "$@"
    test "$status" -ne 0 || fail "exit 0: $*"
    for pattern in "${patterns[@]}"; do
        grep -qF -- "$pattern" "$out/v4l2.err" || fail "no '$pattern' from $*: $(cat "$out/v4l2.err")"
    done
}
fails /dev/video99 "no such device" -- "$bin" run /dev/video99 --calibration "$calibration" --out "$out/v4l2"
fails /dev/null "not a V4L2 capture device" -- "$bin" run /dev/null --calibration "$calibration" --out "$out/v4l2"
fails --video-size -- "$bin" run /dev/video99 --video-size 12x --calibration "$calibration" --out "$out/v4l2"
report "V4L2: /dev/video99, /dev/null and --video-size 12x fail with their reasons"
echo "live: all checks passed in $((SECONDS - began)) s"
