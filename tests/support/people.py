"""People for raw-event tests, made in the app's own database: each with a session cookie."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from sqlmodel import Session

from portal.http.client import SESSION_COOKIE
from portal.models import Account, Invite, Test
from portal.models._base import utcnow
from portal.services.definition_import import import_test
from portal.services.sessions import create_session
from tests.support import two_factor
from tests.support.factories import make_participant

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Person:
    account_id: int | None
    cookie: str
    email: str = ""
    first_name: str = ""
    last_name: str = ""


ANONYMOUS = Person(None, "")


def person(db: Session, **kwargs: Any) -> Person:
    """A participant with a live session (a verified, registered one unless told otherwise)."""
    tag = uuid.uuid4().hex[:8]
    first, last = kwargs.pop("first_name", f"Firstname{tag}"), kwargs.pop("last_name", f"Lastname{tag}")
    account = make_participant(db, first_name=first, last_name=last, **kwargs)
    token = create_session(session=db, account_id=account.id)
    db.commit()
    return Person(account.id, f"{SESSION_COOKIE}={token}", account.email, first, last)


def demo_test(db: Session, file: str, **overrides: Any) -> Test:
    """A demo test imported under a name of its own."""
    data = json.loads((ROOT / "portal/data/demo_tests" / file).read_text())
    data.update({"name": f"{data['name']} {uuid.uuid4().hex[:8]}", **overrides})
    test = import_test(db, data)
    db.commit()
    return test


def invite(db: Session, who: Person, test: Test, status: str = "open", hours: int = 24) -> Invite:
    row = Invite(
        account_id=who.account_id,
        test_id=test.id,
        amount_cents=2500,
        status=status,
        created_at=utcnow() - timedelta(hours=1),
        expires_at=utcnow() - timedelta(hours=1) + timedelta(hours=hours),
    )
    db.add(row)
    db.commit()
    return row


def caller(db: Session, kind: str) -> Person:
    """Who sends the events: 'anonymous', a 'participant', or a new account with the staff role `kind`."""
    if kind == "anonymous":
        return ANONYMOUS
    who = person(db)
    if kind != "participant":
        account = db.get(Account, who.account_id)
        account.staff_role = kind
        db.add(account)
        db.commit()
        two_factor.enable(db, account.id)  # staff act only with two-factor sign-in on (issue 40)
    return who
