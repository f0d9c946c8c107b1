"""The live page of `periphery run SOURCE --serve` in headless Chromium (docs/guides/live.md).

Makes a synthetic H.264 clip with its ego motion, serves it with `periphery run CLIP --realtime
--serve 127.0.0.1:PORT`, opens the page in headless Chromium through the Chrome DevTools Protocol and
checks: the page carries a Content-Security-Policy header; two screenshots about 3 s apart both
show the camera and the bird's-eye view, each different between the shots, and the track list is
filled in at least one; after the server is killed the page says so, and once it is restarted on
the same port the page reconnects and draws frames again; no CSP violation, no script error, and
no request to any other host. A second test serves a scripted drive that warns (conftest's
warning_drive, looped) and checks that the event banner appears while a forward-collision warning
is on, reads "forward collision · #ID · TTC …" as text (no markup), is red in a screenshot, and
goes when the warning ends. Every process runs under `timeout` in its own process group and is
killed in the end, pass or fail. Marked `tools`: `make test-tools` runs it, having installed Debian's
`chromium`.
"""
import asyncio
import base64
import csv
import os
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import time
import zlib

import pytest

from helpers import Processes
from live_clients import Failure, attach, free_port

pytestmark = pytest.mark.tools

CLIP_FRAMES = 120  # synthetic frames: 8 s at 15 frames/s …
CLIP_LOOPS = 4  # … played 4 times over: a 32 s clip
CLIP_FPS = 15
CLIP_SIZE = (640, 360)
WINDOW = (1280, 720)
SHOT_GAP_S = 3.0
TOTAL_LIMIT_S = 300  # for everything after the clip is made

mark = time.monotonic()


def report(text):
    global mark
    now = time.monotonic()
    print(f"page: {text} [{now - mark:.1f} s]", flush=True)
    mark = now


# ---------------------------------------------------------------------------------- processes

def run_to_end(command, log_path, limit_s):
    """Runs a command to its end under `timeout`; fails with its log's tail on a non-zero status."""
    with open(log_path, "wb") as log:
        status = subprocess.run(["timeout", "-k", "5", str(int(limit_s))] + list(command),
                                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT).returncode
    if status != 0:
        raise Failure(f"{' '.join(command[:2])} exited {status}: {tail(log_path)}")


def tail(path, lines=15):
    try:
        with open(path, errors="replace") as f:
            return "\n" + "".join(f.readlines()[-lines:])
    except OSError:
        return "(no log)"


def port_open(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


# ---------------------------------------------------------------------------------- the clip

def make_clip(periphery, media):
    """A synthetic drive at 15 frames/s encoded as H.264 and played CLIP_LOOPS times over, with the
    drive's motion.csv and location.csv repeated to match (so the ego path keeps growing). Kept
    between runs: rendering the drive takes a while."""
    clip = os.path.join(media, "clip.mp4")
    done = os.path.join(media, f"done-{CLIP_FRAMES}x{CLIP_LOOPS}")
    if os.path.exists(done):
        return clip
    shutil.rmtree(media, ignore_errors=True)
    os.makedirs(media)
    drive = os.path.join(media, "drive")
    run_to_end([periphery, "synth", "--sequence", "--frames", str(CLIP_FRAMES), "--fps", str(CLIP_FPS),
                "--width", str(CLIP_SIZE[0]), "--height", str(CLIP_SIZE[1]), "--seed", "31", "--out", drive],
               os.path.join(media, "synth.log"), 900)
    encode_looped(drive, media, CLIP_FRAMES, CLIP_FPS, CLIP_LOOPS)
    shutil.rmtree(os.path.join(drive, "images"))
    with open(done, "w") as f:
        f.write("ok\n")
    return clip


def encode_looped(drive, media, frames, fps, loops):
    """MEDIA/clip.mp4: the FRAMES frames of DRIVE at FPS as H.264, played LOOPS times over, with the
    drive's calibration.json, and its motion.csv and location.csv repeated to match."""
    clip = os.path.join(media, "clip.mp4")
    run_to_end(["ffmpeg", "-v", "error", "-y", "-stream_loop", str(loops - 1), "-framerate", str(fps),
                "-i", os.path.join(drive, "images", "%06d.png"), "-c:v", "libx264", "-pix_fmt", "yuv420p",
                "-g", str(fps), "-bf", "0", "-crf", "20", clip],
               os.path.join(media, "encode.log"), 300)
    shutil.copy(os.path.join(drive, "calibration.json"), os.path.join(media, "calibration.json"))
    period = frames / fps
    for name, extra in (("motion.csv", ()), ("location.csv", ("t_wall",))):
        with open(os.path.join(drive, name), newline="") as f:
            rows = list(csv.reader(f))
        header, body = rows[0], [r for r in rows[1:] if r]
        columns = [header.index("t")] + [header.index(c) for c in extra]
        with open(os.path.join(media, name), "w", newline="") as f:
            out = csv.writer(f, lineterminator="\n")
            out.writerow(header)
            for loop in range(loops):
                for row in body:
                    if float(row[columns[0]]) >= period:
                        continue
                    row = list(row)
                    for c in columns:
                        row[c] = f"{float(row[c]) + loop * period:.6f}"
                    out.writerow(row)
    return clip


# ---------------------------------------------------------------------------------- PNG

def decode_png(data):
    """(width, height, bytes per pixel, rows): 8-bit RGB or RGBA, not interlaced."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise Failure("screenshot is not a PNG")
    pos, idat, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat.append(chunk)
        elif kind == b"IEND":
            break
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        raise Failure(f"screenshot PNG of an unsupported kind (depth {depth}, colour {colour}, interlace {interlace})")
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = width * bpp
    rows, previous = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        if kind == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif kind == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, previous))
        elif kind == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + previous[i]) >> 1)) & 255
        elif kind == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = previous[i]
                c = previous[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        elif kind != 0:
            raise Failure(f"screenshot PNG row {y} has filter {kind}")
        rows.append(line)
        previous = line
    return width, height, bpp, rows


def region_pixels(png, rect, step=2):
    """RGB triples of a rectangle [x, y, w, h] (CSS pixels = PNG pixels), every `step` pixels."""
    width, height, bpp, rows = png
    x0, y0 = max(0, int(rect[0]) + 1), max(0, int(rect[1]) + 1)
    x1, y1 = min(width, int(rect[0] + rect[2]) - 1), min(height, int(rect[1] + rect[3]) - 1)
    pixels = []
    for y in range(y0, y1, step):
        row = rows[y]
        for x in range(x0, x1, step):
            i = x * bpp
            pixels.append((row[i], row[i + 1], row[i + 2]))
    return pixels


# ---------------------------------------------------------------------------------- DevTools

async def start_chromium(processes, out):
    profile = tempfile.mkdtemp(prefix="page-check-chromium-")
    command = ["chromium", "--headless=new", "--remote-debugging-port=0", f"--user-data-dir={profile}",
               "--no-first-run", "--no-default-browser-check", "--disable-gpu", "--disable-extensions",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               "--disable-default-apps", "--mute-audio", "--hide-scrollbars", "--disable-dev-shm-usage",
               "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
               "--disable-backgrounding-occluded-windows", f"--window-size={WINDOW[0]},{WINDOW[1]}"]
    if os.geteuid() == 0:
        command.append("--no-sandbox")
    command.append("about:blank")
    process = processes.start(command, os.path.join(out, "chromium.log"), TOTAL_LIMIT_S)
    active = os.path.join(profile, "DevToolsActivePort")
    deadline = time.monotonic() + 30
    while not os.path.exists(active) or os.path.getsize(active) == 0:
        if process.poll() is not None:
            raise Failure(f"chromium exited {process.returncode}: {tail(os.path.join(out, 'chromium.log'))}")
        if time.monotonic() > deadline:
            raise Failure("chromium did not open its DevTools port in 30 s")
        await asyncio.sleep(0.1)
    await asyncio.sleep(0.2)
    return await attach(int(open(active).read().split()[0])), profile


# ---------------------------------------------------------------------------------- the server

def start_server(processes, periphery, clip, port, out, name, *options):
    """`periphery run CLIP --serve` on PORT, with OPTIONS (by default --realtime)."""
    folder = os.path.join(out, name)
    os.makedirs(folder, exist_ok=True)
    log = os.path.join(out, f"{name}.log")
    process = processes.start(
        [periphery, "run", clip, *(options or ("--realtime",)), "--calibration", os.path.join(os.path.dirname(clip), "calibration.json"),
         "--serve", f"127.0.0.1:{port}", "--out", folder], log, 120)
    return process, log


async def wait_listening(process, port, log, limit_s):
    deadline = time.monotonic() + limit_s
    while not port_open(port):
        if process.poll() is not None:
            raise Failure(f"the server exited {process.returncode} before listening on {port}: {tail(log)}")
        if time.monotonic() > deadline:
            raise Failure(f"the server did not listen on {port} in {limit_s} s: {tail(log)}")
        await asyncio.sleep(0.1)


async def poll(devtools, expression, limit_s, what, interval=0.1):
    """Evaluates `expression` until it is truthy; fails after `limit_s` seconds."""
    deadline = time.monotonic() + limit_s
    error = ""
    while True:
        try:
            value = await devtools.evaluate(expression)
            error = ""
        except Failure as failure:  # the page may be between documents
            value, error = None, f" (last: {failure})"
        if value:
            return value
        if time.monotonic() > deadline:
            raise Failure(f"waited {limit_s} s for {what}{error}")
        await asyncio.sleep(interval)


STATE = """(() => {
  const b = document.body, r = (id) => { const e = document.getElementById(id).getBoundingClientRect();
    return [e.left, e.top, e.width, e.height]; };
  return { frames: +(b.dataset.frames || 0), connected: b.dataset.connected, connects: +(b.dataset.connects || 0),
    rows: document.querySelectorAll('#tracks tbody tr').length, weights: b.dataset.weights || '',
    banner: document.getElementById('banner').hidden ? '' : document.getElementById('banner').textContent,
    offline: !document.getElementById('offline').hidden, index: b.dataset.index || '',
    stats: Array.from(document.querySelectorAll('#stats span')).map((e) => e.textContent).join(' · '),
    camera: r('camera-pane'), bev: r('bev-pane'), csp: (window.__cspViolations || []).slice() };
})()"""

CSP_HOOK = """window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', (e) => {
  window.__cspViolations.push(e.violatedDirective + ' ' + (e.blockedURI || '') + ' ' + (e.sourceFile || '') + ':' + e.lineNumber);
}, true);"""


async def screenshot(devtools, path):
    shot = await devtools.send("Page.captureScreenshot", limit_s=30, format="png")
    data = base64.b64decode(shot["data"])
    with open(path, "wb") as f:
        f.write(data)
    return decode_png(data)


def panes_of(png, state, name):
    """Checks that both panes are drawn; returns their sampled pixels."""
    panes = {}
    for pane, least in (("camera", 200), ("bev", 24)):
        rect = state[pane]
        if rect[2] < 100 or rect[3] < 100:
            raise Failure(f"{name}: the {pane} pane is {rect[2]:.0f}x{rect[3]:.0f} px")
        pixels = region_pixels(png, rect)
        colours = len(set(pixels))
        if colours < least:
            raise Failure(f"{name}: the {pane} pane looks blank ({colours} colours)")
        panes[pane] = (pixels, colours)
    return panes


def differing(a, b):
    return sum(1 for p, q in zip(a, b) if max(abs(p[0] - q[0]), abs(p[1] - q[1]), abs(p[2] - q[2])) > 12)


async def check(periphery, clip, out, processes):
    port = free_port()
    base = f"http://127.0.0.1:{port}/"
    server, log = start_server(processes, periphery, clip, port, out, "server1")
    devtools, profile = await start_chromium(processes, out)
    try:
        await wait_listening(server, port, log, 60)
        report(f"the server listens on 127.0.0.1:{port}; chromium is up")

        for domain in ("Page", "Network", "Runtime", "Log"):
            await devtools.send(f"{domain}.enable")
        await devtools.send("Page.addScriptToEvaluateOnNewDocument", source=CSP_HOOK)
        await devtools.send("Emulation.setDeviceMetricsOverride", width=WINDOW[0], height=WINDOW[1],
                            deviceScaleFactor=1, mobile=False)
        await devtools.send("Page.navigate", url=base)
        await poll(devtools, "document.readyState === 'complete'", 20, "the page to load")

        responses = {r["response"]["url"]: r["response"] for r in devtools.of("Network.responseReceived")}
        document = responses.get(base)
        if document is None:
            raise Failure(f"no response for {base}; responses: {sorted(responses)}")
        headers = {k.lower(): v for k, v in document.get("headers", {}).items()}
        csp = headers.get("content-security-policy", "")
        if document.get("status") != 200 or "default-src 'none'" not in csp:
            raise Failure(f"{base}: status {document.get('status')}, Content-Security-Policy {csp!r}")
        assets = {u: r.get("status") for u, r in responses.items() if u.split("?")[0].endswith((".js", ".css"))}
        if len(assets) < 2 or any(s != 200 for s in assets.values()):
            raise Failure(f"the page's script and style sheet: {assets}")
        report(f"GET / 200 with Content-Security-Policy ({csp[:40]}…); app.js and style.css 200")

        state = await poll(devtools, f"(() => {{ const s = {STATE}; return s.frames >= 2 && s.connected === 'true' ? s : null; }})()",
                           60, "the page to draw 2 frames")
        report(f"connected, {state['frames']} frames drawn (frame {state['index']}; {state['stats']}); weights "
               f"{state['weights']!r}{', banner: ' + repr(state['banner']) if state['banner'] else ''}")
        if state["weights"] in ("synthetic", "untrained") and not state["banner"]:
            raise Failure(f"weights {state['weights']} but no banner")

        try:
            await poll(devtools, "document.querySelectorAll('#tracks tbody tr').length > 0", 20, "tracks")
        except Failure:
            pass  # judged on the screenshots below
        shots = []
        for n in (1, 2):
            if n == 2:
                await asyncio.sleep(SHOT_GAP_S)
            state = await devtools.evaluate(STATE)
            path = os.path.join(out, f"page-{n}.png")
            png = await screenshot(devtools, path)
            panes = await asyncio.to_thread(panes_of, png, state, path)
            shots.append((state, panes))
            report(f"{path}: frame {state['index']} ({state['frames']} drawn), {state['rows']} tracks listed; camera "
                   f"{state['camera'][2]:.0f}x{state['camera'][3]:.0f} px with {panes['camera'][1]} colours, BEV "
                   f"{state['bev'][2]:.0f}x{state['bev'][3]:.0f} px with {panes['bev'][1]} colours")
        (s1, p1), (s2, p2) = shots
        if s2["frames"] <= s1["frames"]:
            raise Failure(f"no frame drawn between the screenshots ({s1['frames']} then {s2['frames']})")
        for pane in ("camera", "bev"):
            changed = differing(p1[pane][0], p2[pane][0])
            if changed < 50:
                raise Failure(f"the {pane} pane is the same in both screenshots ({changed} pixels differ)")
        if max(s1["rows"], s2["rows"]) < 1:
            raise Failure("the track list is empty in both screenshots")
        report(f"both panes changed between the screenshots ({differing(p1['camera'][0], p2['camera'][0])} and "
               f"{differing(p1['bev'][0], p2['bev'][0])} sampled pixels); track list {s1['rows']} then {s2['rows']} rows")

        # The server goes away: the page says so.
        child = processes.child(server)
        if child:
            os.kill(child, signal.SIGTERM)
        try:
            await asyncio.to_thread(server.wait, 15)
        except subprocess.TimeoutExpired:
            processes.kill_group(server)
            raise Failure(f"the server did not stop within 15 s of SIGTERM: {tail(log)}")
        stopped = time.monotonic()
        state = await poll(devtools, f"(() => {{ const s = {STATE}; return s.connected === 'false' && s.offline ? s : null; }})()",
                           10, "the page to show it is disconnected")
        await screenshot(devtools, os.path.join(out, "page-disconnected.png"))
        report(f"server stopped (exit {server.returncode}); the page shows it is disconnected "
               f"{time.monotonic() - stopped:.1f} s later, {state['frames']} frames drawn")

        # The server comes back on the same port: the page reconnects and draws again.
        frames = state["frames"]
        restarted = time.monotonic()
        server, log = start_server(processes, periphery, clip, port, out, "server2")
        await wait_listening(server, port, log, 60)
        state = await poll(devtools, f"(() => {{ const s = {STATE}; return s.connected === 'true' && s.frames > {frames} && !s.offline ? s : null; }})()",
                           20, "the page to reconnect and draw a new frame")
        await screenshot(devtools, os.path.join(out, "page-3.png"))
        report(f"restarted on port {port}: reconnected ({state['connects']} connections) and drawing again "
               f"{time.monotonic() - restarted:.1f} s after the restart ({state['frames']} frames drawn)")

        # CSP, script errors, requests.
        await asyncio.sleep(0.5)
        violations = list(await devtools.evaluate("window.__cspViolations || []"))
        for entry in devtools.of("Log.entryAdded"):
            if "Content Security Policy" in entry["entry"].get("text", ""):
                violations.append("log: " + entry["entry"]["text"])
        for call in devtools.of("Runtime.consoleAPICalled"):
            text = " ".join(str(a.get("value", a.get("description", ""))) for a in call.get("args", []))
            if "Content Security Policy" in text:
                violations.append("console: " + text)
        if violations:
            raise Failure("CSP violations:\n  " + "\n  ".join(violations))
        errors = [e["exceptionDetails"].get("exception", {}).get("description") or e["exceptionDetails"].get("text")
                  for e in devtools.of("Runtime.exceptionThrown")]
        if errors:
            raise Failure("script errors:\n  " + "\n  ".join(map(str, errors)))
        urls = [r["request"]["url"] for r in devtools.of("Network.requestWillBeSent")]
        urls += [w["url"] for w in devtools.of("Network.webSocketCreated")]
        allowed = (f"http://127.0.0.1:{port}/", f"ws://127.0.0.1:{port}/", "data:", "blob:")
        foreign = sorted({u for u in urls if not u.startswith(allowed)})
        if foreign:
            raise Failure("requests to other places:\n  " + "\n  ".join(foreign))
        sockets = sum(1 for u in urls if u.startswith("ws://"))
        report(f"no CSP violation, no script error; all {len(urls)} requests ({sockets} WebSocket) to 127.0.0.1:{port}")
    finally:
        try:
            await devtools.socket.close()
        except Exception:
            pass
        devtools.reader.cancel()
        processes.stop_all()
        shutil.rmtree(profile, ignore_errors=True)


EVENTS_STATE = """(() => {
  const e = document.getElementById('event-banner'), r = e.getBoundingClientRect();
  return { events: document.body.dataset.events || '', shown: !e.hidden, text: e.textContent, html: e.innerHTML,
    rect: [r.left, r.top, r.width, r.height], frames: +(document.body.dataset.frames || 0) };
})()"""


async def check_event_banner(periphery, clip, weights, out, processes):
    """The page of a run of CLIP (a drive that warns, looped) shows the event banner while a warning
    is on, as text, in red, and takes it away when the warning ends."""
    port = free_port()
    # At the engine's own pace, so that every frame is processed and the tracker sees the lead throughout.
    server, log = start_server(processes, periphery, clip, port, out, "events", "--weights", weights)
    devtools, profile = await start_chromium(processes, out)
    try:
        await wait_listening(server, port, log, 60)
        await devtools.send("Page.enable")
        await devtools.send("Emulation.setDeviceMetricsOverride", width=WINDOW[0], height=WINDOW[1], deviceScaleFactor=1, mobile=False)
        await devtools.send("Page.navigate", url=f"http://127.0.0.1:{port}/")
        on = await poll(devtools, f"(() => {{ const s = {EVENTS_STATE}; return s.events.includes('forward_collision') ? s : null; }})()",
                        150, "a forward-collision banner")
        png = await screenshot(devtools, os.path.join(out, "page-event.png"))
        report(f"banner shown after {on['frames']} frames drawn: {on['text']!r} at {on['rect']}")
        if not on["shown"] or not on["text"].startswith("forward collision · #") or "TTC " not in on["text"]:
            raise Failure(f"the banner reads {on['text']!r} (shown: {on['shown']})")
        if on["html"] != on["text"].replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"):
            raise Failure(f"the banner holds markup: {on['html']!r}")
        pixels = region_pixels(png, on["rect"], step=1)
        red = sum(p[0] for p in pixels) / len(pixels)
        others = sum((p[1] + p[2]) / 2 for p in pixels) / len(pixels)
        if red < others + 20:
            raise Failure(f"the banner is not red in the screenshot (mean red {red:.0f}, green and blue {others:.0f})")
        off = await poll(devtools, f"(() => {{ const s = {EVENTS_STATE}; return !s.shown && s.events === '' ? s : null; }})()",
                         60, "the banner to go when the warning ends")
        report(f"banner red in the screenshot (mean red {red:.0f} against {others:.0f}); gone after {off['frames']} frames")
    finally:
        try:
            await devtools.socket.close()
        except Exception:
            pass
        devtools.reader.cancel()
        processes.stop_all()
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="module")
def page_clip(periphery, media_cache) -> str:
    """The clip, kept between runs in .build/e2e-media/page."""
    clip = make_clip(str(periphery), str(media_cache / "page"))
    report(f"clip {clip}: {CLIP_FRAMES} frames x {CLIP_LOOPS} at {CLIP_FPS} frames/s, {CLIP_SIZE[0]}x{CLIP_SIZE[1]}")
    return clip


def test_live_page_draws_both_views_reconnects_after_a_restart_and_breaks_no_policy(periphery, page_clip, tmp_path):
    if not shutil.which("chromium"):
        pytest.fail("no chromium on PATH (Debian's chromium package; make test-tools installs it)")
    processes = Processes()
    try:
        asyncio.run(asyncio.wait_for(check(str(periphery), page_clip, str(tmp_path), processes), TOTAL_LIMIT_S))
    finally:
        processes.stop_all()


def test_live_page_shows_an_event_banner_while_a_warning_is_on(periphery, warning_drive, tmp_path):
    # conftest's warning drive (NHTSA LVM: a forward-collision warning in each pass once the
    # refractory period allows) played 8 times over, served at the engine's pace.
    if not shutil.which("chromium"):
        pytest.fail("no chromium on PATH (Debian's chromium package; make test-tools installs it)")
    drive = str(warning_drive["drive"])
    frames = len(os.listdir(os.path.join(drive, "images")))
    clip = encode_looped(drive, str(tmp_path), frames, 10, 8)
    processes = Processes()
    try:
        asyncio.run(asyncio.wait_for(check_event_banner(str(periphery), clip, str(warning_drive["weights"]), str(tmp_path), processes),
                                     TOTAL_LIMIT_S))
    finally:
        processes.stop_all()
