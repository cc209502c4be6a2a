"""The local sign-in stand-in's OpenID Connect provider (authorization-code flow with PKCE), for a
`make run` on this machine only (when it runs: portal/domain/local_oidc.py).

It does what a provider must, so the portal's real OIDC client (Authlib, portal/http/oauth_routes.py)
runs unchanged against it: the client id, its secret and the redirect URI are checked; codes are
signed, expire after two minutes and are taken once; the PKCE S256 verifier is checked; the ID
token is an RS256 JWT (joserfc) with iss, aud, sub, nonce, iat, exp, at_hash and the profile claims,
verifiable with the key at jwks_uri. The signing key is kept in `.local_oidc_key.json` beside the
project (like `.secret_key`), so every worker signs with the same key.

The person signing in is whoever the stand-in's page was told (a ready-made person or a name and
e-mail typed there); the subject is derived from the provider and the e-mail, so the same e-mail
signs in to the same account again.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import secrets
import threading
import time
from dataclasses import dataclass
from typing import Any

from itsdangerous import BadSignature, URLSafeTimedSerializer
from joserfc import jwt
from joserfc.jwk import RSAKey
from sqlalchemy import or_
from sqlmodel import Session, select

from portal.domain import local_oidc as rules
from portal.domain.accounts import normalize_email
from portal.domain.profile_rules import email_error
from portal.domain.staff import roles
from portal.models import Account
from portal.settings import ROOT, Settings

KEY_FILE = ROOT / ".local_oidc_key.json"
KID = "local-oidc-1"
CODE_SECONDS = 120
TOKEN_SECONDS = 300
MAX_NAME = 50


@dataclass(frozen=True)
class Person:
    given_name: str
    family_name: str
    email: str

    @property
    def label(self) -> str:
        return f"{self.given_name} {self.family_name}"


# Offered on the stand-in's page: a new person (signs up), and the demo participant's e-mail (signs in
# to the demo account, connecting the provider to it).
READY_MADE: tuple[Person, ...] = (
    Person("Nia", "Newman", "nia.newman@northwind.example"),
    Person("Omar", "Okafor", "omar.okafor@contoso.example"),
    Person("Dana", "Reviewer", "participant@example.com"),
)


class ProtocolError(Exception):
    """A request the provider refuses; `error` is the OAuth error code."""

    def __init__(self, error: str, description: str, status: int = 400) -> None:
        super().__init__(description)
        self.error, self.description, self.status = error, description, status


_key_lock = threading.Lock()
_used_codes: dict[str, float] = {}


def signing_key() -> RSAKey:
    """The provider's RSA key: read from KEY_FILE, made once when missing (atomically, so two workers agree)."""
    with _key_lock:
        if not KEY_FILE.exists():
            key = RSAKey.generate_key(2048, parameters={"kid": KID, "use": "sig", "alg": "RS256"}, private=True)
            tmp = KEY_FILE.with_name(f".{KEY_FILE.name}.{os.getpid()}.tmp")
            tmp.write_text(json.dumps(key.as_dict(private=True)))
            tmp.chmod(0o600)
            try:
                os.link(tmp, KEY_FILE)  # the first worker's key wins
            except FileExistsError:
                pass
            finally:
                tmp.unlink(missing_ok=True)
        return RSAKey.import_key(json.loads(KEY_FILE.read_text()))


def issuer(config: Settings, tenant: str) -> str:
    return f"{config.base_url}{rules.PREFIX}/{tenant}"


def callback_uri(config: Settings, tenant: str) -> str:
    """The one redirect URI the portal registers for a provider (oauth_routes.redirect_uri)."""
    return f"{config.base_url}/api/auth/{tenant}/callback"


def metadata(config: Settings, tenant: str) -> dict[str, Any]:
    base = issuer(config, tenant)
    return {
        "issuer": base,
        "authorization_endpoint": f"{base}/authorize",
        "token_endpoint": f"{base}/token",
        "jwks_uri": f"{base}/jwks",
        "response_types_supported": ["code"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["RS256"],
        "scopes_supported": ["openid", "profile", "email"],
        "token_endpoint_auth_methods_supported": ["client_secret_post", "client_secret_basic"],
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


def jwks() -> dict[str, Any]:
    return {"keys": [signing_key().as_dict(private=False)]}


def check_authorize(config: Settings, tenant: str, query: dict[str, str]) -> dict[str, str]:
    """The authorization request's parameters, checked (ProtocolError otherwise); what the page keeps."""
    if query.get("client_id") != rules.client_id(tenant) or query.get("redirect_uri") != callback_uri(config, tenant):
        raise ProtocolError("invalid_request", "Unknown client or redirect address.")
    if query.get("response_type") != "code" or "openid" not in query.get("scope", "").split():
        raise ProtocolError(
            "unsupported_response_type", "Only the authorization-code flow with the openid scope is supported."
        )
    if query.get("code_challenge_method") != "S256" or not query.get("code_challenge"):
        raise ProtocolError("invalid_request", "PKCE with S256 is required.")
    keep = (
        "client_id",
        "redirect_uri",
        "response_type",
        "scope",
        "state",
        "nonce",
        "code_challenge",
        "code_challenge_method",
    )
    return {k: query[k] for k in keep if isinstance(query.get(k), str)}


def person_problems(given_name: str, family_name: str, email: str) -> dict[str, str]:
    """The typed person's problems by field ('' fields are required)."""
    problems = {}
    for field, value, label in (("given_name", given_name, "First name"), ("family_name", family_name, "Last name")):
        if not value.strip():
            problems[field] = f"{label} is required"
        elif len(value.strip()) > MAX_NAME:
            problems[field] = f"{label} is too long (at most {MAX_NAME} characters)"
    error = email_error(email, required_message="Email is required")
    if error:
        problems["email"] = error
    return problems


def is_staff_email(session: Session, email: str) -> bool:
    """Whether a live staff account has this e-mail (or work e-mail): the stand-in never vouches for it."""
    email = normalize_email(email)
    if not email:
        return False
    found = session.exec(
        select(Account.staff_role).where(
            or_(Account.email == email, Account.work_email == email), Account.removed_at.is_(None)
        )
    ).all()
    return any(roles.is_staff(role) for role in found)


def subject(tenant: str, email: str) -> str:
    return hashlib.sha256(f"{tenant}:{normalize_email(email)}".encode()).hexdigest()[:24]


def _codes(config: Settings) -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(config.secret_key, salt="local-oidc-code")


def issue_code(config: Settings, tenant: str, request: dict[str, str], person: Person) -> str:
    return _codes(config).dumps(
        {
            "t": tenant,
            "r": request["redirect_uri"],
            "c": request["code_challenge"],
            "n": request.get("nonce"),
            "p": [person.given_name.strip(), person.family_name.strip(), normalize_email(person.email)],
            "j": secrets.token_urlsafe(12),
        }
    )


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _client_ok(config: Settings, tenant: str, form: dict[str, str], authorization: str) -> bool:
    expected = (rules.client_id(tenant), config.local_oidc_secret(tenant))
    if authorization.startswith("Basic "):
        try:
            ident, _, secret = base64.b64decode(authorization[6:]).decode().partition(":")
        except ValueError:
            return False
        return secrets.compare_digest(f"{ident}:{secret}", ":".join(expected))
    return secrets.compare_digest(f"{form.get('client_id', '')}:{form.get('client_secret', '')}", ":".join(expected))


def _take(jti: str) -> bool:
    """A code is taken once (per process; codes live two minutes)."""
    now = time.monotonic()
    with _key_lock:
        for old in [k for k, at in _used_codes.items() if at < now - CODE_SECONDS]:
            del _used_codes[old]
        if jti in _used_codes:
            return False
        _used_codes[jti] = now
        return True


def exchange(config: Settings, tenant: str, form: dict[str, str], authorization: str = "") -> dict[str, Any]:
    """The token endpoint: a code for an access token and an ID token (ProtocolError otherwise)."""
    if not _client_ok(config, tenant, form, authorization):
        raise ProtocolError("invalid_client", "Client authentication failed.", status=401)
    if form.get("grant_type") != "authorization_code":
        raise ProtocolError("unsupported_grant_type", "Only authorization_code is supported.")
    try:
        grant = _codes(config).loads(form.get("code", ""), max_age=CODE_SECONDS)
    except BadSignature:
        raise ProtocolError("invalid_grant", "The code is unknown or expired.") from None
    if grant.get("t") != tenant or form.get("redirect_uri") != grant.get("r") or not _take(grant.get("j", "")):
        raise ProtocolError("invalid_grant", "The code is unknown, used or for another client.")
    verifier = form.get("code_verifier", "")
    if not verifier or _b64(hashlib.sha256(verifier.encode()).digest()) != grant.get("c"):
        raise ProtocolError("invalid_grant", "PKCE verification failed.")
    given, family, email = grant["p"]
    access_token = secrets.token_urlsafe(32)
    now = int(time.time())
    claims = {
        "iss": issuer(config, tenant),
        "aud": rules.client_id(tenant),
        "iat": now,
        "exp": now + TOKEN_SECONDS,
        "at_hash": _b64(hashlib.sha256(access_token.encode()).digest()[:16]),
        "sub": subject(tenant, email),
        "email": email,
        "email_verified": True,
        "given_name": given,
        "family_name": family,
        "name": f"{given} {family}",
    }
    if grant.get("n"):
        claims["nonce"] = grant["n"]
    id_token = jwt.encode({"alg": "RS256", "kid": KID}, claims, signing_key())
    return {
        "access_token": access_token,
        "token_type": "Bearer",
        "expires_in": TOKEN_SECONDS,
        "scope": "openid profile email",
        "id_token": id_token,
    }
