"""Opaque random tokens: the browser keeps the token, the database keeps only its SHA-256."""

from __future__ import annotations

import hashlib
import secrets
from typing import TypeGuard

TOKEN_BYTES = 32  # 256 bits


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def looks_like_token(value: str | None) -> TypeGuard[str]:
    """Cheap shape check before touching the database: a malformed cookie is just 'no session'."""
    return value is not None and 20 <= len(value) <= 128 and all(c.isalnum() or c in "-_" for c in value)
