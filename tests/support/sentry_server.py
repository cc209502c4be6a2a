"""A Sentry stand-in on loopback: takes the SDK's envelopes and keeps the events and log lines.

The SDK (sentry-sdk 2.x, HttpTransport) POSTs each envelope to `/api/<project>/envelope/` of its
DSN (`http://public@127.0.0.1:PORT/1`), gzip-compressed (brotli when the `brotli` module is
installed, which it is not here; both are decoded). An envelope is a JSON header line followed by
items, each a JSON header line and a payload; the SDK's own `Envelope.deserialize` reads it.
"""

from __future__ import annotations

import gzip
import json
import re
import threading
import time
import zlib
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from typing import Any

from sentry_sdk.envelope import Envelope

from tests.support.loopback import LoopbackServer

ENVELOPE_PATH = re.compile(r"^/api/(\d+)/envelope/?$")


def _decode(body: bytes, encoding: str) -> bytes:
    if encoding == "gzip":
        return gzip.decompress(body)
    if encoding == "deflate":
        return zlib.decompress(body)
    if encoding == "br":
        import brotli  # only when the SDK found it installed

        return brotli.decompress(body)
    return body


class SentryServer(LoopbackServer):
    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.logs: list[dict[str, Any]] = []
        self.raw: list[bytes] = []  # every decoded envelope, as it arrived
        self._changed = threading.Condition()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the http.server API
                if not ENVELOPE_PATH.match(self.path.split("?", 1)[0]):
                    self.send_error(404)
                    return
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                server.take(_decode(body, (self.headers.get("Content-Encoding") or "").strip().lower()))
                answer = b"{}"
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args: Any) -> None:
                pass

        self._listen(Handler)
        self.dsn = f"http://public@127.0.0.1:{self.port}/1"

    def take(self, data: bytes) -> None:
        envelope = Envelope.deserialize(data)
        with self._changed:
            self.raw.append(data)
            for item in envelope.items:
                if item.type == "event":
                    self.events.append(json.loads(item.get_bytes()))
                elif item.type == "log":
                    self.logs.extend(json.loads(item.get_bytes()).get("items", []))
            self._changed.notify_all()

    def clear(self) -> None:
        with self._changed:
            self.events.clear()
            self.logs.clear()
            self.raw.clear()

    def env(self) -> dict[str, str]:
        """The app's settings that send its errors here."""
        return {"SENTRY_DSN": self.dsn, "SENTRY_ENVIRONMENT": "e2e"}

    def wait_for_event(self, matches: Callable[[dict[str, Any]], bool], timeout: float = 30) -> dict[str, Any]:
        return self._wait(lambda: next((e for e in self.events if matches(e)), None), timeout, "event")

    def wait_for_log(self, matches: Callable[[dict[str, Any]], bool], timeout: float = 30) -> dict[str, Any]:
        return self._wait(lambda: next((entry for entry in self.logs if matches(entry)), None), timeout, "log line")

    def _wait(self, find: Callable[[], Any], timeout: float, what: str) -> Any:
        deadline = time.monotonic() + timeout
        with self._changed:
            while (found := find()) is None:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(
                        f"no such {what} reached the Sentry stand-in; it has {len(self.events)} events, "
                        f"{len(self.logs)} log lines: {[exception_types(e) or e.get('message') for e in self.events]}"
                    )
                self._changed.wait(left)
            return found


def exception_types(event: dict[str, Any]) -> list[str]:
    return [value.get("type", "") for value in (event.get("exception") or {}).get("values", [])]


def event_text(event: dict[str, Any]) -> str:
    """Everything an event carries, as one text (to assert what is not in it)."""
    return json.dumps(event, ensure_ascii=False)
