"""A bounded, seeded fuzz of every HTTP route of the portal's API (and a few pages): random methods,
bodies (hostile JSON, broken JSON, huge and deep values, lone surrogates), query strings, origins and
cookies. No answer is a server error, none takes long enough to look hung, and the log has no
traceback."""

from __future__ import annotations

import json
import random

import httpx

from tests.support.raw_tab import tracebacks

SEED = 20261124
FUZZ_REQUESTS = 3000
ROUTES = [
    ("POST", "/api/account/sign-in"),
    ("POST", "/api/account/logout"),
    ("GET", "/api/health"),
    ("POST", "/api/account/forgot-password"),
    ("GET", "/api/account/reset-password/check-token"),
    ("POST", "/api/account/reset-password"),
    ("GET", "/api/account/verify-email"),
    ("GET", "/api/auth/linkedin/start"),
    ("GET", "/api/auth/google/start"),
    ("GET", "/api/auth/linkedin/callback"),
    ("GET", "/api/auth/google/callback"),
    ("GET", "/api/auth/nope/start"),
    ("GET", "/sign-in/"),
    ("GET", "/not-a-page"),
    ("GET", "/_event/"),
    ("GET", "/health"),
    ("GET", "/ready"),
]


def body(rng: random.Random) -> bytes | None:
    roll = rng.random()
    if roll < 0.1:
        return None
    if roll < 0.2:
        return rng.choice([b"{", b"[" * 3000, b"\xff\xfe\x00", b"null", b'"text"', b"{" * 50 + b"}" * 50])
    if roll < 0.3:
        return json.dumps({"email": "a@b.c", "password": "x" * rng.choice((10, 100_000))}).encode()
    values = [
        "",
        "\ud800",
        "a\x00b",
        "fuzz-nobody@example.com",
        "Not-A-Password-2026!",
        None,
        5,
        [],
        {},
        "x" * 3000,
        [[[[["deep"]]]]],
        {"$ne": None},
    ]
    doc = {
        k: rng.choice(values)
        for k in rng.sample(
            ["email", "password", "token", "newPassword", "captchaToken", "site", "remember", "to"], rng.randint(0, 5)
        )
    }
    return json.dumps(doc, ensure_ascii=rng.random() < 0.5).encode("utf-8", "surrogatepass")


def test_fuzzing_every_api_route_gives_no_server_error_no_traceback_no_hang(app_server):
    rng = random.Random(SEED)
    log_start = app_server.log_path.stat().st_size
    statuses: dict[int, int] = {}
    slowest = 0.0
    recent: list = []
    with httpx.Client(base_url=app_server.url, timeout=20, follow_redirects=False) as client:
        for _ in range(FUZZ_REQUESTS):
            method, path = rng.choice(ROUTES)
            method = method if rng.random() < 0.8 else rng.choice(["GET", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"])
            # Its own client address (loopback is a trusted proxy in the test app): sign-in throttling
            # of the fuzz never reaches the other tests' address.
            headers = {
                "x-forwarded-for": f"203.0.113.{rng.randint(1, 254)}",
                "content-type": rng.choice(["application/json", "text/plain", "application/x-www-form-urlencoded"]),
            }
            if rng.random() < 0.7:
                headers["origin"] = rng.choice([app_server.url, "https://evil.example", "null"])
            if rng.random() < 0.3:
                headers["cookie"] = rng.choice(
                    ["portal_session=" + "A" * 43, "portal_session=\x7f", "a=b; c", "portal_session="]
                )
            params = (
                {rng.choice(["token", "state", "code", "to", "error"]): rng.choice(["", "x" * 2000, "%00", "é", "1"])}
                if rng.random() < 0.5
                else None
            )
            content = body(rng) if method in ("POST", "PUT", "PATCH", "DELETE") else None
            try:
                response = client.request(method, path, headers=headers, params=params, content=content)
            except httpx.TransportError as error:  # the server closed the connection without answering
                raise AssertionError(
                    f"no answer to {method} {path} {headers} {params} {content!r:.300}: {error!r}; before it: {recent}"
                ) from None
            recent = (recent + [(method, path, response.status_code, (content or b"")[:80])])[-3:]
            statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
            slowest = max(slowest, response.elapsed.total_seconds())
            assert response.status_code < 500, (method, path, response.status_code, response.text[:300])
    log = app_server.log_path.read_bytes()[log_start:].decode(errors="replace")
    assert tracebacks(log) == []
    print(f"http fuzz: {FUZZ_REQUESTS} requests, statuses {dict(sorted(statuses.items()))}, slowest {slowest:.2f} s")
