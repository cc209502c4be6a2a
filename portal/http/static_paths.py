"""The compiled frontend as a browser should get it: no redirect for a page link, hashed files cached.

- A page's links say `/sign-in`, but the static frontend (`reflex run --single-port`) keeps that page
  as `sign-in/index.html` and answered `/sign-in` with a 307 to `/sign-in/` (about 170 ms on every
  link). A GET or HEAD for a path without a trailing slash whose `index.html` exists is now served
  that page directly; the address stays what the link said.
- Files under `/assets/` carry a content hash in their name (Vite): they never change under that
  name, so they are cached for a year as immutable. Everything else keeps its ETag and is revalidated.

One ASGI middleware around the whole app (`rx.App(api_transformer=[...])`); the API, websocket and
upload paths pass untouched.
"""

from __future__ import annotations

import functools
from pathlib import Path

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

IMMUTABLE = "public, max-age=31536000, immutable"
HASHED_PREFIX = "/assets/"
# Paths that are never pages of the static frontend (the API, Reflex's own endpoints, media).
NOT_PAGES = ("/api/", "/_event", "/_upload", "/_health", "/ping", "/media/", "/local-oidc/", "/health", "/ready")


@functools.cache
def static_dir() -> Path:
    """Where `reflex export`/`run --env prod` put the compiled frontend."""
    from reflex import constants
    from reflex.config import get_config
    from reflex.utils import prerequisites

    return (prerequisites.get_web_dir() / constants.Dirs.STATIC / get_config().frontend_path.strip("/")).resolve()


@functools.lru_cache(maxsize=4096)
def _has_index(directory: Path, path: str) -> bool:
    """Whether `path` (no trailing slash) is a folder of the compiled frontend with an index.html."""
    relative = path.lstrip("/")
    if not relative or ".." in relative.split("/"):
        return False
    candidate = (directory / relative / "index.html")
    try:
        return candidate.resolve().is_relative_to(directory) and candidate.is_file()
    except (OSError, ValueError):
        return False


def page_path(path: str, directory: Path) -> str | None:
    """The path to serve instead of `path` ('/sign-in' -> '/sign-in/'), or None to leave it."""
    if path.endswith("/") or path.startswith(NOT_PAGES) or "." in path.rsplit("/", 1)[-1]:
        return None
    return f"{path}/" if _has_index(directory, path) else None


class StaticPaths:
    def __init__(self, app: ASGIApp, directory: Path | None = None) -> None:
        self.app = app
        self.directory = directory

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") not in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        served = page_path(path, self.directory or static_dir())
        if served is not None:
            raw = scope.get("raw_path")
            scope = {**scope, "path": served, "raw_path": raw + b"/" if raw and not raw.endswith(b"/") else raw}
        if not path.startswith(HASHED_PREFIX):
            await self.app(scope, receive, send)
            return

        async def cached_send(message: Message) -> None:
            if message["type"] == "http.response.start" and message.get("status") == 200:
                MutableHeaders(scope=message)["cache-control"] = IMMUTABLE
            await send(message)

        await self.app(scope, receive, cached_send)


def wrap(app: ASGIApp) -> ASGIApp:
    """The api_transformer step: the compiled frontend's paths served without redirects, hashed files cached."""
    return StaticPaths(app)
