"""CORS, security headers and refused request bodies, over plain HTTP against the real app."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import socket
from urllib.parse import urlsplit

import httpx
import pytest

from portal.http.json_body import BAD_CHARACTERS, MAX_BODY_BYTES, TOO_DEEP, TOO_LARGE
from tests.e2e.conftest import AppServer

EVIL = "https://evil.example"

# Every kind of answer: a page, static assets, the API, a 404, the OAuth routes.
ANSWERS = [
    ("GET", "/sign-in/"),
    ("GET", "/sign-in"),  # the redirect to /sign-in/
    ("GET", "/portal.js"),
    ("GET", "/favicon.ico"),
    ("GET", "/api/health"),
    ("GET", "/health"),
    ("GET", "/ready"),
    ("POST", "/api/account/sign-in"),
    ("GET", "/no-such-page"),
    ("GET", "/api/no-such-route"),
    ("GET", "/api/auth/linkedin/start"),
    ("GET", "/api/auth/google/callback?state=forged&code=x"),
    ("GET", "/api/account/verify-email?token=nothing"),
]


def own_origin(app_server: AppServer) -> str:
    return app_server.url  # BASE_URL, http://localhost:{port}


def _send(http: httpx.Client, method: str, path: str, **kwargs) -> httpx.Response:
    if method == "POST":
        kwargs.setdefault("json", {})
    return http.request(method, path, **kwargs)


# --- CORS ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("method", "path"), ANSWERS)
def test_a_foreign_origin_is_not_allowed_to_read_any_answer(http, method, path):
    r = _send(http, method, path, headers={"Origin": EVIL})
    assert "access-control-allow-origin" not in r.headers


@pytest.mark.parametrize("path", ["/api/health", "/sign-in/", "/portal.js"])
def test_the_own_origin_is_allowed(http, app_server, path):
    r = http.get(path, headers={"Origin": own_origin(app_server)})
    assert r.headers.get("access-control-allow-origin") == own_origin(app_server)
    assert r.headers.get("access-control-allow-credentials") == "true"


def test_a_foreign_preflight_is_refused(http, app_server):
    evil = http.options(
        "/api/account/sign-in",
        headers={
            "Origin": EVIL,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type",
        },
    )
    assert evil.status_code == 400
    assert "access-control-allow-origin" not in evil.headers
    own = http.options(
        "/api/account/sign-in",
        headers={
            "Origin": own_origin(app_server),
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type",
        },
    )
    assert own.status_code == 200
    assert own.headers.get("access-control-allow-origin") == own_origin(app_server)


def test_the_socket_io_polling_handshake_refuses_a_foreign_origin(http, app_server):
    evil = http.get("/_event/?EIO=4&transport=polling", headers={"Origin": EVIL})
    assert evil.status_code == 400
    assert "not an accepted origin" in evil.text
    assert "access-control-allow-origin" not in evil.headers
    # The portal's own origin passes the origin check (Reflex then allows the websocket transport only).
    own = http.get("/_event/?EIO=4&transport=polling", headers={"Origin": own_origin(app_server)})
    assert "not an accepted origin" not in own.text


def _websocket_handshake(app_server: AppServer, origin: str | None) -> bytes:
    """A raw websocket upgrade of /_event; returns what the server answers first."""
    url = urlsplit(app_server.url)
    key = base64.b64encode(os.urandom(16)).decode()
    lines = [
        "GET /_event/?EIO=4&transport=websocket HTTP/1.1",
        f"Host: {url.netloc}",
        "Upgrade: websocket",
        "Connection: Upgrade",
        f"Sec-WebSocket-Key: {key}",
        "Sec-WebSocket-Version: 13",
    ]
    if origin:
        lines.append(f"Origin: {origin}")
    with socket.create_connection((url.hostname, url.port), timeout=15) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        answer = b""
        while b"\r\n\r\n" not in answer or (answer.startswith(b"HTTP/1.1 101") and b'"sid"' not in answer):
            chunk = sock.recv(4096)
            if not chunk:
                break
            answer += chunk
        return answer


def test_the_websocket_refuses_a_foreign_origin(app_server):
    answer = _websocket_handshake(app_server, EVIL)
    assert answer.split(b"\r\n", 1)[0] in (b"HTTP/1.1 403 Forbidden", b"HTTP/1.1 400 Bad Request"), answer[:200]


def test_the_websocket_opens_for_the_own_origin(app_server):
    answer = _websocket_handshake(app_server, own_origin(app_server))
    assert answer.startswith(b"HTTP/1.1 101"), answer[:200]
    assert b'"sid"' in answer  # the Engine.IO open packet


# --- security headers ---------------------------------------------------------------------------


def _directives(csp: str) -> dict[str, list[str]]:
    out = {}
    for part in csp.split(";"):
        words = part.split()
        if words:
            out[words[0]] = words[1:]
    return out


@pytest.mark.parametrize(("method", "path"), ANSWERS)
def test_every_answer_carries_the_security_headers(http, app_server, method, path):
    r = _send(http, method, path)
    assert r.headers.get("x-content-type-options") == "nosniff"
    assert r.headers.get("x-frame-options") == "DENY"
    assert r.headers.get("referrer-policy") == "strict-origin-when-cross-origin"
    permissions = r.headers.get("permissions-policy", "")
    for feature in ("camera", "microphone", "geolocation", "payment"):
        assert f"{feature}=()" in permissions
    assert "strict-transport-security" not in r.headers  # BASE_URL is http here
    csp = _directives(r.headers.get("content-security-policy", ""))
    assert csp["frame-ancestors"] == ["'none'"]
    assert csp["object-src"] == ["'none'"]
    assert csp["base-uri"] == ["'self'"]
    assert csp["form-action"] == ["'self'"]
    assert csp["default-src"] == ["'self'"]
    assert "'self'" in csp["script-src"]
    assert "'unsafe-inline'" not in csp["script-src"]
    assert not any(s in ("*", "http:", "https:", "data:") for s in csp["script-src"])
    ws = "ws://" + urlsplit(app_server.url).netloc
    assert ws in csp["connect-src"]


def test_a_built_asset_carries_the_security_headers(http):
    page = http.get("/sign-in/").text
    asset = re.search(r'href="(/assets/[^"]+\.js)"', page).group(1)
    r = http.get(asset)
    assert r.status_code == 200
    assert r.headers.get("x-content-type-options") == "nosniff"
    assert "frame-ancestors 'none'" in r.headers.get("content-security-policy", "")


@pytest.mark.parametrize("encoding", ["identity", "gzip", "gzip, deflate, br, zstd"])
@pytest.mark.parametrize("path", ["/sign-in/", "/sign-up/", "/", "/no-such-page", "/test/1/rate"])
def test_a_page_allows_exactly_its_own_inline_scripts(http, path, encoding):
    r = http.get(path, headers={"Accept-Encoding": encoding})
    assert r.headers.get("content-type", "").startswith("text/html")
    script_src = _directives(r.headers["content-security-policy"])["script-src"]
    inline = [
        m.group(2) for m in re.finditer(r"<script\b([^>]*)>(.*?)</script>", r.text, re.S) if "src=" not in m.group(1)
    ]
    assert inline, "the built pages carry inline scripts"
    for body in inline:
        digest = base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
        assert f"'sha256-{digest}'" in script_src


def test_the_reset_page_keeps_its_no_referrer_policy(http):
    r = http.get("/reset/?token=x")
    assert r.headers.get("referrer-policy") == "no-referrer"


# --- request bodies -----------------------------------------------------------------------------

BODY_ROUTES = [
    ("POST", "/api/account/sign-in"),
    ("POST", "/api/account/forgot-password"),
    ("PUT", "/api/account/reset-password"),
]


def _chunks(data: bytes, size: int = 8192):
    for i in range(0, len(data), size):
        yield data[i : i + size]


REFUSED_BODIES = {
    "3000 nested arrays": (b"[" * 3000, TOO_DEEP),
    "3000 nested arrays, closed": (b"[" * 3000 + b"]" * 3000, TOO_DEEP),
    "40 nested objects": (b'{"a":' * 40 + b"1" + b"}" * 40, TOO_DEEP),
    "nested inside a field": (b'{"email": ' + b"[" * 500 + b"]" * 500 + b', "password": "x"}', TOO_DEEP),
    "over 64 KiB": (
        json.dumps({"email": "a@example.com", "password": "x" * (MAX_BODY_BYTES + 10)}).encode(),
        TOO_LARGE,
    ),
    "lone surrogate": (b'{"email": "a\\ud800@example.com", "password": "Secret-1!"}', BAD_CHARACTERS),
    "lone low surrogate in a key": (b'{"\\udc00": "x", "email": "a@example.com"}', BAD_CHARACTERS),
    "NUL character": (b'{"email": "a@example.com", "password": "Sec\\u0000ret-1!"}', BAD_CHARACTERS),
    "escape character": (b'{"email": "a\\u001b[31m@example.com", "password": "x"}', BAD_CHARACTERS),
}


@pytest.mark.parametrize(("method", "path"), BODY_ROUTES)
@pytest.mark.parametrize("case", list(REFUSED_BODIES))
def test_refused_bodies_get_400_with_a_clear_message(http, app_server, method, path, case):
    body, message = REFUSED_BODIES[case]
    r = http.request(
        method, path, content=body, headers={"Content-Type": "application/json", "X-Forwarded-For": "192.0.2.120"}
    )
    assert r.status_code == 400, r.text
    assert r.json() == {"errors": [{"field": "_global", "message": message}]}
    assert "portal_session" not in r.headers.get("set-cookie", "")


@pytest.mark.parametrize(("method", "path"), BODY_ROUTES)
def test_a_large_chunked_body_is_refused_without_reading_it_all(http, method, path):
    body = b'{"email": "' + b"a" * (4 * MAX_BODY_BYTES) + b'"}'
    r = http.request(
        method,
        path,
        content=_chunks(body),
        headers={"Content-Type": "application/json", "X-Forwarded-For": "192.0.2.121"},
    )
    assert r.status_code == 400
    assert r.json()["errors"] == [{"field": "_global", "message": TOO_LARGE}]


def test_a_valid_pair_and_ordinary_whitespace_are_accepted(http):
    body = '{"email": "", "password": "emoji \\ud83d\\ude00 tab\\t line\\n"}'
    r = http.post(
        "/api/account/sign-in",
        content=body,
        headers={"Content-Type": "application/json", "X-Forwarded-For": "192.0.2.122"},
    )
    assert r.status_code == 400
    assert r.json()["errors"] == [{"field": "email", "message": "Email is required"}]


def test_no_traceback_in_the_server_log(app_server, http):
    """Runs after the cases above (file order): nothing they sent reached an unhandled error."""
    http.post("/api/account/sign-in", content=b"[" * 5000, headers={"Content-Type": "application/json"})
    log = app_server.log_path.read_text(errors="replace")
    assert "Traceback" not in log
    assert "RecursionError" not in log
    assert "unhandled error" not in log


@pytest.mark.parametrize(
    ("method", "path", "origin"),
    [
        ("POST", "/api/account/sign-in", EVIL),  # refused for its origin before the body is read
        ("POST", "/api/auth/linkedin/callback", None),  # a method the route does not take
        ("POST", "/api/account/forgot-password", None),  # over the size limit
    ],
)
def test_an_answer_given_before_the_body_was_read_closes_the_connection(http, app_server, method, path, origin):
    headers = {"content-type": "application/json", **({"origin": origin} if origin else {"origin": app_server.url})}
    answer = http.request(method, path, headers=headers, content=b'{"email": "' + b"x" * 200_000 + b'"}')
    assert answer.status_code < 500
    assert answer.headers.get("connection") == "close"
    # A request without a body keeps its connection.
    assert http.get("/api/health").headers.get("connection") != "close"
