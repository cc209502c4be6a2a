"""The rating page's first screen in its HTML: a test's welcome drawn on the server.

/test/{id}/rate is one page of the compiled frontend for every test (`__spa-fallback.html`): until its
JavaScript has loaded, connected and run the page's load event, a browser shows nothing of the test
(the test's title came 500 ms after the navigation, 3x a blank Reflex page's heading). For a signed-in
participant who may take the test now and has not started it, this middleware answers the page with
that same HTML and, before `</body>`, the welcome they will see (services.rating_page.first_view: the
page's own access decision, made from the session cookie): the title, the description and the start
button, drawn with the page's own header and footer (taken from the compiled home page, as React
rendered them) and the same Radix classes, as a layer over the page. The layer is hidden by CSS
(portal.css, `body:has(#portal-ready)`) as soon as the page has loaded its state (`#portal-ready` comes
with the page's load), whatever the page then shows; its button is disabled (the page's own button takes
the click). Anyone else, a step in the path, a query (a restart, a respondent id), or any failure gets
the frontend's page alone, also from memory (the static files' path through the API's routing, CORS
and a thread for the file cost three times as much). The answer is personal: `Cache-Control: no-store`.

A kind of test shows a first view when it has a renderer in `RENDERERS` (a survey's welcome).
"""

from __future__ import annotations

import datetime
import functools
import gzip
import html
import logging
import re
from collections.abc import Callable
from pathlib import Path

from starlette.datastructures import Headers
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Receive, Scope, Send

from portal import db
from portal.domain.taking import access as test_access
from portal.domain.taking import survey_view
from portal.http.client import SESSION_COOKIE
from portal.http.static_paths import static_dir
from portal.services.taking.definitions import TestDefinition
from portal.services.taking.rating_page import FirstView, first_view

log = logging.getLogger(__name__)

RATING_PAGE = re.compile(r"^/test/(\d{1,9})/rate(/[^.]*)?$")
FALLBACK_PAGE = "__spa-fallback.html"  # what the compiled frontend serves for a dynamic route
LAYOUT_PAGE = "index.html"  # a compiled page of the main layout: its header and footer, as React rendered them
NO_STORE = "no-store"


def _survey_welcome(definition: TestDefinition) -> str:
    """components/survey.welcome(), in HTML: the same Radix classes (portal.css: .first-view-*)."""
    title, description, start = survey_view.welcome_texts(definition.welcome, definition.name)
    text = '<p class="rt-Text rt-r-size-3{extra}">{body}</p>'
    parts = [f'<h1 class="rt-Heading rt-r-size-7">{html.escape(title)}</h1>']
    if description:
        parts.append(text.format(extra=" first-view-muted", body=html.escape(description)))
    parts.append(text.format(extra=" rt-r-weight-medium", body=html.escape(survey_view.AGREEMENTS_INTRO)))
    items = "".join(f"<li>{text.format(extra='', body=html.escape(item))}</li>" for item in survey_view.AGREEMENTS)
    parts.append(f'<ul class="first-view-list">{items}</ul>')
    parts.append(
        '<button class="rt-reset rt-BaseButton rt-r-size-3 rt-variant-solid rt-Button" disabled '
        f'aria-disabled="true">{html.escape(start)}</button>'
    )
    return (
        '<div class="rt-reset rt-BaseCard rt-Card rt-r-size-4 rt-variant-surface first-view-card">'
        f'<div class="rt-Flex rt-r-fd-column rt-r-ai-start rt-r-gap-4 rx-Stack">{"".join(parts)}</div></div>'
    )


# The kinds whose welcome is drawn on the server: the test's view -> its welcome in HTML.
RENDERERS: dict[str, Callable[[TestDefinition], str]] = {test_access.SURVEY_VIEW: _survey_welcome}


class Shell:
    """The compiled files the first view is put into, read once per build (their modification time)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._key: tuple[float, float] | None = None
        self._parts: tuple[bytes, str, str, str] | None = None

    def parts(self) -> tuple[bytes, str, str, str] | None:
        """(the fallback page, the theme's attributes, the layout's header, its footer); None when the
        compiled files are missing or not what this module expects."""
        fallback, layout = self.directory / FALLBACK_PAGE, self.directory / LAYOUT_PAGE
        try:
            key = (fallback.stat().st_mtime, layout.stat().st_mtime)
            if key != self._key:
                self._key, self._parts = key, _shell_parts(fallback.read_bytes(), layout.read_text())
        except OSError:
            return None
        return self._parts


def _between(text: str, start: str, end: str) -> str | None:
    begin = text.find(start)
    stop = text.find(end, begin)
    return text[begin : stop + len(end)] if begin >= 0 and stop >= 0 else None


def _shell_parts(fallback: bytes, layout: str) -> tuple[bytes, str, str, str] | None:
    theme = re.search(r'<div (data-is-root-theme="true"[^>]*?) class="radix-themes', layout)
    header = _between(layout, '<header class="portal-header">', "</header>")
    footer = _between(layout, '<footer class="portal-footer">', "</footer>")
    if theme is None or header is None or footer is None or b"</body>" not in fallback:
        log.warning("first view: the compiled pages are not as expected; the rating page is served without it")
        return None
    attributes = theme.group(1).replace('data-is-root-theme="true"', 'data-is-root-theme="false"')
    # The copies carry no ids (the page's own header and footer keep theirs); the logo links home, as it
    # does for a signed-in participant; the year is this year's.
    header = re.sub(r' href="[^"]*"', ' href="/"', _NO_ID.sub("", header), count=1)
    footer = re.sub(r"© \d{4} ", f"© {datetime.date.today().year} ", _NO_ID.sub("", footer))
    return fallback, attributes, header, footer


_NO_ID = re.compile(r' id="[^"]*"')


def page_with(view: FirstView, shell: tuple[bytes, str, str, str]) -> bytes | None:
    """The fallback page with `view`'s welcome drawn in it (None: no renderer for this kind)."""
    render = RENDERERS.get(view.view)
    if render is None:
        return None
    fallback, attributes, header, footer = shell
    layer = (
        f'<div id="first-view" class="first-view radix-themes" {attributes}><div class="rt-Box portal-page">'
        f'{header}<main class="first-view-main"><div class="rt-Box portal-main"><div class="first-view-banners"></div>'
        f"{render(view.definition)}</div></main>{footer}</div></div>"
    )
    return fallback.replace(b"</body>", layer.encode() + b"</body>", 1)


class FirstViewPages:
    def __init__(self, app: ASGIApp, directory: Path | None = None) -> None:
        self.app = app
        self.directory = directory

    @functools.cached_property
    def shell(self) -> Shell:
        return Shell(self.directory or static_dir())

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        found = (
            RATING_PAGE.match(scope.get("path", ""))
            if scope["type"] == "http" and scope.get("method") == "GET"
            else None
        )
        shell = self.shell.parts() if found is not None else None
        if found is None or shell is None:
            await self.app(scope, receive, send)
            return
        body = None
        if not found.group(2) or found.group(2) == "/":
            if not scope.get("query_string"):  # a restart or a respondent id: the page decides
                body = await self._page(scope, int(found.group(1)), shell)
        # Without a first view, the frontend's own page for the route, from memory: the static files'
        # path through the API's routing, CORS and a thread for the file cost three times as much.
        await _answer(scope, send, body if body is not None else shell[0])

    async def _page(self, scope: Scope, test_id: int, shell: tuple[bytes, str, str, str]) -> bytes | None:
        conn = HTTPConnection(scope)
        token = conn.cookies.get(SESSION_COOKIE)
        if not token:
            return None
        completed = test_id in test_access.completed_tests(conn.cookies.get(test_access.COMPLETED_COOKIE))
        try:
            view = await db.run(
                first_view, token=token, test_id=test_id, completed=completed, views=frozenset(RENDERERS)
            )
        except Exception:  # noqa: BLE001 - the page works without its first view
            log.exception("first view of test %s failed; the page is served without it", test_id)
            return None
        return page_with(view, shell) if view is not None else None


async def _answer(scope: Scope, send: Send, body: bytes) -> None:
    headers = [
        (b"content-type", b"text/html; charset=utf-8"),
        (b"cache-control", NO_STORE.encode()),
        (b"vary", b"Cookie, Accept-Encoding"),
    ]
    if b"gzip" in Headers(scope=scope).get("accept-encoding", "").encode():
        body = gzip.compress(body, compresslevel=5, mtime=0)
        headers.append((b"content-encoding", b"gzip"))
    headers.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def wrap(app: ASGIApp) -> ASGIApp:
    """The api_transformer step: the rating page answered with its first view when there is one."""
    return FirstViewPages(app)
