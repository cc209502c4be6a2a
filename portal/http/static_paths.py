"""The compiled frontend as a browser should get it: no redirect for a page link, hashed files cached.

- A page's links say `/sign-in`, but the static frontend (`reflex run --single-port`) keeps that page
  as `sign-in/index.html` and answered `/sign-in` with a 307 to `/sign-in/` (about 170 ms on every
  link). A GET or HEAD for a path without a trailing slash whose `index.html` exists is now served
  that page directly; the address stays what the link said.
- Files under `/assets/` carry a content hash in their name (Vite): they never change under that
  name, so they are cached for a year as immutable (answers 200 and 304 only: a missing asset's 404
  is not). Every other file of the frontend (the pages' HTML, `/portal.js`, the favicons, the sign-in
  buttons' logos) keeps its name across builds: it says `Cache-Control: no-cache` and keeps its
  ETag, so a browser revalidates it on use (a 304 when unchanged) and never runs an old page against
  a new build. Without a Cache-Control a browser guesses a lifetime from Last-Modified, and
  Lighthouse's cache audit flags the file; a lifetime of a day would be flagged too.

One ASGI middleware around the whole app (`rx.App(api_transformer=[...])`); the API, websocket and
upload paths pass untouched.
"""

from __future__ import annotations

import functools
from pathlib import Path

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
HASHED_PREFIX = "/assets/"
# Paths that are never pages of the static frontend (the API, Reflex's own endpoints, media).
NOT_PAGES = (
    "/api/",
    "/_event",
    "/_upload",
    "/_health",
    "/ping",
    "/media/",
    "/local-oidc/",
    "/local-payouts/",
    "/local-sms",
    "/health",
    "/ready",
)


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
    candidate = directory / relative / "index.html"
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
        if path.startswith(NOT_PAGES):
            await self.app(scope, receive, send)
            return
        hashed = path.startswith(HASHED_PREFIX)

        async def cached_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                policy = cache_policy(hashed, message.get("status", 200))
                if policy and "cache-control" not in headers:
                    headers["cache-control"] = policy
            await send(message)

        await self.app(scope, receive, cached_send)


def cache_policy(hashed: bool, status: int) -> str | None:
    """The Cache-Control of a frontend file's answer: immutable for a hashed file that exists,
    revalidated for the rest (pages, the not-found page, unhashed files); None for a redirect or error."""
    if hashed:
        return IMMUTABLE if status in (200, 304) else REVALIDATE
    return REVALIDATE if status in (200, 304, 404) else None


def wrap(app: ASGIApp) -> ASGIApp:
    """The api_transformer step: the compiled frontend's paths served without redirects, hashed files cached."""
    return StaticPaths(app)
