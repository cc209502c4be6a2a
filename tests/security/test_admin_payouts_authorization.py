"""Payouts against the real app (issue 37), as raw websocket events. The app runs Tremendous's local stand-in (no
payout provider configured, loopback BASE_URL; tests/e2e/conftest.py).

Staff: 'Pay now' (AdminRewardsState.pay_now) sent by anonymous visitors, participants and each staff role, with bad
arguments first: only roles with the pay permission (portal/domain/staff/roles.py) order the reward (audited as
reward.pay-now, the reward leaves 'not ordered'); the others get a refusal and nothing is written.
Participants: the rewards tab's payout handlers (RewardsTableState: the payment e-mail dialog and 'Send again')
sent by anonymous visitors, by another participant (someone else's failed reward: 'This reward does not exist.',
nothing changes) and with bad arguments (None, lists, objects, huge strings and numbers): a bad e-mail gets the
message, nothing is written that should not be, and the server logs no traceback. A check that the scenarios send
every payout handler of both states.
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from sqlmodel import Session, select

from portal.domain import payouts as rules
from portal.domain.profile_rules import EMAIL_INVALID
from portal.domain.staff import roles
from portal.models import Account, AuditEntry, Reward
from portal.models._base import utcnow
from portal.services.payout_requests import EMAIL_REQUIRED
from portal.states.admin.rewards import AdminRewardsState
from portal.states.table import RewardsTableState
from tests.e2e.conftest import AppServer
from tests.security.test_admin_authorization import _review
from tests.support.people import Person, caller, demo_test, person
from tests.support.raw_tab import RawTab, run, tracebacks

W = AdminRewardsState.get_full_name()
P = RewardsTableState.get_full_name()
CALLERS = ("anonymous", "participant", *roles.ROLES)
BAD = (None, [], [1, 2], {"a": 1}, True, -1, 0, 2**31, 10**30, "x" * 5000, "1e3", "999999999999", "\u00b2", 1.5)
SENT = "The reward was sent."
TAKEN = "Only an approved reward that has not been sent can be paid now."
PARTICIPANT_HANDLERS = ("ask_payment_email", "cancel_payment_email", "set_email_draft", "save_payment_email")


def _approved_reward(db: Session) -> int:
    """An approved reward of a new participant, not yet ordered: the id."""
    owner = db.get(Account, person(db).account_id)
    _, reward = _review(db, demo_test(db, "01-survey.json").id, owner, approved=True)
    db.commit()
    return reward.id


def _failed_reward(db: Session, owner: Person) -> int:
    """A reward of `owner` whose payout failed at the provider: the id."""
    account = db.get(Account, owner.account_id)
    _, reward = _review(db, demo_test(db, "01-survey.json").id, account, approved=True)
    reward.payout, reward.status, reward.provider = rules.FAILED, "FAILED", "tremendous"
    reward.provider_order_id, reward.provider_reward_id = "ORDER-FAILED", f"REWARD-FAILED-{reward.id}"
    reward.provider_status, reward.failure_reason = "FAILED", "The e-mail bounced."
    reward.payment_email, reward.ordered_at, reward.attempts = owner.email, utcnow(), 1
    db.add(reward)
    db.commit()
    return reward.id


def _ledger(db: Session, reward_id: int) -> tuple:
    db.expire_all()
    r = db.get(Reward, reward_id)
    return (
        r.status,
        r.payout,
        r.provider,
        r.provider_order_id,
        r.provider_reward_id,
        r.provider_status,
        r.failure_reason,
        r.payment_email,
        r.attempts,
        r.next_attempt_at,
        r.paid_on,
    )


def _pay_now_audits(db: Session, reward_id: int) -> list[tuple[str, Any]]:
    """Who paid the reward now, as the audit log says: (role, after) each."""
    db.expire_all()
    found = db.exec(
        select(AuditEntry).where(AuditEntry.action == "reward.pay-now", AuditEntry.target_id == str(reward_id))
    ).all()
    return [(a.actor_role, a.after) for a in found]


async def pay_now_as(app_server: AppServer, cookie: str) -> tuple[int, str]:
    """Staff's rewards page: 'Pay now' with bad arguments, then for a reward made just before it is sent (the payout
    job orders approved rewards too: the shorter the wait, the rarer it takes the reward first). The reward's id and
    what the tab received for the real click."""
    tab = RawTab(app_server.url, cookie=cookie)
    await tab.open("/admin/rewards", settle=0.3)
    await tab.answer(f"{W}.load_page", {}, settle=0.2)
    for bad in BAD:
        await tab.answer(f"{W}.pay_now", {"reward_id": bad}, settle=0.05)
    tab.emit(f"{W}.pay_now", {})  # no argument at all: refused before any handler (states/event_guard.py)
    await tab.drain(0.3)
    with app_server.db() as db:
        reward_id = _approved_reward(db)
    tab.received.clear()
    await tab.answer(f"{W}.pay_now", {"reward_id": str(reward_id)}, settle=0.5)
    text = tab.text()
    await tab.close()
    return reward_id, text


@pytest.mark.parametrize("kind", CALLERS)
def test_only_staff_who_may_pay_order_a_reward_now(app_server, kind):
    with app_server.db() as db:
        who = caller(db, kind)
    role = kind if kind in roles.ROLES else None
    may_pay = roles.may(role, roles.PAY)
    log_start = app_server.log_path.stat().st_size
    for _attempt in range(3):
        reward_id, text = run(pay_now_as(app_server, who.cookie))
        with app_server.db() as db:
            audits, ledger = _pay_now_audits(db, reward_id), _ledger(db, reward_id)
        if may_pay and not audits and TAKEN in text and ledger[1] is not None:
            continue  # the payout job took the reward between its making and the click: again, with a new one
        break
    if may_pay:
        assert SENT in text, kind
        assert audits == [(role, {"payout": rules.SENDING})], kind
        assert ledger[1] in (rules.SENDING, rules.SENT, rules.PAID), kind  # ordered from the stand-in
        assert ledger[2] == "tremendous" and ledger[8] == 1, kind
    else:
        assert SENT not in text and audits == [], kind
    log = app_server.log_path.read_bytes()[log_start:].decode(errors="replace")
    assert tracebacks(log) == [], kind


async def participant_as(base: str, cookie: str, victim_reward: int, email: str) -> str:
    """The rewards tab's payout handlers, each with bad arguments, then 'Send again' of `victim_reward`, then the
    payment e-mail dialog: a bad address, then `email`. What the tab received."""
    tab = RawTab(base, cookie=cookie)
    await tab.open("/", settle=0.5)
    for bad in BAD:
        await tab.answer(f"{P}.resend_payout", {"reward_id": bad}, settle=0.05)
        await tab.answer(f"{P}.set_email_draft", {"text": bad}, settle=0.05)
        await tab.answer(f"{P}.save_payment_email", {}, settle=0.05)
    # Missing or unexpected arguments: refused before any handler (states/event_guard.py).
    tab.emit(f"{P}.resend_payout", {})
    tab.emit(f"{P}.set_email_draft", {})
    tab.emit(f"{P}.save_payment_email", {"unexpected": 1})
    await tab.drain(0.5)
    await tab.answer(f"{P}.resend_payout", {"reward_id": str(victim_reward)}, settle=0.3)
    await tab.answer(f"{P}.resend_payout", {"reward_id": victim_reward}, settle=0.3)
    await tab.answer(f"{P}.ask_payment_email", {}, settle=0.1)
    await tab.answer(f"{P}.cancel_payment_email", {}, settle=0.1)
    await tab.answer(f"{P}.ask_payment_email", {}, settle=0.1)
    await tab.answer(f"{P}.set_email_draft", {"text": "not an e-mail"}, settle=0.1)
    await tab.answer(f"{P}.save_payment_email", {}, settle=0.3)
    await tab.answer(f"{P}.set_email_draft", {"text": email}, settle=0.1)
    await tab.answer(f"{P}.save_payment_email", {}, settle=0.5)
    text = tab.text()
    await tab.close()
    return text


def test_a_participant_cannot_resend_or_redirect_someone_elses_reward(app_server):
    with app_server.db() as db:
        victim, other = person(db), person(db)
        reward_id = _failed_reward(db, victim)
        before = _ledger(db, reward_id)
    log_start = app_server.log_path.stat().st_size

    anonymous = run(participant_as(app_server.url, "", reward_id, "anonymous-payments@example.com"))
    assert rules.NOT_YOURS not in anonymous and "/sign-in" in anonymous
    seen = run(participant_as(app_server.url, other.cookie, reward_id, "other-payments@example.com"))
    assert rules.NOT_YOURS in seen
    assert EMAIL_REQUIRED in seen and EMAIL_INVALID in seen  # the bad drafts got the messages
    with app_server.db() as db:
        assert _ledger(db, reward_id) == before  # the victim's failed reward: not resent, not redirected
        db.expire_all()
        victim_account, other_account = db.get(Account, victim.account_id), db.get(Account, other.account_id)
        assert (victim_account.payment_email, victim_account.payment_email_changed_at) == (None, None)
        # The other participant's own address was saved (the handler works), and only theirs.
        assert other_account.payment_email == "other-payments@example.com"
        assert db.exec(select(Account).where(Account.payment_email == "anonymous-payments@example.com")).all() == []

    # The owner, right after changing the payment e-mail: 'Send again' is refused with the 48-hour wait.
    waiting = run(email_then_resend(app_server.url, victim.cookie, reward_id, "victim-payments@example.com"))
    assert rules.NOT_YOURS not in waiting and rules.NOT_FAILED not in waiting
    assert rules.RESEND_WAITING.split(":")[0] in waiting
    with app_server.db() as db:
        assert _ledger(db, reward_id) == before
        assert db.get(Account, victim.account_id).payment_email == "victim-payments@example.com"
    log = app_server.log_path.read_bytes()[log_start:].decode(errors="replace")
    assert tracebacks(log) == []


async def email_then_resend(base: str, cookie: str, reward_id: int, email: str) -> str:
    tab = RawTab(base, cookie=cookie)
    await tab.open("/", settle=0.5)
    await tab.answer(f"{P}.ask_payment_email", {}, settle=0.1)
    await tab.answer(f"{P}.set_email_draft", {"text": email}, settle=0.1)
    await tab.answer(f"{P}.save_payment_email", {}, settle=0.5)
    await tab.answer(f"{P}.resend_payout", {"reward_id": str(reward_id)}, settle=0.3)
    text = tab.text()
    await tab.close()
    return text


def test_the_scenarios_send_every_payout_handler_of_both_states():
    staff = inspect.getsource(pay_now_as)
    participant = inspect.getsource(participant_as)
    missing = [] if '{W}.pay_now"' in staff else ["AdminRewardsState.pay_now"]
    missing += [
        f"RewardsTableState.{h}" for h in (*PARTICIPANT_HANDLERS, "resend_payout") if f'{{P}}.{h}"' not in participant
    ]
    assert {"pay_now"} <= set(AdminRewardsState.event_handlers)
    assert {*PARTICIPANT_HANDLERS, "resend_payout"} <= set(RewardsTableState.event_handlers)
    assert not missing, missing
