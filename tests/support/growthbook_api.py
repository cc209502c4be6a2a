"""A GrowthBook API stand-in on loopback: `GET /api/features/{client_key}` answers like GrowthBook's CDN.

It serves a plain SDK payload (`{"status": 200, "features": {...}}`), or an encrypted one the way GrowthBook
encrypts it (`encryptedFeatures`: AES-128-CBC, PKCS7 padding, "base64(iv).base64(ciphertext)", the key a
base64 16-byte key: the format the SDK's `decrypt` reads). It can also answer an error status or a body
that is not JSON, or be stopped (host down). It counts requests and sends an ETag like the CDN.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import threading
from http.server import BaseHTTPRequestHandler
from typing import Any

from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from tests.support.loopback import LoopbackServer

CLIENT_KEY = "sdk-test-portal"


def new_decryption_key() -> str:
    """A key as GrowthBook shows it for an SDK connection with encryption: base64 of 16 random bytes."""
    return base64.b64encode(os.urandom(16)).decode()


def encrypt(plaintext: str, key: str) -> str:
    """GrowthBook's payload encryption: AES-CBC with a random IV, PKCS7, 'base64(iv).base64(ciphertext)'."""
    iv = os.urandom(16)
    padder = padding.PKCS7(128).padder()
    padded = padder.update(plaintext.encode()) + padder.finalize()
    encryptor = Cipher(algorithms.AES(base64.b64decode(key)), modes.CBC(iv)).encryptor()
    ciphertext = encryptor.update(padded) + encryptor.finalize()
    return base64.b64encode(iv).decode() + "." + base64.b64encode(ciphertext).decode()


def plain_payload(features: dict[str, Any], saved_groups: dict[str, Any] | None = None) -> dict[str, Any]:
    payload: dict[str, Any] = {"status": 200, "features": features, "dateUpdated": "2026-11-24T00:00:00Z"}
    if saved_groups is not None:
        payload["savedGroups"] = saved_groups
    return payload


def encrypted_payload(features: dict[str, Any], key: str) -> dict[str, Any]:
    return {
        "status": 200,
        "features": {},
        "encryptedFeatures": encrypt(json.dumps(features), key),
        "dateUpdated": "2026-11-24T00:00:00Z",
    }


class GrowthBookApi(LoopbackServer):
    """Set `payload` (a dict served as JSON), or `status` (an error answer) or `raw` (a body sent as is)."""

    def __init__(self, client_key: str = CLIENT_KEY) -> None:
        self.client_key = client_key
        self.payload: dict[str, Any] = plain_payload({})
        self.status = 200
        self.raw: bytes | None = None
        self.requests = 0
        self.lock = threading.Lock()
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output quiet
                pass

            def do_GET(self):  # noqa: N802
                with api.lock:
                    api.requests += 1
                    status, raw, payload = api.status, api.raw, api.payload
                if self.path != f"/api/features/{api.client_key}":
                    status, body = 404, b'{"status": 404, "error": "Invalid API Key"}'
                elif status != 200:
                    body = b'{"status": %d, "error": "stand-in failure"}' % status
                else:
                    body = raw if raw is not None else json.dumps(payload).encode()
                etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
                if status == 200 and self.headers.get("If-None-Match") == etag:
                    self.send_response(304)
                    self.send_header("ETag", etag)
                    self.end_headers()
                    return
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                if status == 200:
                    self.send_header("ETag", etag)
                self.end_headers()
                self.wfile.write(body)

        self._listen(Handler)

    def serve(self, payload: dict[str, Any]) -> None:
        with self.lock:
            self.payload, self.status, self.raw = payload, 200, None

    def fail(self, *, status: int = 200, raw: bytes | None = None) -> None:
        """Answer with an error status, or with this body (e.g. not JSON) and 200."""
        with self.lock:
            self.status, self.raw = status, raw
