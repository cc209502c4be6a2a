"""Twilio's local stand-in (portal/standins/twilio) served alone on a free loopback port by uvicorn in a daemon
thread, with its store in a file of the test's; the SDK-backed provider pointed at it; and reading what it got
through the official SDK (`client.messages.list`).

    with SmsStandin(tmp_path / "sms.db") as standin:
        provider = standin.provider()
        standin.texts_to("+14155550100")   # newest first, through twilio-python
"""

from __future__ import annotations

import socket
import threading
from pathlib import Path
from typing import Self

import uvicorn

from portal.services.providers.sms import TwilioSms
from portal.standins.twilio import StandinConfig, Store, standalone_app
from tests.support.polling import polled

ACCOUNT_SID = "AC" + "7" * 32
AUTH_TOKEN = "test-sms-auth-token"
SENDER = "+15005550006"


class SmsStandin:
    def __init__(self, db_path: Path, *, webhook_url: str = "http://127.0.0.1:9/webhooks/twilio/sms") -> None:
        self.db_path, self.webhook_url = db_path, webhook_url

    def start(self) -> Self:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        self.store = Store(StandinConfig(self.db_path, ACCOUNT_SID, AUTH_TOKEN, SENDER, self.webhook_url))
        self.server = uvicorn.Server(uvicorn.Config(standalone_app(self.store), log_level="warning", lifespan="off"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]}, daemon=True)
        self.thread.start()
        if not polled(lambda: self.server.started, bool, timeout=10, every=0.01):
            raise RuntimeError("the SMS stand-in did not start")
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def provider(self, *, auth_token: str = AUTH_TOKEN) -> TwilioSms:
        return TwilioSms(
            account_sid=ACCOUNT_SID, auth_token=auth_token, sender=SENDER, api_url=f"{self.url}/local-sms", timeout=5
        )

    def texts_to(self, number: str) -> list[str]:
        """The bodies texted to `number`, newest first, read with twilio-python's messages.list."""
        client = self.provider().client
        return [m.body for m in client.messages.list(to=number, limit=100)]
