"""The live view's cost to the engine, measured side by side (docs/results/benchmarks-history.md, "Live view").

Three conditions, alternated round by round in one run, each a file run (not --realtime: the engine
as fast as it goes) of the same clip with `--serve`:
- none: no viewer;
- eight: eight clients connect at once, seven Foxglove clients reading every channel and one that
  subscribes to everything and never reads (a plain socket with a small receive buffer);
- four: two page-like clients (the channels the page subscribes to), one Foxglove client on every
  channel, and the one that never reads;
- browsers (with --browsers): as four, with the two pages real ones in headless Chromium at idle
  priority (`chrt --idle 0`): they draw with the CPU time the engine leaves, as pages on other
  devices would; the frames each drew (its `data-frames`) are reported after the viewers' counts.
Clients run in this process under `nice 19` (on the real road they are other devices; here they
share the 2 vCPUs) and only take the messages, unless --decode, when they also parse every JSON
payload, whose CPU then competes with the engine's. The engine's rate is taken from the sidecar (frames after the first 30, over
their arrival span); resident memory and the process's CPU time (all threads) are sampled from /proc every 0.2 s. The non-reader must be cut
off (the run's log says so). Every periphery command runs without OPENBLAS_CORETYPE and
OPENBLAS_L2_SIZE (users do not set them).

Usage: bench_serve.py --periphery BIN --clip CLIP --calibration C.json [--rounds 9] [--frames 450] [--weights W] [--decode] [--browsers]
"""

import argparse
import asyncio
import json
import os
import signal
import socket
import statistics
import subprocess
import tempfile
import threading
import time

import websockets

# Beside this script, so on the path of `python tools/bench_serve.py`.
from live_clients import Failure, attach, free_port, masked_text, raw_handshake

PAGE_TOPICS = {"/camera/image", "/camera/calibration", "/tf", "/ego/path", "/perception/result", "/perception/stats"}


def env_without_openblas():
    return {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None


def cpu_seconds(pid):
    """User + system CPU time of the process so far (all its threads)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def periphery_pid(timeout_pid):
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(timeout_pid)], capture_output=True, text=True).stdout.split()
    return int(out[0]) if out else timeout_pid


def non_reader(port):
    """A client that subscribes to every channel and never reads (check_serve's raw handshake)."""
    sock = raw_handshake(port)
    sock.sendall(masked_text(json.dumps({"op": "subscribe", "subscriptions": [{"id": i, "channelId": i} for i in range(1, 8)]})))
    return sock


async def viewer(port, topics, stop, decode):
    """Subscribes to `topics` (all when None) and takes every message (parsing its JSON when
    `decode`) until `stop` is set."""
    count = 0
    try:
        async with websockets.connect(f"ws://127.0.0.1:{port}/", subprotocols=["foxglove.websocket.v1"], max_size=None) as ws:
            await ws.recv()
            channels = json.loads(await ws.recv())["channels"]
            wanted = [c for c in channels if topics is None or c["topic"] in topics]
            await ws.send(json.dumps({"op": "subscribe", "subscriptions": [{"id": c["id"], "channelId": c["id"]} for c in wanted]}))
            while not stop.is_set():
                try:
                    message = await asyncio.wait_for(ws.recv(), 0.5)
                except asyncio.TimeoutError:
                    continue
                if isinstance(message, bytes):
                    if decode:
                        json.loads(message[13:])
                    count += 1
    except websockets.ConnectionClosed:
        pass
    return count


def start_page(port, directory, index):
    """The live page in headless Chromium at idle priority (SCHED_IDLE): on the road the page runs on
    another device, so here it may take only the CPU time the engine leaves. Without `chrt --idle`
    the browsers' drawing takes the engine's 2 vCPUs (docs/results/benchmarks-history.md, "Live view")."""
    profile = tempfile.mkdtemp(prefix=f"page-{index}-", dir=directory)
    command = ["chrt", "--idle", "0", "chromium", "--headless=new", "--remote-debugging-port=0", f"--user-data-dir={profile}",
               "--no-first-run", "--disable-gpu", "--disable-extensions", "--disable-background-networking", "--mute-audio",
               "--disable-background-timer-throttling", "--disable-renderer-backgrounding", "--window-size=1280,720"]
    if os.geteuid() == 0:
        command.append("--no-sandbox")
    # A process group of its own (to stop it whole), not a session: a new session would be a new
    # scheduler autogroup, which the kernel shares the CPUs with as an equal of the engine's, whatever
    # its threads' policy (sched(7), "The autogroup feature").
    process = subprocess.Popen(command + [f"http://127.0.0.1:{port}/"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               process_group=0)
    return process, profile


def frames_drawn(profile):
    """The frames the page drew (its `data-frames`), asked over Chromium's DevTools port
    (check_page's client); None if the page cannot be asked."""
    async def ask():
        devtools = await attach(int(open(os.path.join(profile, "DevToolsActivePort")).read().split()[0]))
        try:
            return await devtools.evaluate("+(document.body.dataset.frames || 0)")
        finally:
            await devtools.socket.close()
    try:
        return asyncio.run(ask())
    except (OSError, ValueError, Failure, websockets.WebSocketException):
        return None


def one_run(args, condition, directory):
    port = free_port()
    out = os.path.join(directory, condition)
    log_path = os.path.join(directory, f"{condition}.log")
    command = ["timeout", "-k", "5", "600", args.periphery, "run", args.clip, "--calibration", args.calibration, "--serve",
               f"127.0.0.1:{port}", "--out", out, "--weights", args.weights, "--max-frames", str(args.frames)]
    with open(log_path, "w") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env_without_openblas())
    pid = None
    stop = threading.Event()
    samples = []
    clients = {"none": [], "eight": [None] * 7, "four": [PAGE_TOPICS, PAGE_TOPICS, None], "browsers": [None]}[condition]
    received = []

    def run_viewers():
        os.nice(19)
        async def all_viewers():
            return await asyncio.gather(*(viewer(port, topics, stop, args.decode) for topics in clients))
        received.extend(asyncio.run(all_viewers()))

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.02)
    pid = periphery_pid(process.pid)
    browsers = [start_page(port, directory, i) for i in range(2)] if condition == "browsers" else []
    thread = threading.Thread(target=run_viewers)
    if condition != "none":
        thread.start()
        stalled = non_reader(port)
    cpu = 0.0
    while process.poll() is None:
        kib, used = rss_kib(pid), cpu_seconds(pid)
        if kib:
            samples.append(kib)
        cpu = used or cpu
        time.sleep(0.2)
    stop.set()
    drawn = [frames_drawn(profile) for _, profile in browsers]
    for browser, _ in browsers:
        os.killpg(browser.pid, signal.SIGKILL)
        browser.wait()
    if condition != "none":
        thread.join()
        stalled.close()
    lines = [json.loads(line) for line in open(os.path.join(out, "replay-safety40-v1.jsonl")) if line.startswith('{"index"')]
    arrivals = [line["arrival"] for line in lines][30:]
    fps = (len(arrivals) - 1) / (arrivals[-1] - arrivals[0])
    text = open(log_path).read()
    cut = "took nothing" in text
    return {"fps": fps, "frames": len(lines), "cpu_ms": 1000 * cpu / len(lines), "rss_first_mb": samples[min(4, len(samples) - 1)] / 1024, "rss_last_mb": samples[-1] / 1024,
            "rss_max_mb": max(samples) / 1024, "cut_off": cut, "received": received + drawn}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--periphery", required=True)
    parser.add_argument("--clip", required=True)
    parser.add_argument("--calibration", required=True)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--frames", type=int, default=450, help="frames per run (short runs, many rounds: this machine's rate drifts)")
    parser.add_argument("--weights", default="Weights/safety40-synthetic-int8.safetensors")
    parser.add_argument("--browsers", action="store_true",
                        help="a fourth condition: two real pages in headless Chromium (SCHED_IDLE), one Foxglove client, the non-reader")
    parser.add_argument("--decode", action="store_true", help="viewers parse every message's JSON (their CPU then competes too)")
    args = parser.parse_args()
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "unknown CPU")
    print(f"CPU: {cpu}, {os.cpu_count()} vCPUs; clip {args.clip}; weights {args.weights}; viewers decode: {args.decode}")
    results = {c: [] for c in ("none", "eight", "four") + (("browsers",) if args.browsers else ())}
    with tempfile.TemporaryDirectory() as directory:
        for round_index in range(args.rounds):
            for condition in results:
                r = one_run(args, condition, directory)
                results[condition].append(r)
                print(f"round {round_index + 1} {condition:5}: {r['fps']:6.2f} frames/s over {r['frames']} frames, "
                      f"{r['cpu_ms']:.1f} ms CPU per frame, RSS "
                      f"{r['rss_first_mb']:.0f} → {r['rss_last_mb']:.0f} MB (max {r['rss_max_mb']:.0f}), "
                      f"non-reader cut off: {r['cut_off']}, messages per viewer {r['received']}", flush=True)
    base = statistics.median(r["fps"] for r in results["none"])
    for condition, runs in results.items():
        median = statistics.median(r["fps"] for r in runs)
        cpu = statistics.median(r["cpu_ms"] for r in runs)
        print(f"{condition:5}: median {median:.2f} frames/s = {median / base:.3f} × none; {cpu:.1f} ms CPU per frame; "
              f"RSS max {max(r['rss_max_mb'] for r in runs):.0f} MB; non-reader cut off in {sum(r['cut_off'] for r in runs)}/{len(runs)}")


if __name__ == "__main__":
    main()
