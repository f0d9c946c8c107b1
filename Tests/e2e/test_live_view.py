"""`periphery run --serve` with real clients on loopback (docs/guides/live.md): Foxglove's two
subprotocols against the MCAP of the same run; the token, over HTTP and at the handshake; an address
off loopback (inside a network namespace of its own); hostile clients. Every process runs under a
time limit and is killed when its test ends, pass or fail (the `processes` fixture)."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest
import websockets
from mcap.reader import make_reader

from helpers import ROOT
from live_clients import free_port, masked_text, raw_handshake
from mcap_files import foxglove_types, parse_foxglove

FPS, FRAMES = 15, 90
WEIGHTS = "Weights/safety40-synthetic-int8.safetensors"


def fail(message):
    raise AssertionError(message)


def http(url, headers=None):
    """(status, headers) of GET url."""
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            response.read()
            return response.status, response.headers
    except urllib.error.HTTPError as error:
        return error.code, error.headers


def wait_until_serving(port, process, log, token=None):
    deadline = time.monotonic() + 60
    query = f"?token={token}" if token else ""
    while time.monotonic() < deadline:
        if process.poll() is not None:
            fail(f"the run ended before serving ({log}):\n{open(log).read()[-2000:]}")
        try:
            if http(f"http://127.0.0.1:{port}/{query}")[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.1)
    fail(f"nothing served on port {port} after 60 s ({log})")


@pytest.fixture(scope="module")
def serve_clip(periphery, media_cache) -> dict:
    """A synthetic drive as H.264 (6 s, clip) and the same ten times over (long_clip), with its
    calibration; kept between runs in .build/e2e-media/serve."""
    out = str(media_cache / "serve")
    os.makedirs(out, exist_ok=True)
    drive = os.path.join(out, "drive")
    clip = os.path.join(out, "clip.mp4")
    long_clip = os.path.join(out, "long.mp4")
    done = os.path.join(out, f"clip-{FRAMES}-done")
    made = {"clip": clip, "long_clip": long_clip, "calibration": os.path.join(drive, "calibration.json")}
    if os.path.exists(done):
        return made
    shutil.rmtree(drive, ignore_errors=True)
    subprocess.run([periphery, "synth", "--sequence", "--frames", str(FRAMES), "--fps", str(FPS), "--width", "640", "--height", "360",
                    "--seed", "31", "--out", drive], check=True, stdout=subprocess.DEVNULL, timeout=600)
    encode = ["ffmpeg", "-v", "error", "-y", "-framerate", str(FPS), "-i", os.path.join(drive, "images", "%06d.png"),
              "-c:v", "libx264", "-pix_fmt", "yuv420p", "-g", str(FPS), "-bf", "0"]
    subprocess.run(encode + [clip], check=True, timeout=300)
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-stream_loop", "9", "-i", clip, "-c", "copy", long_clip], check=True, timeout=300)
    open(done, "w").close()
    return made


async def foxglove_client(url, subprotocol, first_id, limit):
    """Connects offering `subprotocol`, subscribes to every advertised channel and collects the
    message frames until the server closes: {log_time: {topic: payload}}."""
    async with websockets.connect(url, subprotocols=[subprotocol], max_size=None, open_timeout=10) as ws:
        if ws.subprotocol != subprotocol:
            fail(f"offered {subprotocol}, the server chose {ws.subprotocol}")
        info = json.loads(await asyncio.wait_for(ws.recv(), 10))
        advertise = json.loads(await asyncio.wait_for(ws.recv(), 10))
        if info.get("op") != "serverInfo" or info.get("capabilities") != [] or advertise.get("op") != "advertise":
            fail(f"{subprotocol}: expected serverInfo (read-only) then advertise, got {info} / {advertise.get('op')}")
        channels = {c["id"]: c for c in advertise["channels"]}
        for channel in channels.values():
            if json.loads(channel["schema"]).get("title") != channel["schemaName"] or channel["encoding"] != "json":
                fail(f"{subprotocol}: channel {channel['topic']} advertises a schema that is not its own")
        subscriptions = {first_id + i: c for i, c in enumerate(channels.values())}
        await ws.send(json.dumps({"op": "subscribe", "subscriptions": [{"id": s, "channelId": c["id"]} for s, c in subscriptions.items()]}))
        frames = {}
        deadline = time.monotonic() + limit
        try:
            while time.monotonic() < deadline:
                message = await asyncio.wait_for(ws.recv(), max(0.1, deadline - time.monotonic()))
                if isinstance(message, str):
                    fail(f"{subprotocol}: unexpected text message {message[:200]}")
                opcode, subscription, log_time = struct.unpack_from("<BIQ", message)
                if opcode != 1 or subscription not in subscriptions:
                    fail(f"{subprotocol}: message data with opcode {opcode}, subscription {subscription}")
                topic = subscriptions[subscription]["topic"]
                frames.setdefault(log_time, {})[topic] = json.loads(message[13:])
        except websockets.ConnectionClosed:
            pass
        return frames


async def refused(url, subprotocols, expected_status):
    try:
        async with websockets.connect(url, subprotocols=subprotocols, open_timeout=10) as ws:
            fail(f"a handshake offering {subprotocols} was accepted ({ws.subprotocol})")
    except websockets.InvalidStatus as error:
        if error.response.status_code != expected_status:
            fail(f"a handshake offering {subprotocols} got {error.response.status_code}, expected {expected_status}")


def without_image_bytes(topic, body):
    if topic == "/camera/image":
        jpeg = base64.b64decode(body["data"])
        if not (jpeg.startswith(b"\xff\xd8") and jpeg.endswith(b"\xff\xd9")):
            fail("an image message does not hold a JPEG")
        return {k: v for k, v in body.items() if k != "data"}
    return body


def test_live_view_serves_both_foxglove_subprotocols_what_the_mcap_records(periphery, serve_clip, processes, tmp_path):
    # Two clients on the `websockets` package, one per subprotocol name, subscribe to every channel of
    # `run CLIP --realtime --serve --mcap`; every message is decoded (Foxglove's protobuf types through
    # their JSON mapping, the advertised JSON Schemas' titles) and each frame a client got is held to
    # the MCAP written in the same run: same channels, same log times, same content, the JPEG bytes
    # excepted. Unknown or missing subprotocols are refused.
    clip, calibration, out = serve_clip["clip"], serve_clip["calibration"], str(tmp_path)
    port, mcap_path, log = free_port(), os.path.join(out, "run.mcap"), os.path.join(out, "foxglove.log")
    process = processes.start([periphery, "run", clip, "--realtime", "--calibration", calibration, "--serve", f"127.0.0.1:{port}",
                              "--mcap", mcap_path, "--out", os.path.join(out, "foxglove"), "--weights", WEIGHTS], log, 120)
    wait_until_serving(port, process, log)
    url = f"ws://127.0.0.1:{port}/"

    async def clients():
        await refused(url, ["foo.websocket.v1"], 400)
        await refused(url, None, 400)
        return await asyncio.gather(foxglove_client(url, "foxglove.websocket.v1", 10, 60), foxglove_client(url, "foxglove.sdk.v1", 500, 60))

    received = asyncio.run(clients())
    types = foxglove_types()
    if process.wait(timeout=60) != 0:
        fail(f"the run failed ({log})")
    recorded = {}
    with open(mcap_path, "rb") as f:
        for _, channel, message in make_reader(f).iter_messages():
            body = json.loads(message.data)
            # The end of the run's events: written after the last frame, never sent to viewers.
            if channel.topic == "/perception/events" and body.get("end_of_run"):
                continue
            recorded.setdefault(message.log_time, {})[channel.topic] = body
    topics = set(next(iter(recorded.values())))
    for name, frames in zip(("foxglove.websocket.v1", "foxglove.sdk.v1"), received):
        if len(frames) < max(10, len(recorded) // 2):
            fail(f"{name}: {len(frames)} frames received of the {len(recorded)} recorded")
        for log_time, messages in frames.items():
            if log_time not in recorded:
                fail(f"{name}: a frame at {log_time} ns that the MCAP does not have")
            if set(messages) != topics:
                fail(f"{name}: frame {log_time} has channels {sorted(messages)}, the MCAP {sorted(topics)}")
            for topic, body in messages.items():
                if topic in types:
                    parse_foxglove(topic, body, types)
                if without_image_bytes(topic, body) != without_image_bytes(topic, recorded[log_time][topic]):
                    fail(f"{name}: {topic} at {log_time} differs from the MCAP's")
    print(f"Foxglove: {len(received[0])} and {len(received[1])} of {len(recorded)} frames over the two subprotocols, "
          f"every message as in the MCAP on {len(topics)} channels; unknown and missing subprotocols refused (400)")


def test_live_view_needs_its_token_and_never_logs_it(periphery, serve_clip, processes, tmp_path):
    # 401 without or with a wrong token, over HTTP and at the handshake, and the token is never
    # logged; the page carries a strict Content-Security-Policy.
    long_clip, calibration, out = serve_clip["long_clip"], serve_clip["calibration"], str(tmp_path)
    port, token, log = free_port(), "t0ken-for-the-check", os.path.join(out, "security.log")
    process = processes.start([periphery, "run", long_clip, "--realtime", "--calibration", calibration, "--serve", f"127.0.0.1:{port}",
                              "--token", token, "--out", os.path.join(out, "security"), "--weights", WEIGHTS], log, 120)
    wait_until_serving(port, process, log, token)
    base = f"http://127.0.0.1:{port}"
    for path, headers, expected in [
        ("/", {}, 401), ("/?token=bad-guess-9", {}, 401), ("/app.js", {}, 401), ("/", {"Authorization": "Bearer bad-guess-9"}, 401),
        (f"/?token={token}", {}, 200), ("/app.js", {"Authorization": f"Bearer {token}"}, 200), (f"/nothing?token={token}", {}, 404),
    ]:
        status, response_headers = http(base + path, headers)
        if status != expected:
            fail(f"GET {path} {headers}: {status}, expected {expected}")
    status, response_headers = http(f"{base}/?token={token}")
    csp = response_headers.get("Content-Security-Policy", "")
    if "default-src 'none'" not in csp or "connect-src 'self'" not in csp:
        fail(f"the page's Content-Security-Policy is not strict: {csp!r}")

    async def handshakes():
        await refused(f"ws://127.0.0.1:{port}/", ["foxglove.websocket.v1"], 401)
        await refused(f"ws://127.0.0.1:{port}/?token=bad-guess-9", ["foxglove.websocket.v1"], 401)
        async with websockets.connect(f"ws://127.0.0.1:{port}/?token={token}", subprotocols=["foxglove.websocket.v1"]) as ws:
            json.loads(await asyncio.wait_for(ws.recv(), 10))
        async with websockets.connect(f"ws://127.0.0.1:{port}/", subprotocols=["foxglove.sdk.v1"],
                                      additional_headers={"Authorization": f"Bearer {token}"}) as ws:
            json.loads(await asyncio.wait_for(ws.recv(), 10))

    asyncio.run(handshakes())
    processes.signal(process, signal.SIGINT)
    process.wait(timeout=30)
    lines = open(log).read().splitlines()
    refusals = [line for line in lines if "refused" in line]
    if len(refusals) < 6 or any(token in line or "bad-guess-9" in line for line in refusals):
        fail(f"refusals must be logged without the token: {refusals}")
    print(f"security: 401 without or with a wrong token over HTTP and at the handshake ({len(refusals)} refusals logged "
          f"without the token), ?token= and Bearer accepted, strict CSP")


def test_live_view_off_loopback_generates_a_token(periphery, serve_clip, tmp_path):
    """Inside a network namespace of its own (`unshare -rn`, so that nothing is exposed): an address
    off loopback makes the server generate a token."""
    long_clip, calibration, out = serve_clip["long_clip"], serve_clip["calibration"], str(tmp_path)
    probe = subprocess.run(["unshare", "-rn", "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        # Binding 0.0.0.0 outside a namespace of its own would expose the server; never done.
        pytest.skip(f"no network namespace here ({probe.stderr.strip()})")
    log = os.path.join(out, "open.log")
    port = 18431
    script = (f"ip link set lo up && exec timeout -k 5 60 {periphery} run {long_clip} --realtime --calibration {calibration} "
              f"--serve 0.0.0.0:{port} --max-frames 30 --out {os.path.join(out, 'open')} --weights {WEIGHTS}")
    inner = (f"import subprocess, sys, time, urllib.request, urllib.error\n"
             f"p = subprocess.Popen(['sh', '-c', {script!r}], stderr=open({log!r}, 'w'))\n"
             f"time.sleep(0.5)\n"
             f"for _ in range(200):\n"
             f"    try:\n"
             f"        urllib.request.urlopen('http://127.0.0.1:{port}/', timeout=2); print('200'); break\n"
             f"    except urllib.error.HTTPError as e: print(e.code); break\n"
             f"    except OSError: time.sleep(0.1)\n"
             f"p.terminate(); p.wait(timeout=30)\n")
    result = subprocess.run(["unshare", "-rn", sys.executable, "-c", inner], capture_output=True, text=True, timeout=90, cwd=ROOT)
    text = open(log).read()
    url_lines = [line for line in text.splitlines() if line.startswith("live view: http")]
    if result.stdout.strip() != "401" or len(url_lines) != 1 or "?token=" not in url_lines[0]:
        fail(f"0.0.0.0 without --token: expected 401 and one URL line with a generated token; got {result.stdout!r} {result.stderr[-500:]!r}, {url_lines}")
    token = url_lines[0].split("?token=")[1].split()[0].rstrip(")")
    if len(token) < 32 or text.count(token) != 2:  # the page's URL and Foxglove's, on the one line
        fail(f"the generated token must be long and printed once, in the URL line: {url_lines}")
    print("0.0.0.0 without --token (in a network namespace of its own): a 128-bit token generated, printed once, 401 without it")


def test_live_view_survives_hostile_clients(periphery, serve_clip, processes, tmp_path):
    # Garbage, binary, unknown operations, bad subscriptions, deep nesting get a status error; too
    # many of them, or an oversized message, close the client; raw garbage and a silent connection
    # are dropped; a client that stops reading is cut off; more clients than allowed get 503; the
    # server serves well-behaved clients throughout.
    long_clip, calibration, out = serve_clip["long_clip"], serve_clip["calibration"], str(tmp_path)
    port, log = free_port(), os.path.join(out, "hostile.log")
    process = processes.start([periphery, "run", long_clip, "--realtime", "--calibration", calibration, "--serve", f"127.0.0.1:{port}",
                              "--out", os.path.join(out, "hostile"), "--weights", WEIGHTS], log, 150)
    wait_until_serving(port, process, log)
    url = f"ws://127.0.0.1:{port}/"

    async def status_for(ws, message):
        await ws.send(message)
        reply = json.loads(await asyncio.wait_for(ws.recv(), 10))
        if reply.get("op") != "status" or reply.get("level") != 2:
            fail(f"{message[:60]!r}: expected an error status, got {reply}")
        return reply["message"]

    async def closed_with(ws, code):
        try:
            while True:
                await asyncio.wait_for(ws.recv(), 10)
        except websockets.ConnectionClosed as closed:
            if closed.rcvd is None or closed.rcvd.code != code:
                fail(f"expected a close with {code}, got {closed.rcvd}")

    async def hostile():
        async with websockets.connect(url, subprotocols=["foxglove.websocket.v1"], max_size=None) as ws:
            await ws.recv(), await ws.recv()
            for message in ["garbage", b"\x01\x00\x00\x00\x00binary", '{"op":"dance"}', '{"op":"setParameters","parameters":[]}',
                            '{"op":"subscribe","subscriptions":[{"id":1,"channelId":99}]}', '{"op":"subscribe","subscriptions":[{"id":-1}]}',
                            '{"op":"unsubscribe","subscriptionIds":[77]}', "[" * 5000, '{"op":"subscribe","subscriptions":[{"id":1e400,"channelId":1}]}']:
                await status_for(ws, message)
            await ws.send("x" * 70000)
            await closed_with(ws, 1009)
        async with websockets.connect(url, subprotocols=["foxglove.websocket.v1"]) as ws:
            await ws.recv(), await ws.recv()
            for _ in range(20):
                await ws.send("not json")
            await closed_with(ws, 1008)
        sockets = [await websockets.connect(url, subprotocols=["foxglove.websocket.v1"]) for _ in range(16)]
        try:
            await refused(url, ["foxglove.websocket.v1"], 503)
        finally:
            for ws in sockets:
                await ws.close()
        async with websockets.connect(url, subprotocols=["foxglove.websocket.v1"]) as ws:
            if json.loads(await asyncio.wait_for(ws.recv(), 10)).get("op") != "serverInfo":
                fail("a well-behaved client after the hostile ones got no serverInfo")

    asyncio.run(hostile())
    # Raw garbage instead of HTTP, and a connection that never sends: both dropped, within the
    # handshake timeout (5 s) and a margin.
    garbage = socket.create_connection(("127.0.0.1", port), timeout=15)
    garbage.sendall(os.urandom(4096))
    silent = socket.create_connection(("127.0.0.1", port), timeout=15)
    t0 = time.monotonic()
    for sock in (garbage, silent):
        try:
            while sock.recv(65536):
                pass
        except (ConnectionResetError, socket.timeout):
            pass
    if time.monotonic() - t0 > 12:
        fail("a silent connection was kept for more than 12 s")
    # A client that subscribes to everything and never reads: cut off after the stall bound.
    stalled = raw_handshake(port)
    stalled.sendall(masked_text(json.dumps({"op": "subscribe", "subscriptions": [{"id": i, "channelId": i} for i in range(1, 8)]})))
    # The bound: 5 s without taking anything once its socket buffers (256 KiB on the server's side)
    # are full, which a few frames do; 15 s leaves room for a slow machine.
    t0 = time.monotonic()
    while time.monotonic() < t0 + 15 and "took nothing" not in open(log).read():
        time.sleep(0.25)
    stalled.close()
    if "took nothing" not in open(log).read():
        fail(f"a client that never reads was not cut off within 15 s ({log})")
    cut_after = time.monotonic() - t0
    processes.signal(process, signal.SIGINT)
    if process.wait(timeout=30) != 0:
        fail(f"the run did not end cleanly after the hostile clients ({log})")
    print("hostile clients: 9 kinds of bad message answered with an error status, an oversized one closed (1009), "
          "20 bad ones closed (1008), a 17th client refused (503), raw garbage and a silent connection dropped, "
          f"a client that never reads cut off after {cut_after:.1f} s; the run ended cleanly")
