"""Texts and e-mail choices (issue 38, items 1 and 2) from outside, as raw websocket events and HTTP requests: the
notifications page's handlers take the account from the session only, so an anonymous visitor and another
participant on a tab the victim used change nothing of the victim's phone, text choices or e-mail kinds; bad
arguments get a message and no traceback; a code cannot be guessed (five wrong tries, then a new code is needed);
an incoming text without Twilio's signature is refused (403) and stops nothing."""

from __future__ import annotations

from urllib.parse import urlencode

from sqlmodel import select

from portal.domain import sms as rules
from portal.models import NotificationOptOut, PhoneContact, SmsOptIn
from portal.models._base import utcnow
from portal.states.notifications import NotificationsState
from tests.support.people import ANONYMOUS, person
from tests.support.raw_tab import RawTab, run, tracebacks

STATE = NotificationsState.get_full_name()
VICTIM_PHONE = "+14155550142"


def rows(app_server, account_id: int) -> tuple:
    """The account's phone, its text choices and the e-mail kinds it turned off."""
    with app_server.db() as db:
        contact = db.get(PhoneContact, account_id)
        kinds = sorted(db.exec(select(SmsOptIn.kind).where(SmsOptIn.account_id == account_id)).all())
        off = sorted(db.exec(select(NotificationOptOut.kind).where(NotificationOptOut.account_id == account_id)).all())
        return (
            (contact.phone, contact.confirmed_at is not None, contact.stopped_at, contact.code_tries)
            if contact
            else None,
            kinds,
            off,
        )


HOSTILE = [
    ("send_code", {"form": {"phone": VICTIM_PHONE}}),
    ("send_code", {"form": "not a form"}),
    ("send_code", {"form": {"phone": ["+14155550142"]}}),
    ("confirm_code", {"form": {"code": "123456"}}),
    ("confirm_code", {"form": {"code": {"$gt": ""}}}),
    ("toggle_text", {"kind": "invite", "on": False}),
    ("toggle_text", {"kind": ["invite"], "on": "yes"}),
    ("toggle_text", {"kind": "message", "on": True}),
    ("remove_phone", {}),
    ("toggle", {"kind": "invite", "on": False}),
]


def test_nobody_changes_another_persons_phone_or_text_choices(app_server):
    with app_server.db() as db:
        victim, other = person(db), person(db)
        db.add(PhoneContact(account_id=victim.account_id, phone=VICTIM_PHONE, confirmed_at=utcnow()))
        db.add(SmsOptIn(account_id=victim.account_id, kind="invite"))
        db.commit()
    before = rows(app_server, victim.account_id)
    assert before == ((VICTIM_PHONE, True, None, 0), ["invite"], [])

    async def scenario() -> str:
        mine = RawTab(app_server.url, cookie=victim.cookie)
        await mine.open("/notifications", settle=1.0)
        await mine.close()
        for cookie, token in ((ANONYMOUS.cookie, None), (other.cookie, mine.token), (ANONYMOUS.cookie, mine.token)):
            tab = RawTab(app_server.url, cookie=cookie, token=token)
            await tab.open("/notifications", settle=0.5)
            for name, payload in HOSTILE:
                await tab.send(f"{STATE}.{name}", payload)
            await tab.close()
        return mine.token

    run(scenario())
    assert rows(app_server, victim.account_id) == before
    # The other participant's own events acted on their own account only: no confirmed phone, no choices.
    theirs = rows(app_server, other.account_id)
    assert theirs[1] == [] and (theirs[0] is None or theirs[0][1] is False)
    assert tracebacks(app_server.log_path.read_text()) == []


def test_a_code_cannot_be_guessed(app_server):
    with app_server.db() as db:
        guesser = person(db)

    async def guess() -> RawTab:
        tab = RawTab(app_server.url, cookie=guesser.cookie)
        await tab.open("/notifications", settle=0.5)
        await tab.send(f"{STATE}.send_code", {"form": {"phone": "+14155550143"}})
        for n in range(20):
            await tab.send(f"{STATE}.confirm_code", {"form": {"code": f"{n:06d}"}})
        await tab.close()
        return tab

    tab = run(guess())
    with app_server.db() as db:
        contact = db.get(PhoneContact, guesser.account_id)
        assert contact is not None and contact.code_tries == rules.CODE_MAX_TRIES
    # Only the first five tries were checked (000000..000004: a hit once in 200,000 runs); the rest were refused.
    assert contact.confirmed_at is None
    assert tab.var(STATE, "code_error") == rules.CODE_TOO_MANY


def test_an_unsigned_incoming_text_is_refused_and_stops_nothing(app_server, http):
    with app_server.db() as db:
        who = person(db)
        db.add(PhoneContact(account_id=who.account_id, phone="+14155550144", confirmed_at=utcnow()))
        db.commit()
    form = {"From": "+14155550144", "To": "+15005550006", "Body": "STOP", "MessageSid": "SM" + "2" * 32}
    headers = {"content-type": "application/x-www-form-urlencoded"}
    assert http.post("/webhooks/twilio/sms", content=urlencode(form), headers=headers).status_code == 403
    forged = {**headers, "x-twilio-signature": "bm90LWEtc2lnbmF0dXJl"}
    assert http.post("/webhooks/twilio/sms", content=urlencode(form), headers=forged).status_code == 403
    huge = urlencode({**form, "Body": "STOP " + "x" * 20_000})
    assert http.post("/webhooks/twilio/sms", content=huge, headers=forged).status_code == 400
    assert rows(app_server, who.account_id)[0][2] is None
    assert tracebacks(app_server.log_path.read_text()) == []
