"""A real OpenID Connect provider on loopback, for LinkedIn and Google in tests.

One HTTP server holds two tenants, /linkedin and /google, each with its own
issuer, client and discovery document. It implements the authorization-code
flow as a provider must: the client id and redirect URI are checked, the token
endpoint authenticates the client (LinkedIn: client_secret_post; Google:
client_secret_basic or _post) and checks the PKCE S256 code verifier, codes
are single use and short-lived, and the ID token is an RS256 JWT (joserfc)
carrying iss, aud, sub, nonce, iat, exp, at_hash and the profile claims,
verifiable with the keys at jwks_uri.

The provider "signs in" whichever user a test queued with `next_login`
(consent is automatic); `deny=True` answers like a user who cancelled, and
`tamper` makes a bad ID token ('nonce', 'signature', 'audience', 'expired').
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlencode, urlsplit

from joserfc import jwt
from joserfc.jwk import RSAKey

from tests.support.loopback import LoopbackServer

CLIENTS = {
    "linkedin": {
        "client_id": "test-linkedin-client",
        "client_secret": "test-linkedin-secret",
        "auth": ("client_secret_post",),
    },
    "google": {
        "client_id": "test-google-client",
        "client_secret": "test-google-secret",
        "auth": ("client_secret_basic", "client_secret_post"),
    },
}


@dataclass
class OidcUser:
    sub: str
    email: str | None = None
    email_verified: bool = True
    given_name: str = "Lee"
    family_name: str = "Linked"

    def claims(self) -> dict:
        out = {
            "sub": self.sub,
            "given_name": self.given_name,
            "family_name": self.family_name,
            "name": f"{self.given_name} {self.family_name}",
        }
        if self.email is not None:
            out.update(email=self.email, email_verified=self.email_verified)
        return out


@dataclass
class _Login:
    user: OidcUser | None
    deny: bool = False
    tamper: str | None = None


@dataclass
class _Tenant:
    name: str
    logins: deque = field(default_factory=deque)
    authorize_requests: list[dict] = field(default_factory=list)
    token_requests: int = 0


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class OidcProvider(LoopbackServer):
    def __init__(self) -> None:
        self.key = RSAKey.generate_key(
            2048, parameters={"kid": "test-key-1", "use": "sig", "alg": "RS256"}, private=True
        )
        self.other_key = RSAKey.generate_key(2048, parameters={"kid": "test-key-1"}, private=True)
        self.tenants = {name: _Tenant(name) for name in CLIENTS}
        self.codes: dict[str, dict] = {}
        self.lock = threading.Lock()
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output quiet
                pass

            def _send(
                self, status: int, body: str = "", ctype: str = "application/json", headers: dict | None = None
            ) -> None:
                data = body.encode()
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.send_header("Cache-Control", "no-store")
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def _json(self, status: int, data: dict) -> None:
                self._send(status, json.dumps(data))

            def _tenant(self, url) -> tuple[_Tenant | None, str]:
                parts = url.path.strip("/").split("/", 1)
                tenant = provider.tenants.get(parts[0])
                return tenant, "/" + (parts[1] if len(parts) > 1 else "")

            def do_GET(self):  # noqa: N802
                url = urlsplit(self.path)
                tenant, path = self._tenant(url)
                if tenant is None:
                    return self._send(404, "not found", "text/plain")
                if path == "/.well-known/openid-configuration":
                    return self._json(200, provider.metadata(tenant.name))
                if path == "/jwks":
                    return self._json(200, {"keys": [provider.key.as_dict(private=False)]})
                if path == "/authorize":
                    return provider.authorize(self, tenant, parse_qs(url.query))
                return self._send(404, "not found", "text/plain")

            def do_POST(self):  # noqa: N802
                url = urlsplit(self.path)
                tenant, path = self._tenant(url)
                if tenant is None or path != "/token":
                    return self._send(404, "not found", "text/plain")
                length = int(self.headers.get("Content-Length", "0"))
                form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
                status, body = provider.token(tenant, form, self.headers.get("Authorization", ""))
                return self._json(status, body)

        self._listen(Handler)

    # ---- what tests use -------------------------------------------------------------------------

    def next_login(
        self, tenant: str, user: OidcUser | None = None, *, deny: bool = False, tamper: str | None = None
    ) -> None:
        """The next authorization request of this tenant signs in `user` (or is denied)."""
        with self.lock:
            self.tenants[tenant].logins.append(_Login(user=user, deny=deny, tamper=tamper))

    def issuer(self, tenant: str) -> str:
        return f"{self.url}/{tenant}"

    def env(self) -> dict[str, str]:
        return {
            "LINKEDIN_CLIENT_ID": CLIENTS["linkedin"]["client_id"],
            "LINKEDIN_CLIENT_SECRET": CLIENTS["linkedin"]["client_secret"],
            "LINKEDIN_METADATA_URL": f"{self.issuer('linkedin')}/.well-known/openid-configuration",
            "GOOGLE_CLIENT_ID": CLIENTS["google"]["client_id"],
            "GOOGLE_CLIENT_SECRET": CLIENTS["google"]["client_secret"],
            "GOOGLE_METADATA_URL": f"{self.issuer('google')}/.well-known/openid-configuration",
        }

    # ---- the protocol ---------------------------------------------------------------------------

    def metadata(self, tenant: str) -> dict:
        issuer = self.issuer(tenant)
        return {
            "issuer": issuer,
            "authorization_endpoint": f"{issuer}/authorize",
            "token_endpoint": f"{issuer}/token",
            "jwks_uri": f"{issuer}/jwks",
            "response_types_supported": ["code"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "scopes_supported": ["openid", "profile", "email"],
            "token_endpoint_auth_methods_supported": list(CLIENTS[tenant]["auth"]),
            "code_challenge_methods_supported": ["S256"],
            "claims_supported": [
                "iss",
                "aud",
                "sub",
                "iat",
                "exp",
                "nonce",
                "email",
                "email_verified",
                "given_name",
                "family_name",
                "name",
            ],
        }

    def authorize(self, handler: BaseHTTPRequestHandler, tenant: _Tenant, query: dict[str, list[str]]) -> None:
        q = {k: v[0] for k, v in query.items()}
        tenant.authorize_requests.append(q)
        client = CLIENTS[tenant.name]
        redirect = q.get("redirect_uri", "")
        if q.get("client_id") != client["client_id"] or not redirect.startswith(
            ("http://localhost:", "http://127.0.0.1:")
        ):
            return handler._send(400, "invalid client or redirect_uri", "text/plain")
        if q.get("response_type") != "code" or "openid" not in q.get("scope", "").split():
            return handler._send(400, "unsupported request", "text/plain")
        if q.get("code_challenge_method") != "S256" or not q.get("code_challenge"):
            return handler._send(400, "PKCE S256 required", "text/plain")
        with self.lock:
            login = tenant.logins.popleft() if tenant.logins else None
        if login is None:
            return handler._send(400, "no test user queued (call next_login)", "text/plain")
        params: dict[str, str] = {"state": q.get("state", "")}
        if login.deny:
            params.update(error="access_denied", error_description="The user cancelled")
        else:
            code = secrets.token_urlsafe(24)
            with self.lock:
                self.codes[code] = {
                    "tenant": tenant.name,
                    "redirect_uri": redirect,
                    "challenge": q["code_challenge"],
                    "nonce": q.get("nonce"),
                    "login": login,
                    "expires": time.time() + 60,
                }
            params["code"] = code
        handler._send(302, "", "text/plain", headers={"Location": f"{redirect}?{urlencode(params)}"})

    def _client_ok(self, tenant: str, form: dict, authorization: str) -> bool:
        client = CLIENTS[tenant]
        if authorization.startswith("Basic ") and "client_secret_basic" in client["auth"]:
            try:
                ident, _, secret = base64.b64decode(authorization[6:]).decode().partition(":")
            except ValueError:
                return False
            return ident == client["client_id"] and secret == client["client_secret"]
        if "client_secret_post" in client["auth"] and not authorization:
            return form.get("client_id") == client["client_id"] and form.get("client_secret") == client["client_secret"]
        return False

    def token(self, tenant: _Tenant, form: dict, authorization: str) -> tuple[int, dict]:
        tenant.token_requests += 1
        if not self._client_ok(tenant.name, form, authorization):
            return 401, {"error": "invalid_client"}
        if form.get("grant_type") != "authorization_code":
            return 400, {"error": "unsupported_grant_type"}
        with self.lock:
            grant = self.codes.pop(form.get("code", ""), None)  # single use
        if grant is None or grant["tenant"] != tenant.name or grant["expires"] < time.time():
            return 400, {"error": "invalid_grant"}
        if form.get("redirect_uri") != grant["redirect_uri"]:
            return 400, {"error": "invalid_grant", "error_description": "redirect_uri mismatch"}
        verifier = form.get("code_verifier", "")
        if not verifier or _b64(hashlib.sha256(verifier.encode()).digest()) != grant["challenge"]:
            return 400, {"error": "invalid_grant", "error_description": "PKCE verification failed"}
        login: _Login = grant["login"]
        access_token = secrets.token_urlsafe(32)
        now = int(time.time())
        claims = {
            "iss": self.issuer(tenant.name),
            "aud": CLIENTS[tenant.name]["client_id"],
            "iat": now,
            "exp": now + 300,
            "at_hash": _b64(hashlib.sha256(access_token.encode()).digest()[:16]),
            **login.user.claims(),
        }
        if grant["nonce"]:
            claims["nonce"] = grant["nonce"]
        key = self.key
        if login.tamper == "nonce":
            claims["nonce"] = "not-the-nonce"
        elif login.tamper == "audience":
            claims["aud"] = "someone-else"
        elif login.tamper == "expired":
            claims["iat"], claims["exp"] = now - 3600, now - 1800
        elif login.tamper == "signature":
            key = self.other_key
        id_token = jwt.encode({"alg": "RS256", "kid": "test-key-1"}, claims, key)
        return 200, {
            "access_token": access_token,
            "token_type": "Bearer",
            "expires_in": 300,
            "scope": "openid profile email",
            "id_token": id_token,
        }
