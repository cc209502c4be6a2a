"""A captcha provider stand-in on loopback, speaking reCAPTCHA v3's protocol.

It serves the browser script (`/api.js`, defining `grecaptcha.ready/execute`),
issues tokens, and answers `/siteverify` like the real service: a token is good
once, for the secret it was issued under.
"""

from __future__ import annotations

import json
import secrets
import threading
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlsplit

from tests.support.loopback import LoopbackServer

SECRET = "test-captcha-secret"
SITE_KEY = "test-captcha-site-key"

_SCRIPT = """
window.grecaptcha = {
  ready: function (cb) { cb(); },
  execute: function (siteKey, opts) {
    var url = "%(origin)s/issue?sitekey=" + encodeURIComponent(siteKey) +
      "&action=" + encodeURIComponent((opts || {}).action || "");
    return fetch(url).then(function (r) { return r.text(); });
  }
};
"""


class CaptchaProvider(LoopbackServer):
    def __init__(self) -> None:
        self.issued: dict[str, str] = {}  # token -> action
        self.verify_calls = 0
        self.lock = threading.Lock()
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output quiet
                pass

            def _send(self, status: int, body: str, ctype: str) -> None:
                data = body.encode()
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.send_header("Access-Control-Allow-Origin", "*")
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):  # noqa: N802
                url = urlsplit(self.path)
                if url.path == "/api.js":
                    self._send(200, _SCRIPT % {"origin": provider.url}, "application/javascript")
                elif url.path == "/issue":
                    query = parse_qs(url.query)
                    if query.get("sitekey") != [SITE_KEY]:
                        self._send(400, "", "text/plain")
                        return
                    self._send(200, provider.issue(query.get("action", [""])[0]), "text/plain")
                else:
                    self._send(404, "", "text/plain")

            def do_POST(self):  # noqa: N802
                length = int(self.headers.get("Content-Length", "0"))
                form = parse_qs(self.rfile.read(length).decode())
                answer = provider.verify(form.get("secret", [""])[0], form.get("response", [""])[0])
                self._send(200, json.dumps(answer), "application/json")

        self._listen(Handler)

    def issue(self, action: str = "sign_in") -> str:
        token = secrets.token_urlsafe(32)
        with self.lock:
            self.issued[token] = action
        return token

    def verify(self, secret: str, token: str) -> dict:
        with self.lock:
            self.verify_calls += 1
            if secret != SECRET:
                return {"success": False, "error-codes": ["invalid-input-secret"]}
            action = self.issued.pop(token, None)
        if action is None:
            return {"success": False, "error-codes": ["timeout-or-duplicate"]}
        return {"success": True, "score": 0.9, "action": action, "hostname": "localhost"}

    def env(self) -> dict[str, str]:
        return {
            "CAPTCHA_PROVIDER": "recaptcha",
            "CAPTCHA_SITE_KEY": SITE_KEY,
            "CAPTCHA_SECRET": SECRET,
            "CAPTCHA_VERIFY_URL": f"{self.url}/siteverify",
            "CAPTCHA_SCRIPT_URL": f"{self.url}/api.js",
        }
