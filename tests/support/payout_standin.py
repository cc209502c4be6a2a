"""Tremendous's local stand-in (portal/standins/tremendous) served alone on a free loopback port, by uvicorn in
a daemon thread, with its store in a file of the test's; and a receiver of its webhooks.

    with PayoutStandin(tmp_path / "payouts.db", webhook_url=receiver.url) as standin:
        provider = standin.provider()       # the SDK-backed TremendousProvider, pointed at it
        standin.store.deliver(reward_id)    # test controls: deliver, pending_webhooks, inbox, orders

Deliveries happen only through `store.deliver()` unless `loop=True` (then the background loop runs, each
reward delivered `delivery_seconds` after its order, as in the portal).
"""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, Self

import uvicorn

from portal.services.providers.payouts import TremendousProvider
from portal.standins.tremendous import StandinConfig, Store, standalone_app
from tests.support.loopback import LoopbackServer
from tests.support.polling import polled

API_KEY = "TEST0API0KEY"
CAMPAIGN_ID = "CAMPAIGN00001"
WEBHOOK_KEY = "test-webhook-private-key"


class PayoutStandin:
    def __init__(
        self,
        db_path: Path,
        *,
        webhook_url: str = "http://127.0.0.1:9/webhooks/tremendous",
        webhook_key: str = WEBHOOK_KEY,
        delivery_seconds: float = 3600.0,
        loop: bool = False,
    ) -> None:
        self.db_path, self.webhook_url, self.webhook_key = db_path, webhook_url, webhook_key
        self.delivery_seconds, self.loop = delivery_seconds, loop
        self.api_url = ""

    def start(self) -> Self:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.api_url = f"{self.url}/local-payouts/api/v2"
        self.store = Store(
            StandinConfig(
                db_path=self.db_path,
                api_key=API_KEY,
                campaign_id=CAMPAIGN_ID,
                webhook_url=self.webhook_url,
                webhook_key=self.webhook_key,
                public_url=self.url,
                delivery_seconds=self.delivery_seconds,
            )
        )
        config = uvicorn.Config(standalone_app(self.store), log_level="warning", lifespan="off")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]}, daemon=True)
        self.thread.start()
        if not polled(lambda: self.server.started, bool, timeout=10, every=0.01):
            raise RuntimeError("the payout stand-in did not start")
        self.stopping = threading.Event()
        if self.loop:  # the background loop, as every worker of the portal runs it (run_forever)
            self.ticker = threading.Thread(target=self._tick, daemon=True)
            self.ticker.start()
        return self

    def _tick(self) -> None:
        while not self.stopping.wait(0.1):
            self.store.tick()

    def stop(self) -> None:
        """Stop serving: the stand-in is down from now on (connections refused)."""
        self.stopping.set()
        if self.loop:
            self.ticker.join(10)
        self.server.should_exit = True
        self.thread.join(10)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def provider(
        self, *, api_key: str = API_KEY, webhook_key: str | None = None, timeout: float = 5.0
    ) -> TremendousProvider:
        return TremendousProvider(
            host=self.api_url,
            api_key=api_key,
            campaign_id=CAMPAIGN_ID,
            webhook_key=self.webhook_key if webhook_key is None else webhook_key,
            timeout_seconds=timeout,
            loopback=True,
        )


class WebhookReceiver(LoopbackServer):
    """Records every POST (its headers and raw body) and answers `status` (set it to make the stand-in retry)."""

    def __init__(self) -> None:
        self.received: list[tuple[dict[str, str], bytes]] = []
        self.status = 200
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with receiver.lock:
                    receiver.received.append((dict(self.headers.items()), body))
                    status = receiver.status
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self._listen(Handler)
        self.url = f"{self.url}/webhooks/tremendous"

    def events(self) -> list[dict[str, Any]]:
        with self.lock:
            return [json.loads(body) for _, body in self.received]
