"""Idempotent writes (issue 39): a POST with an Idempotency-Key runs its effect once per key; the answer is kept
in the effect's own transaction, so a repeat, a retry or 100 identical requests at once get one effect and the same
answer.

The kept answer is inserted first: that insert takes SQLite's write lock, and on PostgreSQL waits on the unique
index for a transaction holding the same key; whoever comes second fails on the unique index once the first
commits, and reads its answer."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from portal import db
from portal.models import IdempotentRequest
from portal.services.errors import ServiceError

KEY_MAX = 255
KEY_INVALID = f"The Idempotency-Key header is 1 to {KEY_MAX} printable characters."
KEY_REUSED = "This Idempotency-Key was used for a different request."


class KeyReused(ServiceError):
    """The same key came with another method, path or body (422)."""


@dataclass(frozen=True)
class Answer:
    status: int
    body: Any
    replayed: bool = False


def fingerprint(method: str, path: str, payload: Any) -> str:
    text = json.dumps([method.upper(), path, payload], sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def valid_key(value: object) -> bool:
    return isinstance(value, str) and 0 < len(value) <= KEY_MAX and value.isprintable()


def _kept(session: Session, key_id: int, key: str) -> IdempotentRequest | None:
    return session.exec(
        select(IdempotentRequest).where(IdempotentRequest.api_key_id == key_id, IdempotentRequest.key == key)
    ).first()


def _replay(kept: IdempotentRequest, print_: str) -> Answer:
    if kept.fingerprint != print_:
        raise KeyReused(KEY_REUSED, field="Idempotency-Key")
    return Answer(kept.status_code, kept.response, replayed=True)


def run_once(*, key_id: int, key: str, print_: str, work: Callable[[Session], tuple[int, Any]]) -> Answer:
    """Run `work(session)` (its status and JSON answer) once for this key, in one transaction with the kept
    answer. A refusal (a ServiceError) keeps nothing: it changed nothing, and a retry is asked again."""
    try:
        with db.session_scope() as session:
            kept = IdempotentRequest(api_key_id=key_id, key=key, fingerprint=print_, status_code=0, response={})
            session.add(kept)
            session.flush()  # the write lock (SQLite) or the unique-index wait (PostgreSQL), before the effect
            status, answer = work(session)
            kept.status_code, kept.response = status, answer
            return Answer(status, answer)
    except IntegrityError:
        with db.session_scope() as session:
            found = _kept(session, key_id, key)
            if found is None:  # pragma: no cover - the winner rolled back after all: a retry is asked again
                raise
            return _replay(found, print_)
