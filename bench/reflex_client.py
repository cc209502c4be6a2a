"""A minimal Reflex websocket client for benchmarks: no browser, no extra dependency.

Speaks what the compiled frontend speaks (reflex_base/.templates/web/utils/state.js):
Engine.IO v4 + Socket.IO v5 over one websocket at `/_event/?token=...`, the hydrate event in
the Socket.IO CONNECT packet's auth (`{"event": {...}}`), events sent as `42["event", {name,
payload, router_data}]`, state updates received as `42["event", {delta, events}]`.

The websocket itself is wsproto (already installed with simple-websocket, a Reflex
dependency) over asyncio streams: python-socketio's AsyncClient needs aiohttp, which is not
installed, and a small client keeps the load generator's own CPU use low on a 2-core machine.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from wsproto import ConnectionType, WSConnection
from wsproto.events import (
    AcceptConnection,
    CloseConnection,
    Ping,
    RejectConnection,
    Request,
    TextMessage,
)

# The Socket.IO namespace and the websocket path are both the event endpoint (the browser
# connects `io("ws://host/_event", {path: "/_event"})`).
NAMESPACE = "/_event"


class ClientError(RuntimeError):
    pass


@dataclass
class Update:
    """One state update from the server, with the monotonic time it was read."""

    at: float
    delta: dict[str, Any]
    events: list[dict[str, Any]] = field(default_factory=list)


class ReflexClient:
    """One browser tab: one token, one websocket, the cookies of its handshake."""

    def __init__(self, base_url: str, *, cookie: str = "", token: str | None = None) -> None:
        parts = urlsplit(base_url)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self.origin = f"{parts.scheme}://{parts.netloc}"
        self.cookie = cookie
        self.token = token or str(uuid.uuid4())
        self.updates: asyncio.Queue[Update] = asyncio.Queue()
        self._ws = WSConnection(ConnectionType.CLIENT)
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._reader_task: asyncio.Task | None = None
        self._open = asyncio.get_running_loop().create_future()
        self._closed = False
        self._buffer: list[str] = []

    # --- connection -----------------------------------------------------------------------
    async def connect(self, boot_event: dict[str, Any], timeout: float = 30) -> None:
        """Open the websocket and the Socket.IO namespace, carrying the hydrate event."""
        self._reader, self._writer = await asyncio.wait_for(asyncio.open_connection(self.host, self.port), timeout)
        headers = [(b"origin", self.origin.encode())]
        if self.cookie:
            headers.append((b"cookie", self.cookie.encode()))
        target = f"/_event/?token={self.token}&EIO=4&transport=websocket"
        self._send_bytes(self._ws.send(Request(host=f"{self.host}:{self.port}", target=target, extra_headers=headers)))
        self._reader_task = asyncio.create_task(self._read_loop())
        await asyncio.wait_for(self._open, timeout)
        # Socket.IO CONNECT to the default namespace, with the boot (hydrate) event as auth.
        self._send_text("40" + NAMESPACE + "," + json.dumps({"event": boot_event}, separators=(",", ":")))

    async def close(self) -> None:
        if self._writer is None or self._closed:
            return
        self._closed = True
        try:
            self._send_bytes(self._ws.send(CloseConnection(code=1000)))
            await self._writer.drain()
        except Exception:  # noqa: BLE001 - closing anyway
            pass
        if self._reader_task:
            self._reader_task.cancel()
        self._writer.close()

    # --- sending --------------------------------------------------------------------------
    def emit(self, event: dict[str, Any]) -> float:
        """Send one event; returns the monotonic send time."""
        frame = "42" + NAMESPACE + ',["event",' + json.dumps(event, separators=(",", ":")) + "]"
        at = time.perf_counter()
        self._send_text(frame)
        return at

    def _send_text(self, text: str) -> None:
        self._send_bytes(self._ws.send(TextMessage(data=text)))

    def _send_bytes(self, data: bytes) -> None:
        assert self._writer is not None
        self._writer.write(data)

    # --- receiving ------------------------------------------------------------------------
    async def _read_loop(self) -> None:
        assert self._reader is not None
        try:
            while True:
                data = await self._reader.read(65536)
                if not data:
                    raise ClientError("connection closed by the server")
                self._ws.receive_data(data)
                for ev in self._ws.events():
                    if isinstance(ev, AcceptConnection):
                        pass
                    elif isinstance(ev, RejectConnection):
                        raise ClientError(f"websocket refused: {ev.status_code}")
                    elif isinstance(ev, TextMessage):
                        self._buffer.append(ev.data)
                        if ev.message_finished:
                            text = "".join(self._buffer)
                            self._buffer.clear()
                            self._on_engineio(text)
                    elif isinstance(ev, Ping):
                        self._send_bytes(self._ws.send(ev.response()))
                    elif isinstance(ev, CloseConnection):
                        raise ClientError(f"websocket closed: {ev.code} {ev.reason}")
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - surfaced to whoever waits
            if not self._open.done():
                self._open.set_exception(exc)
            self.updates.put_nowait(exc)  # type: ignore[arg-type]

    def _on_engineio(self, text: str) -> None:
        kind, body = text[:1], text[1:]
        if kind == "0":  # OPEN
            if not self._open.done():
                self._open.set_result(json.loads(body))
        elif kind == "2":  # PING from the server: answer PONG
            self._send_text("3" + body)
        elif kind == "4":  # MESSAGE: a Socket.IO packet
            self._on_socketio(body)
        elif kind == "1":  # CLOSE
            self.updates.put_nowait(ClientError("engine.io closed"))  # type: ignore[arg-type]

    def _on_socketio(self, packet: str) -> None:
        kind, body = packet[:1], packet[1:]
        if body.startswith(NAMESPACE + ","):
            body = body[len(NAMESPACE) + 1 :]
        if kind == "2":  # EVENT: ["name", data]
            name, *args = json.loads(body)
            if name == "event" and args:
                data = args[0]
                self.updates.put_nowait(Update(time.perf_counter(), data.get("delta") or {}, data.get("events") or []))
            elif name == "new_token" and args:
                self.token = args[0]
        elif kind == "4":  # CONNECT_ERROR
            self.updates.put_nowait(ClientError(f"connect refused: {body}"))  # type: ignore[arg-type]

    async def next_update(self, timeout: float = 60) -> Update:
        item = await asyncio.wait_for(self.updates.get(), timeout)
        if isinstance(item, Exception):
            raise item
        return item


async def fetch_page(base_url: str, path: str, cookie: str = "", timeout: float = 30) -> tuple[int, bytes]:
    """GET a page as a browser opening it does before its websocket (HTTP/1.1, the connection closed after
    the answer): (status, body). Standard library only, like the client above."""
    parts = urlsplit(base_url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
    try:
        lines = [f"GET {path} HTTP/1.1", f"Host: {host}:{port}", "Accept: text/html", "Connection: close"]
        if cookie:
            lines.append(f"Cookie: {cookie}")
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
        answer = await asyncio.wait_for(reader.read(), timeout)
    finally:
        writer.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/") else 0
    return status, body
