"""The security headers policy, the JSON-body limits and the API's error answers, in-process."""

from __future__ import annotations

import base64
import gzip
import hashlib
import logging

import pytest
from fastapi import FastAPI, Request
from starlette.responses import HTMLResponse, PlainTextResponse
from starlette.testclient import TestClient

from portal.http import errors
from portal.http.json_body import BAD_CHARACTERS, TOO_DEEP, TOO_LARGE, nesting_depth, read_json_object
from portal.http.security_headers import (
    SecurityHeadersMiddleware,
    SecurityPolicy,
    portal_config_script,
    read_page,
    script_hash,
)
from portal.settings import Settings


def make_settings(monkeypatch, **env: str) -> Settings:
    for name in ("BASE_URL", "CAPTCHA_PROVIDER", "CAPTCHA_SITE_KEY", "CAPTCHA_SCRIPT_URL", "CORS_EXTRA_ORIGINS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SECRET_KEY", "unit")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return Settings()


def directives(csp: str) -> dict[str, list[str]]:
    return {part.split()[0]: part.split()[1:] for part in csp.split(";") if part.strip()}


# --- settings: origins --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("base_url", "origins"),
    [
        ("https://Portal.Example.com:443/", ["https://portal.example.com"]),
        ("https://portal.example.com/some/path", ["https://portal.example.com"]),
        # A local run may be opened as localhost or 127.0.0.1 alike: the loopback spellings, same port.
        ("http://localhost:3000", ["http://localhost:3000", "http://127.0.0.1:3000", "http://[::1]:3000"]),
        ("http://127.0.0.1:80", ["http://127.0.0.1", "http://localhost", "http://[::1]"]),
    ],
)
def test_base_origin(monkeypatch, base_url, origins):
    assert make_settings(monkeypatch, BASE_URL=base_url).cors_allowed_origins == origins


def test_extra_origins_are_added_and_a_wildcard_is_refused(monkeypatch):
    config = make_settings(
        monkeypatch,
        BASE_URL="https://portal.example.com",
        CORS_EXTRA_ORIGINS="https://app.example.com/, https://portal.example.com",
    )
    assert config.cors_allowed_origins == ["https://portal.example.com", "https://app.example.com"]
    for bad in ("*", "https://*.example.com", "app.example.com", "https://app.example.com/path"):
        with pytest.raises(SystemExit):
            make_settings(monkeypatch, CORS_EXTRA_ORIGINS=bad)


# --- the policy ---------------------------------------------------------------------------------


def test_the_policy_over_http(monkeypatch):
    policy = SecurityPolicy.from_settings(make_settings(monkeypatch, BASE_URL="http://localhost:3000"))
    headers = dict(policy.headers())
    csp = directives(headers["Content-Security-Policy"])
    assert csp["script-src"] == [
        "'self'",
        "'unsafe-eval'",
        script_hash(portal_config_script(make_settings(monkeypatch))),
    ]
    assert csp["connect-src"] == ["'self'", "http://localhost:3000", "ws://localhost:3000"]
    assert csp["frame-ancestors"] == ["'none'"] and csp["object-src"] == ["'none'"]
    assert csp["form-action"] == ["'self'"] and csp["base-uri"] == ["'self'"]
    assert "upgrade-insecure-requests" not in csp
    assert "Strict-Transport-Security" not in headers
    assert headers["X-Frame-Options"] == "DENY" and headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "strict-origin-when-cross-origin"


def test_the_policy_over_https_adds_hsts(monkeypatch):
    headers = dict(
        SecurityPolicy.from_settings(make_settings(monkeypatch, BASE_URL="https://portal.example.com")).headers()
    )
    assert headers["Strict-Transport-Security"].startswith("max-age=")
    csp = directives(headers["Content-Security-Policy"])
    assert "wss://portal.example.com" in csp["connect-src"]
    assert "upgrade-insecure-requests" in csp


def test_captcha_sources(monkeypatch):
    config = make_settings(monkeypatch, CAPTCHA_PROVIDER="recaptcha", CAPTCHA_SITE_KEY="k")
    csp = directives(SecurityPolicy.from_settings(config).content_security_policy())
    assert (
        "https://www.google.com/recaptcha/" in csp["script-src"]
        and "https://www.gstatic.com/recaptcha/" in csp["script-src"]
    )
    assert "https://www.google.com/recaptcha/" in csp["frame-src"]
    # The config script names the provider, and its new text has its own hash.
    assert script_hash(portal_config_script(config)) in csp["script-src"]
    assert '"provider": "recaptcha"' in portal_config_script(config)
    override = make_settings(
        monkeypatch,
        CAPTCHA_PROVIDER="recaptcha",
        CAPTCHA_SITE_KEY="k",
        CAPTCHA_SCRIPT_URL="http://127.0.0.1:9999/api.js",
    )
    csp = directives(SecurityPolicy.from_settings(override).content_security_policy())
    for name in ("script-src", "connect-src", "frame-src"):
        assert "http://127.0.0.1:9999" in csp[name]
    off = directives(SecurityPolicy.from_settings(make_settings(monkeypatch)).content_security_policy())
    assert not any("google" in s for s in off["script-src"])


def test_read_page_hashes_inline_scripts_only_and_finds_the_meta_referrer():
    html = (
        b'<html><head><meta content="no-referrer" name="referrer"/><script>a()</script>'
        b'<script src="/x.js"></script><script type="module" async="">import "/y.js";</script></head></html>'
    )
    for body, encoding in ((html, ""), (gzip.compress(html), "gzip")):
        hashes, referrer = read_page(body, encoding)
        assert hashes == (script_hash("a()"), script_hash('import "/y.js";'))
        assert referrer == "no-referrer"
    digest = base64.b64encode(hashlib.sha256(b"a()").digest()).decode()
    assert script_hash("a()") == f"'sha256-{digest}'"


def _app_with_headers(monkeypatch, response):
    async def app(scope, receive, send):
        await response(scope, receive, send)

    return TestClient(SecurityHeadersMiddleware(app, SecurityPolicy.from_settings(make_settings(monkeypatch))))


def test_the_middleware_hashes_an_html_answer_and_marks_others(monkeypatch):
    client = _app_with_headers(monkeypatch, HTMLResponse("<script>go()</script>"))
    assert script_hash("go()") in client.get("/").headers["content-security-policy"]
    client = _app_with_headers(monkeypatch, PlainTextResponse("<script>go()</script>"))
    r = client.get("/")
    assert script_hash("go()") not in r.headers["content-security-policy"]
    assert r.headers["x-frame-options"] == "DENY"


def test_the_middleware_keeps_headers_the_app_set(monkeypatch):
    client = _app_with_headers(monkeypatch, PlainTextResponse("x", headers={"Referrer-Policy": "no-referrer"}))
    assert client.get("/").headers["referrer-policy"] == "no-referrer"


# --- JSON bodies and errors ---------------------------------------------------------------------


def test_nesting_depth_ignores_brackets_inside_strings():
    assert nesting_depth(b'{"a": "[[[[{{{{", "b": [1, [2]]}') == 3
    assert nesting_depth(b'"\\"[[["') == 0
    assert nesting_depth(b"[" * 100) == 100


@pytest.fixture
def api() -> TestClient:
    app = FastAPI()
    errors.install(app)

    @app.post("/echo")
    async def echo(request: Request):
        return await read_json_object(request)

    @app.get("/boom")
    async def boom():
        raise RuntimeError("secret detail\nsecond line")

    return TestClient(app, raise_server_exceptions=False)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"[" * 3000, TOO_DEEP),
        (b'{"a": "' + b"x" * 70000 + b'"}', TOO_LARGE),
        (b'{"a": "\\ud800"}', BAD_CHARACTERS),
        (b'{"a": "\\u0007"}', BAD_CHARACTERS),
    ],
)
def test_refused_bodies(api, body, message):
    r = api.post("/echo", content=body)
    assert r.status_code == 400
    assert r.json() == {"errors": [{"field": "_global", "message": message}]}


@pytest.mark.parametrize("body", [b"", b"not json", b"[1, 2]", b"\xff\xfe{", b"1" * 5000])
def test_other_bodies_read_as_an_empty_object(api, body):
    assert api.post("/echo", content=body).json() == {}


def test_an_unhandled_error_is_a_generic_500_and_one_log_line(api, caplog):
    with caplog.at_level(logging.INFO, logger="portal.http.errors"):
        r = api.get("/boom")
    assert r.status_code == 500
    assert r.json() == {"errors": [{"field": "_global", "message": "Something went wrong, please try again later"}]}
    assert "secret" not in r.text and "Traceback" not in r.text
    records = [rec for rec in caplog.records if rec.levelno >= logging.INFO]
    assert len(records) == 1 and "\n" not in records[0].getMessage()
    assert "RuntimeError" in records[0].getMessage() and "GET /boom" in records[0].getMessage()


def test_a_304_keeps_the_cached_pages_policy(monkeypatch):
    """A 304 updates the stored headers: a generic policy there would drop the page's hashes."""
    r = _app_with_headers(monkeypatch, PlainTextResponse("", status_code=304)).get("/")
    assert "content-security-policy" not in r.headers and "referrer-policy" not in r.headers
    assert r.headers["x-content-type-options"] == "nosniff"
