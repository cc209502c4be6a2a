"""Security headers on every HTTP response: one ASGI middleware around the whole app.

The whole policy is built here, from settings: Content-Security-Policy, X-Frame-Options,
X-Content-Type-Options, Referrer-Policy, Permissions-Policy and (for an https BASE_URL)
Strict-Transport-Security. `wrap` is the last of `rx.App(api_transformer=[...])`, so it sees
pages, the static frontend (`--single-port`), the API, the OAuth routes and 404s alike.

Inline scripts: the pages Reflex builds carry a few inline <script> elements (the colour mode,
React Router's context and stream, React's streaming helpers), different on every page. For an
HTML answer the middleware reads the body, hashes each inline script (SHA-256) and allows
exactly those, so no 'unsafe-inline' is needed; the result is cached per body. The one inline
script the portal itself adds (`window.portalConfig`, inserted by react-helmet) is allowed by
its hash too (`portal_config_script`). Reflex runs `rx.call_script` code with `eval`, so
script-src has 'unsafe-eval'; Radix and emotion write inline styles, so style-src has
'unsafe-inline'.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import logging
import re
import zlib
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

import anyio
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from portal.settings import Settings, settings

log = logging.getLogger(__name__)

# Where each captcha provider's browser code loads scripts, frames, styles and requests from
# (their own CSP guidance). The origin of a CAPTCHA_SCRIPT_URL override is added as well.
CAPTCHA_SOURCES: dict[str, dict[str, tuple[str, ...]]] = {
    "recaptcha": {
        "script-src": ("https://www.google.com/recaptcha/", "https://www.gstatic.com/recaptcha/"),
        "frame-src": ("https://www.google.com/recaptcha/", "https://recaptcha.google.com/recaptcha/"),
        "connect-src": ("https://www.google.com/recaptcha/",),
    },
    "hcaptcha": {
        "script-src": ("https://hcaptcha.com", "https://*.hcaptcha.com"),
        "frame-src": ("https://hcaptcha.com", "https://*.hcaptcha.com"),
        "style-src": ("https://hcaptcha.com", "https://*.hcaptcha.com"),
        "connect-src": ("https://hcaptcha.com", "https://*.hcaptcha.com"),
    },
    "turnstile": {
        "script-src": ("https://challenges.cloudflare.com",),
        "frame-src": ("https://challenges.cloudflare.com",),
    },
}

# Browser features no page of the portal uses (the video recorder is an outside site).
PERMISSIONS_POLICY = ", ".join(
    f"{feature}=()"
    for feature in (
        "accelerometer",
        "camera",
        "display-capture",
        "geolocation",
        "gyroscope",
        "magnetometer",
        "microphone",
        "midi",
        "payment",
        "usb",
    )
)
HSTS = "max-age=31536000"
REFERRER_POLICIES = frozenset(
    {
        "no-referrer",
        "no-referrer-when-downgrade",
        "origin",
        "origin-when-cross-origin",
        "same-origin",
        "strict-origin",
        "strict-origin-when-cross-origin",
        "unsafe-url",
    }
)
# HTML bodies larger than this are passed on unread (and get no inline-script hashes).
MAX_HTML_BYTES = 4 * 1024 * 1024
# Encodings the middleware can read back to hash a page; others are not offered to the app.
READABLE_ENCODINGS = ("gzip", "deflate", "identity")

_INLINE_SCRIPT = re.compile(rb"<script\b([^>]*)>(.*?)</script\s*>", re.S | re.I)
_META = re.compile(rb"<meta\b[^>]*>", re.I)
_ATTR = re.compile(rb"""([\w:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""")


def portal_config_script(config: Settings = settings) -> str:
    """The inline head script with the public browser config (captcha provider and site key)."""
    data = {
        "captcha": {
            "provider": config.captcha_provider if config.captcha_enabled else "none",
            "siteKey": config.captcha_site_key,
        }
    }
    return f"window.portalConfig = {json.dumps(data)};"


def script_hash(text: str | bytes) -> str:
    """A CSP hash source for an inline script's exact text."""
    raw = text.encode() if isinstance(text, str) else text
    return "'sha256-" + base64.b64encode(hashlib.sha256(raw).digest()).decode() + "'"


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""


@dataclass(frozen=True)
class SecurityPolicy:
    """Every security header, computed once from settings; `headers()` adds a page's script hashes."""

    directives: tuple[tuple[str, tuple[str, ...]], ...]
    fixed_headers: tuple[tuple[str, str], ...]
    referrer_policy: str = "strict-origin-when-cross-origin"

    @classmethod
    def from_settings(cls, config: Settings = settings) -> SecurityPolicy:
        own = config.base_origin
        websocket = ("wss://" if own.startswith("https://") else "ws://") + own.split("://", 1)[1]
        extra: dict[str, list[str]] = {}
        if config.captcha_enabled:
            for directive, origins in CAPTCHA_SOURCES.get(config.captcha_provider, {}).items():
                extra.setdefault(directive, []).extend(origins)
            # A CAPTCHA_SCRIPT_URL of its own (a self-hosted copy, the tests' stand-in) adds its origin.
            script_origin = _origin(config.captcha_script_url)
            if script_origin:
                for directive in ("script-src", "frame-src", "connect-src"):
                    extra.setdefault(directive, []).append(script_origin)

        def sources(directive: str, *base: str) -> tuple[str, ...]:
            return tuple(dict.fromkeys([*base, *extra.get(directive, [])]))

        directives = [
            ("default-src", ("'self'",)),
            ("script-src", sources("script-src", "'self'", "'unsafe-eval'", script_hash(portal_config_script(config)))),
            ("style-src", sources("style-src", "'self'", "'unsafe-inline'")),
            # Survey questions may show images from any https address.
            ("img-src", ("'self'", "data:", "blob:", "https:")),
            ("font-src", ("'self'", "data:")),
            # The websocket (/_event) and API calls go to BASE_URL, named also when the page was
            # reached under another host name.
            ("connect-src", sources("connect-src", "'self'", own, websocket)),
            # Survey questions may embed a video (https only); the captcha provider's frames; the local run's
            # stand-in of the referral widget ('self').
            ("frame-src", sources("frame-src", "'self'", "https:")),
            ("object-src", ("'none'",)),
            ("base-uri", ("'self'",)),
            ("form-action", ("'self'",)),
            ("frame-ancestors", ("'none'",)),
        ]
        fixed = [
            ("X-Content-Type-Options", "nosniff"),
            ("X-Frame-Options", "DENY"),
            ("Permissions-Policy", PERMISSIONS_POLICY),
        ]
        if own.startswith("https://"):
            directives.append(("upgrade-insecure-requests", ()))
            fixed.append(("Strict-Transport-Security", HSTS))
        return cls(directives=tuple(directives), fixed_headers=tuple(fixed))

    def content_security_policy(self, script_hashes: Iterable[str] = ()) -> str:
        parts = []
        for name, values in self.directives:
            if name == "script-src":
                values = tuple(dict.fromkeys([*values, *script_hashes]))
            parts.append(" ".join((name, *values)))
        return "; ".join(parts)

    def headers(self, script_hashes: Iterable[str] = (), referrer_policy: str | None = None) -> list[tuple[str, str]]:
        return [
            ("Content-Security-Policy", self.content_security_policy(script_hashes)),
            ("Referrer-Policy", referrer_policy or self.referrer_policy),
            *self.fixed_headers,
        ]


def _decoded(body: bytes, encoding: str) -> bytes | None:
    try:
        if encoding in ("", "identity"):
            return body
        if encoding == "gzip":
            return gzip.decompress(body)
        if encoding == "deflate":
            try:
                return zlib.decompress(body)
            except zlib.error:
                return zlib.decompress(body, -zlib.MAX_WBITS)
    except (OSError, EOFError, zlib.error):
        pass
    return None


_PAGE_CACHE: OrderedDict[tuple[bytes, str], tuple[tuple[str, ...], str | None]] = OrderedDict()
PAGE_CACHE_SIZE = 256


def read_page(body: bytes, encoding: str) -> tuple[tuple[str, ...], str | None]:
    """(hashes of the page's inline scripts, its <meta name=referrer> policy) for an HTML body,
    cached by the body's digest (the pages are static files)."""
    key = (hashlib.sha256(body).digest(), encoding)
    if key in _PAGE_CACHE:
        _PAGE_CACHE.move_to_end(key)
        return _PAGE_CACHE[key]
    result = _read_page(body, encoding)
    _PAGE_CACHE[key] = result
    while len(_PAGE_CACHE) > PAGE_CACHE_SIZE:
        _PAGE_CACHE.popitem(last=False)
    return result


def _read_page(body: bytes, encoding: str) -> tuple[tuple[str, ...], str | None]:
    html = _decoded(body, encoding)
    if html is None:
        log.warning("could not read an HTML answer encoded %r: no inline-script hashes", encoding)
        return (), None
    hashes = []
    for match in _INLINE_SCRIPT.finditer(html):
        attrs = {m.group(1).lower(): True for m in _ATTR.finditer(match.group(1))}
        if b"src" not in attrs:
            hashes.append(script_hash(match.group(2)))
    referrer = None
    for tag in _META.findall(html):
        meta = {m.group(1).lower(): (m.group(2) or m.group(3) or m.group(4) or b"") for m in _ATTR.finditer(tag)}
        if meta.get(b"name", b"").lower() == b"referrer":
            value = meta.get(b"content", b"").decode("ascii", "replace").strip().lower()
            referrer = value if value in REFERRER_POLICIES else referrer
    return tuple(dict.fromkeys(hashes)), referrer


def _readable_accept_encoding(scope: Scope) -> Scope:
    """The request with Accept-Encoding narrowed to what `read_page` can decode."""
    headers = scope.get("headers") or []
    if not any(k == b"accept-encoding" for k, _ in headers):
        return scope
    kept = []
    for key, value in headers:
        if key == b"accept-encoding":
            offers = [o.strip() for o in value.decode("latin-1").split(",")]
            value = ", ".join(o for o in offers if o.split(";")[0].strip().lower() in READABLE_ENCODINGS).encode(
                "latin-1"
            )
            if not value:
                continue
        kept.append((key, value))
    return {**scope, "headers": kept}


class SecurityHeadersMiddleware:
    """Adds the policy's headers to every HTTP answer (headers the app set itself are kept)."""

    def __init__(self, app: ASGIApp, policy: SecurityPolicy | None = None) -> None:
        self.app = app
        self.policy = policy or SecurityPolicy.from_settings()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        held: Message | None = None  # the start of an HTML answer, sent once its body is read
        chunks: list[bytes] = []
        size = 0

        def finish_start(message: Message, hashes: Iterable[str] = (), referrer: str | None = None) -> Message:
            headers = MutableHeaders(scope=message)
            for name, value in self.policy.headers(hashes, referrer):
                if name not in headers:
                    headers[name] = value
            return message

        async def send_with_headers(message: Message) -> None:
            nonlocal held, size
            if message["type"] == "http.response.start" and message.get("status") == 304:
                # A 304's headers replace the stored ones: it must not replace the cached page's
                # policy (with that page's script hashes) or its referrer policy by generic ones.
                headers = MutableHeaders(scope=message)
                for name, value in self.policy.fixed_headers:
                    if name not in headers:
                        headers[name] = value
                await send(message)
                return
            if message["type"] == "http.response.start":
                content_type = MutableHeaders(scope=message).get("content-type", "")
                if content_type.lower().startswith("text/html"):
                    held = message
                    return
                await send(finish_start(message))
                return
            if held is None:
                await send(message)
                return
            start = held
            encoding = MutableHeaders(scope=start).get("content-encoding", "").strip().lower()
            if message["type"] == "http.response.pathsend":  # a static page sent from its file (granian)
                held = None
                path = anyio.Path(message["path"])
                if (await path.stat()).st_size <= MAX_HTML_BYTES:
                    start = finish_start(start, *read_page(await path.read_bytes(), encoding))
                await send(finish_start(start))
                await send(message)
                return
            if message["type"] != "http.response.body":
                held = None
                await send(finish_start(start))
                await send(message)
                return
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            more = message.get("more_body", False)
            if more and size <= MAX_HTML_BYTES:
                return
            held = None
            if more:  # too big to read: pass it on as it comes
                await send(finish_start(start))
            else:
                await send(finish_start(start, *read_page(b"".join(chunks), encoding)))
            await send({"type": "http.response.body", "body": b"".join(chunks), "more_body": more})
            chunks.clear()

        await self.app(_readable_accept_encoding(scope), receive, send_with_headers)


def wrap(app: ASGIApp) -> ASGIApp:
    """The api_transformer step: the whole ASGI app inside the security headers."""
    return SecurityHeadersMiddleware(app)
