"""What the browser tests of every kind of test share: the demo test by name, an invited participant."""

from __future__ import annotations

from datetime import timedelta

from sqlmodel import select

from portal.models import Invite, Test
from portal.models._base import utcnow
from tests.e2e.test_survey import PASSWORD
from tests.support.factories import make_participant


def named(db, name: str) -> Test:
    return db.exec(select(Test).where(Test.name == name)).one()


def invited(db, test: Test, cents: int):
    """A new participant (password PASSWORD) with an open invite to `test` paying `cents`."""
    account = make_participant(db, password=PASSWORD)
    db.add(
        Invite(account_id=account.id, test_id=test.id, amount_cents=cents, expires_at=utcnow() + timedelta(hours=24))
    )
    db.commit()
    return account
