"""A browser tab without a browser: Reflex's websocket protocol spoken by hand (bench/reflex_client).

Security tests send raw events with it, as an attacker's script would: any handler, any arguments,
any order, on a client token another person used before. Every frame the server sends is kept
(`received`) so a test can search them for values that must not be there.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

from bench.reflex_client import ClientError, ReflexClient

UPDATE_TIMEOUT = 20.0
ROUTER_VAR = "rx_router_url_rx_state_"


def root_name() -> str:
    from reflex.state import State

    return State.get_full_name()


def run(coro: Any) -> Any:
    """Run a client coroutine in its own thread and loop (Playwright's sync API holds this thread's)."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, asyncio.wait_for(coro, 600)).result()


class RawTab:
    def __init__(self, base_url: str, *, cookie: str = "", token: str | None = None, origin: str | None = None) -> None:
        self.client = ReflexClient(base_url, cookie=cookie, token=token)
        if origin is not None:
            self.client.origin = origin
        self.root = root_name()
        self.seq = 0
        self.path = "/"
        self.params: dict[str, str] = {}
        self.received: list[dict[str, Any]] = []  # every update: {"delta": ..., "events": ...}
        self.state: dict[str, dict[str, Any]] = {}  # the deltas merged: state name -> var -> value

    @property
    def token(self) -> str:
        return self.client.token

    def _router(self, path: str | None = None, params: dict[str, str] | None = None) -> tuple[str, dict[str, Any]]:
        if path is not None:
            self.path, self.params = path, dict(params or {})
        self.seq += 1
        marker = f"raw{self.seq}"
        return marker, {
            "pathname": self.path,
            "asPath": f"{self.path}?{urlencode({**self.params, 'raw': marker})}",
            "query": {**self.params, "raw": marker},
        }

    def _keep(self, update: Any) -> None:
        self.received.append({"delta": update.delta, "events": update.events})
        for name, values in update.delta.items():
            self.state.setdefault(name, {}).update(values)

    def var(self, state: str, name: str) -> Any:
        return self.state.get(state, {}).get(f"{name}_rx_state_")

    async def _until(self, marker: str, timeout: float) -> None:
        while True:
            update = await self.client.next_update(timeout)
            self._keep(update)
            url = (update.delta.get(self.root) or {}).get(ROUTER_VAR) or {}
            if (url.get("query_parameters") or {}).get("raw") == marker:
                return

    async def open(self, path: str, params: dict[str, str] | None = None, *, settle: float = 1.5) -> None:
        """Connect as a page load of `path` (hydrate and the page's load events), then collect what the
        load events send for `settle` seconds."""
        marker, router = self._router(path, params)
        await self.client.connect({"name": f"{self.root}.hydrate_and_load", "payload": {}, "router_data": router})
        await self._until(marker, UPDATE_TIMEOUT)
        await self.drain(settle)

    async def until(self, done: Callable[[], bool], timeout: float = UPDATE_TIMEOUT) -> None:
        """Read updates until `done()` holds for what the tab holds (e.g. a handler's var back to its
        resting value: the handler has ended); TimeoutError after `timeout` seconds."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while not done():
            self._keep(await self.client.next_update(max(end - loop.time(), 0.001)))

    async def drain(self, seconds: float) -> None:
        loop = asyncio.get_running_loop()
        end = loop.time() + seconds
        while (left := end - loop.time()) > 0:
            try:
                self._keep(await self.client.next_update(left))
            except TimeoutError:
                return

    def emit(self, name: str, payload: Any = None, *, raw: Any = None) -> str:
        """Send an event (or `raw`, any JSON value, as the frame's event) without waiting."""
        marker, router = self._router()
        self.client.emit(
            raw
            if raw is not None
            else {"name": name, "payload": payload if payload is not None else {}, "router_data": router}
        )
        return marker

    async def send(
        self, name: str, payload: Any = None, *, timeout: float = UPDATE_TIMEOUT, settle: float = 0.3
    ) -> None:
        """Send an event and wait for its answer (the update that carries its router marker)."""
        marker = self.emit(name, payload)
        await self._until(marker, timeout)
        await self.drain(settle)

    async def answer(
        self, name: str, payload: Any = None, *, timeout: float = UPDATE_TIMEOUT, settle: float = 0.2
    ) -> None:
        """Send an event and wait for its first update: its state delta, or only the refusal (a toast
        from the backend exception handler carries no router marker)."""
        self.emit(name, payload)
        self._keep(await self.client.next_update(timeout))
        await self.drain(settle)

    async def alive(self, probe: str, timeout: float = UPDATE_TIMEOUT) -> bool:
        """Whether the server still answers this tab: an event it always takes gets its update."""
        try:
            await self.send(probe, {}, timeout=timeout, settle=0)
            return True
        except (TimeoutError, ClientError):
            return False

    def text(self) -> str:
        return json.dumps(self.received, ensure_ascii=False)

    async def close(self) -> None:
        await self.client.close()


def tracebacks(log: str) -> list[str]:
    """Each traceback in a server log, summed up as its deepest portal frame and its exception line."""
    found: list[str] = []
    for block in log.split("Traceback (most recent call last):")[1:]:
        lines = [line.strip() for line in block.splitlines() if line.strip()]
        frames = [line for line in lines if line.startswith("File ") and "/portal/" in line]
        last = next(
            (
                line
                for line in lines
                if not line.startswith(("File ", "^", "~"))
                and ":" in line
                and line.split(":")[0].replace(".", "").replace("_", "").isalnum()
            ),
            lines[-1] if lines else "",
        )
        found.append(f"{frames[-1] if frames else '(no portal frame)'} -> {last}")
    return sorted(set(found))
