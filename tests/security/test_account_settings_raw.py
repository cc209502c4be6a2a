"""Account settings (issue 40, item 1) from outside, as raw websocket events and HTTP requests: the handlers take the
account from the tab's session cookie only, so an anonymous visitor and another participant on a tab the victim used
sign none of the victim's devices out; bad arguments get a message and no traceback; the password change over HTTP
needs the session cookie and the page's own origin, and the current password."""

from __future__ import annotations

import base64
import io
import json
import re
import zipfile

import pytest
from sqlmodel import select

from portal.domain.passwords_hashing import verify_password
from portal.models import Account, AuthSession, OutboxEmail, TwoFactor
from portal.services.sessions import create_session
from portal.states.account import AccountState
from portal.states.account_deletion import DeleteAccountState
from tests.support.people import ANONYMOUS, person
from tests.support.raw_tab import RawTab, run, tracebacks

STATE = AccountState.get_full_name()
PASSWORD = "Correct-Horse-42!"  # tests.support.factories.make_participant's
NEW = "Blue-Tulip-Harbor-9"


def live_sessions(app_server, account_id: int) -> list[int]:
    with app_server.db() as db:
        return sorted(
            db.exec(
                select(AuthSession.id).where(AuthSession.account_id == account_id, AuthSession.revoked_at.is_(None))
            ).all()
        )


def test_nobody_signs_out_another_persons_devices(app_server):
    with app_server.db() as db:
        victim, other = person(db), person(db)
        create_session(session=db, account_id=victim.account_id, user_agent="victim's phone")
        db.commit()
    before = live_sessions(app_server, victim.account_id)
    assert len(before) == 2
    hostile = [
        *[("sign_out_session", {"session_id": n}) for n in before],
        ("sign_out_session", {"session_id": str(before[0])}),
        ("sign_out_session", {"session_id": {"$ne": 0}}),
        ("sign_out_session", {"session_id": None}),
        ("sign_out_others", {}),
        ("evaluate", {"field": ["x"], "current": 1, "password": {"a": 1}, "confirm": None}),
        ("show_result", {"result": {"ok": True}}),
        ("show_result", {"result": "not a result"}),
        ("load", {}),
        ("start_two_factor", {}),
        ("confirm_two_factor", {"form": {"code": "123456"}}),
        ("confirm_two_factor", {"form": "not a form"}),
        ("turn_off_two_factor", {"form": {"code": "123456"}}),
        ("codes_saved", {}),
        ("request_deletion", {}),
    ]

    async def scenario() -> None:
        mine = RawTab(app_server.url, cookie=victim.cookie)
        await mine.open("/account", settle=1.0)
        await mine.close()
        for cookie, token in ((ANONYMOUS.cookie, None), (other.cookie, mine.token), (ANONYMOUS.cookie, mine.token)):
            tab = RawTab(app_server.url, cookie=cookie, token=token)
            await tab.open("/account", settle=0.5)
            for name, payload in hostile:
                await tab.send(f"{STATE}.{name}", payload)
            await tab.close()

    run(scenario())
    assert live_sessions(app_server, victim.account_id) == before
    with app_server.db() as db:
        # No authenticator set up for the victim, no deletion link sent to them.
        assert db.get(TwoFactor, victim.account_id) is None
        assert db.exec(select(OutboxEmail).where(OutboxEmail.to_address == victim.email)).all() == []
    assert tracebacks(app_server.log_path.read_text()) == []


def _zip_in(frames: str) -> dict[str, bytes] | None:
    found = re.search(r"data:application/zip;base64,([A-Za-z0-9+/=]+)", frames)
    if found is None:
        return None
    with zipfile.ZipFile(io.BytesIO(base64.b64decode(found.group(1)))) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def test_my_data_is_the_callers_own_on_any_tab(app_server):
    with app_server.db() as db:
        victim, other = person(db), person(db)

    async def scenario() -> tuple[str, str]:
        mine = RawTab(app_server.url, cookie=victim.cookie)
        await mine.open("/account", settle=1.0)
        await mine.close()
        texts = []
        for cookie in (ANONYMOUS.cookie, other.cookie):
            tab = RawTab(app_server.url, cookie=cookie, token=mine.token)
            await tab.open("/account", settle=0.5)
            await tab.answer(f"{STATE}.download_my_data", {}, settle=0.5)
            texts.append(tab.text())
            await tab.close()
        return texts[0], texts[1]

    anonymous, theirs = run(scenario())
    assert _zip_in(anonymous) is None
    files = _zip_in(theirs)
    assert files is not None
    assert json.loads(files["profile.json"])["account"]["email"] == other.email
    assert victim.email.encode() not in b"".join(files.values())


def test_a_deletion_needs_the_emailed_link(app_server):
    with app_server.db() as db:
        victim = person(db)
    state = DeleteAccountState.get_full_name()

    async def scenario() -> None:
        for token in ("", "x" * 43, "../../etc"):
            tab = RawTab(app_server.url, cookie=victim.cookie)
            await tab.open("/account/delete", {"token": token}, settle=0.5)
            await tab.answer(f"{state}.confirm", {}, settle=0.3)
            await tab.close()

    run(scenario())
    with app_server.db() as db:
        account = db.get(Account, victim.account_id)
        assert account.deleted_at is None and account.email == victim.email
    assert tracebacks(app_server.log_path.read_text()) == []


def _put(http, app_server, cookie: str, body, origin: str | None = None):
    headers = {"Origin": origin or app_server.url, "Content-Type": "application/json"}
    if cookie:
        headers["Cookie"] = cookie
    return http.put("/api/account/password", json=body, headers=headers)


@pytest.mark.parametrize(
    "body",
    [
        {"currentPassword": "Not-It-1!", "password": NEW, "confirmPassword": NEW},
        {"currentPassword": ["x"], "password": NEW, "confirmPassword": NEW},
        {"currentPassword": PASSWORD, "password": NEW * 40, "confirmPassword": NEW * 40},
        [],
        "text",
    ],
)
def test_bad_password_changes_are_refused_with_a_message(http, app_server, body):
    with app_server.db() as db:
        who = person(db)
    answer = _put(http, app_server, who.cookie, body)
    assert answer.status_code == 400, answer.text
    assert answer.json()["errors"][0]["message"]
    with app_server.db() as db:
        assert verify_password(PASSWORD, db.get(Account, who.account_id).password_hash)[0]
    assert tracebacks(app_server.log_path.read_text()) == []


def test_the_change_needs_the_session_and_the_own_origin(http, app_server):
    with app_server.db() as db:
        who = person(db)
    body = {"currentPassword": PASSWORD, "password": NEW, "confirmPassword": NEW}
    no_session = _put(http, app_server, ANONYMOUS.cookie, body)
    assert no_session.status_code == 400
    assert no_session.json()["errors"] == [{"field": "_global", "message": "Please sign in again."}]
    assert _put(http, app_server, who.cookie, body, origin="https://evil.example").status_code == 403
    with app_server.db() as db:
        assert verify_password(PASSWORD, db.get(Account, who.account_id).password_hash)[0]
    assert _put(http, app_server, who.cookie, body).json() == {"ok": True}
    with app_server.db() as db:
        assert verify_password(NEW, db.get(Account, who.account_id).password_hash)[0]
