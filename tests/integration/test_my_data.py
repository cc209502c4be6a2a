"""'Download my data' (issue 40, item 2) on SQLite and PostgreSQL: the ZIP holds the caller's profile, sign-ins,
e-mails, invites, reviews with every answer, rewards and messages, and nothing of anyone else nor any secret."""

from __future__ import annotations

import csv
import io
import json
import zipfile

import pytest

from portal.models import Message, MessageThread, OutboxEmail
from portal.services.account_settings import NotSignedIn
from portal.services.my_data import export
from portal.services.sessions import create_session
from tests.integration.test_admin_services import a_review, a_test, person


def _unzip(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def test_the_zip_holds_what_the_portal_knows_of_the_caller_and_nothing_else(session):
    me, other = person(session, first_name="Mina"), person(session, first_name="Otto")
    test = a_test(session)
    a_review(session, test, me, answers={"q1": "My honest answer about the pricing page"}, cents=2500)
    a_review(session, test, other, answers={"q1": "Someone else's answer"})
    thread = MessageThread(account_id=me.id, subject="About the test")
    session.add(thread)
    session.flush()
    session.add(Message(thread_id=thread.id, from_staff=False, author_id=me.id, body="The page did not load."))
    session.add(OutboxEmail(to_address=me.email, subject="You are invited", body_text="Hello Mina", kind="invite"))
    session.add(OutboxEmail(to_address=other.email, subject="Not yours", body_text="Hello Otto", kind="invite"))
    token = create_session(session, account_id=me.id, user_agent="Firefox", ip_address="203.0.113.9")
    create_session(session, account_id=other.id)
    session.commit()

    files = _unzip(export(session, token=token, brand="Participants Portal"))
    assert {"README.txt", "profile.json", "sign_ins.csv", "emails.csv", "reviews.json", "rewards.csv"} <= set(files)
    profile = json.loads(files["profile.json"])
    assert profile["account"]["email"] == me.email and profile["profile"]["first_name"] == "Mina"
    reviews = json.loads(files["reviews.json"])
    assert [r["answers"] for r in reviews] == [{"q1": "My honest answer about the pricing page"}]
    rewards = list(csv.DictReader(io.StringIO(files["rewards.csv"].decode("utf-8-sig"))))
    assert [r["amount_cents"] for r in rewards] == ["2500"]
    sign_ins = list(csv.DictReader(io.StringIO(files["sign_ins.csv"].decode("utf-8-sig"))))
    assert [(s["ip_address"], s["user_agent"]) for s in sign_ins] == [("203.0.113.9", "Firefox")]
    assert [m["body"] for m in json.loads(files["messages.json"])] == ["The page did not load."]
    assert [e["subject"] for e in json.loads(files["emails.json"])] == ["You are invited"]

    everything = b"".join(files.values()).decode("utf-8", "replace")
    for foreign in ("Otto", other.email, "Someone else's answer", "Not yours"):
        assert foreign not in everything
    for secret in ("password_hash", "token_hash", "code_hash"):
        assert secret not in everything


def test_no_session_no_data(session):
    for token in (None, "", "x" * 43):
        with pytest.raises(NotSignedIn):
            export(session, token=token, brand="Participants Portal")
