"""A real Standard Webhooks receiver on loopback, for the portal's webhooks (issue 39, item 4).

It verifies every request with `standardwebhooks.Webhook(secret).verify(body, headers)` (the official package, as
a customer's receiver would), records each verified delivery by its webhook-id, and deduplicates by it as the
specification tells receivers to: `events` holds each event once, `posts` counts every POST that arrived. It can
be switched down: `down()` answers 503 to everything, `stop()` closes the socket (connections refused) and
`start()` on a new receiver at the same port serves again.

    with WebhookReceiver() as receiver:          # receiver.url: where to subscribe
        receiver.secret = created["secret"]      # the subscription's secret, shown once by the API
        ...
        assert receiver.ids() == {...}
"""

from __future__ import annotations

import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

from standardwebhooks import Webhook
from standardwebhooks.webhooks import WebhookVerificationError

from tests.support.loopback import LoopbackServer


class WebhookReceiver(LoopbackServer):
    def __init__(self, port: int = 0, path: str = "/hooks/portal") -> None:
        self.secrets: list[str] = []  # a request is verified if any of these secrets signed it
        self.lock = threading.Lock()
        self.events: dict[str, dict[str, Any]] = {}  # webhook-id -> the verified event (first arrival)
        self.arrivals: Counter[str] = Counter()  # webhook-id -> verified POSTs of it (retries and replays)
        self.posts = 0  # every POST, verified or not
        self.refused: list[str] = []  # why requests failed verification
        self.status = 204  # the answer to a verified request when up
        self.is_down = False
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                status = receiver.receive(self.path, dict(self.headers.items()), body)
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.path = path
        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}{path}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def secret(self) -> str:
        return self.secrets[-1]

    @secret.setter
    def secret(self, value: str) -> None:
        with self.lock:
            self.secrets.append(value)

    def receive(self, path: str, headers: dict[str, str], body: bytes) -> int:
        with self.lock:
            self.posts += 1
            if self.is_down:
                return 503
            if path != self.path:
                return 404
            for secret in self.secrets:
                try:
                    event = Webhook(secret).verify(body, headers)
                except WebhookVerificationError as err:
                    problem = str(err)
                    continue
                break
            else:
                self.refused.append(problem if self.secrets else "no secret")
                return 401
            event_id = {k.lower(): v for k, v in headers.items()}["webhook-id"]
            self.arrivals[event_id] += 1
            self.events.setdefault(event_id, event)  # a repeat of an id is acknowledged and not handled again
            return self.status

    def down(self) -> None:
        with self.lock:
            self.is_down = True

    def up(self) -> None:
        with self.lock:
            self.is_down = False

    def ids(self) -> set[str]:
        with self.lock:
            return set(self.events)

    def of_type(self, event_type: str) -> list[dict[str, Any]]:
        with self.lock:
            return [e for e in self.events.values() if e.get("type") == event_type]

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
