"""Clients of `periphery run --serve` on loopback, shared by the live view's tests
(Tests/e2e/test_live_view.py, Tests/e2e/test_live_page.py) and benchmark (tools/bench_serve.py): a free
port, a WebSocket handshake on a plain socket (for a client that then stops reading) and a masked
text frame to send on it, and a minimal Chrome DevTools Protocol client over one page target of a
headless Chromium. Standard library and `websockets` only.
"""

import asyncio
import base64
import json
import os
import socket
import struct
import urllib.request

from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed


class Failure(Exception):
    pass


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def raw_handshake(port, subprotocol="foxglove.websocket.v1"):
    """A WebSocket handshake on a plain socket (for a client that then stops reading)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: {subprotocol}\r\n\r\n").encode())
    response = b""
    while b"\r\n\r\n" not in response:
        chunk = sock.recv(1)
        if not chunk:
            raise Failure("the raw handshake was closed")
        response += chunk
    if b" 101 " not in response.split(b"\r\n")[0]:
        raise Failure(f"the raw handshake failed: {response[:200]!r}")
    return sock


def masked_text(text):
    payload, mask = text.encode(), os.urandom(4)
    header = bytes([0x81]) + (bytes([0x80 | len(payload)]) if len(payload) < 126 else bytes([0x80 | 126]) + struct.pack(">H", len(payload)))
    return header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


class DevTools:
    """A minimal Chrome DevTools Protocol client over one page target."""

    def __init__(self, socket_):
        self.socket = socket_
        self.next_id = 0
        self.waiting = {}
        self.events = []
        self.reader = asyncio.create_task(self.read())

    async def read(self):
        try:
            async for text in self.socket:
                message = json.loads(text)
                if "id" in message:
                    future = self.waiting.pop(message["id"], None)
                    if future and not future.done():
                        future.set_result(message)
                else:
                    self.events.append(message)
        except ConnectionClosed:
            pass
        for future in self.waiting.values():  # Chromium went away: fail at once, not at the time limit
            if not future.done():
                future.set_result({"error": "the DevTools connection closed"})

    async def send(self, method, limit_s=20, **params):
        self.next_id += 1
        future = asyncio.get_running_loop().create_future()
        self.waiting[self.next_id] = future
        await self.socket.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        try:
            message = await asyncio.wait_for(future, limit_s)
        except asyncio.TimeoutError:
            raise Failure(f"DevTools: no answer to {method} in {limit_s} s")
        if "error" in message:
            raise Failure(f"DevTools: {method}: {message['error']}")
        return message.get("result", {})

    async def evaluate(self, expression):
        result = await self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise Failure(f"evaluating {expression!r}: {result['exceptionDetails'].get('text')}")
        return result["result"].get("value")

    def of(self, method):
        return [e["params"] for e in self.events if e.get("method") == method]


async def attach(port):
    """A DevTools client on the page target of the Chromium whose DevTools port is `port`."""
    page = None
    for _ in range(50):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=2) as r:
                page = next((t for t in json.load(r) if t.get("type") == "page"), None)
        except OSError:
            page = None
        if page:
            break
        await asyncio.sleep(0.2)
    if not page:
        raise Failure("chromium shows no page target")
    return DevTools(await ws_connect(page["webSocketDebuggerUrl"], max_size=None, open_timeout=10))
