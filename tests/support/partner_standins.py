"""The partner stand-ins (portal/standins/respondent, portal/standins/panel_exchange) served alone on a free loopback
port by uvicorn in a daemon thread, with their store in a file of the test's, and the portal's settings pointing at
them (`settings()`: pass to `monkeypatch.setattr(module, "settings", ...)` of the provider modules, see `use()`).

    with PartnerStandins(tmp_path / "partners.db") as standins:
        standins.use(monkeypatch)                    # the research service and the panel exchange are these
        standins.invite("p1", "sr-1")                # an invitation of the research service
        standins.completions()                       # what the portal reported (through the stand-in's API)
"""

from __future__ import annotations

import dataclasses
import importlib
import socket
import threading
from pathlib import Path
from typing import Any, Self

import httpx
import pytest
import uvicorn
from fastapi import FastAPI

from portal.settings import Settings, settings
from portal.standins import panel_exchange, respondent
from portal.standins.partner_store import PartnerStore
from tests.support.polling import polled

# The provider modules (the package's names `panel_exchange` and `research_service` are their factories).
panel_module = importlib.import_module("portal.services.providers.partners.panel_exchange")
respondent_module = importlib.import_module("portal.services.providers.partners.respondent")
API_KEY = "test-research-service-key"
PANEL_NAME = "test-panel"
PANEL_SECRET = "test-panel-shared-secret"
PORTAL_URL = "http://localhost:3000"


class PartnerStandins:
    def __init__(self, db_path: Path) -> None:
        self.db_path = db_path

    def start(self) -> Self:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        self.store = PartnerStore(self.db_path)
        respondent.seed(self.store)
        app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
        app.include_router(respondent.build_router(self.store, API_KEY))
        app.include_router(
            panel_exchange.build_router(self.store, base_url=PORTAL_URL, name=PANEL_NAME, secret=PANEL_SECRET)
        )
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]}, daemon=True)
        self.thread.start()
        if not polled(lambda: self.server.started, bool, timeout=10, every=0.01):
            raise RuntimeError("the partner stand-ins did not start")
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def settings(self, **overrides: Any) -> Settings:
        values: dict[str, Any] = {
            "respondent_api_url": f"{self.url}{respondent.PREFIX}/api/v1",
            "respondent_api_key": API_KEY,
            "panel_exchange_name": PANEL_NAME,
            "panel_exchange_secret": PANEL_SECRET,
            "panel_exchange_exit_url": f"{self.url}{panel_exchange.PREFIX}/exit",
            "panel_exchange_callback_url": f"{self.url}{panel_exchange.PREFIX}/api/callbacks",
        }
        return dataclasses.replace(settings, **{**values, **overrides})

    def use(self, monkeypatch: pytest.MonkeyPatch, **overrides: Any) -> Settings:
        """The portal's partner clients talk to these stand-ins (their settings, never their code)."""
        configured = self.settings(**overrides)
        monkeypatch.setattr(respondent_module, "settings", configured)
        monkeypatch.setattr(panel_module, "settings", configured)
        return configured

    def _get(self, path: str, **params: str) -> Any:
        headers = {"Authorization": f"Bearer {API_KEY}"}
        answer = httpx.get(f"{self.url}{path}", params=params, headers=headers, timeout=10)
        answer.raise_for_status()
        return answer.json()

    def invite(self, project: str, response: str, *, invited: bool = True) -> None:
        answer = httpx.post(
            f"{self.url}{respondent.PREFIX}/api/v1/projects/{project}/invitations",
            json={"screenerResponseId": response, "invited": invited, "firstName": "Ada"},
            headers={"Authorization": f"Bearer {API_KEY}"},
            timeout=10,
        )
        answer.raise_for_status()

    def completions(self) -> list[dict[str, Any]]:
        return self._get(f"{respondent.PREFIX}/api/v1/completions")

    def completion_requests(self) -> list[dict[str, Any]]:
        return self.store.all("respondent-completion-request")

    def callbacks(self) -> list[dict[str, Any]]:
        return self._get(f"{panel_exchange.PREFIX}/api/callbacks")

    def callback_requests(self) -> list[dict[str, Any]]:
        return self._get(f"{panel_exchange.PREFIX}/api/callback-requests")
