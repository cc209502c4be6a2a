"""The payout ledger (issue 37) on SQLite and PostgreSQL, against Tremendous's stand-in served alone on loopback and
driven through the real SDK: approved rewards are ordered once whatever runs at once (50 payout rounds, 50 'Pay
now' clicks); the stand-in's signed webhooks move a sent reward to paid or failed; a replayed or a forged webhook
changes nothing; a lost webhook is reconciled by the poll; a failed payment is corrected and sent again (after the
48-hour wait); the referral bonus is one reward of its own under 20 concurrent payments of the referee's rewards."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

import pytest
from sqlalchemy import select
from sqlmodel import Session

from portal.domain import payouts as rules
from portal.domain.staff import roles
from portal.models import AuditEntry, PayoutEvent, ReferralMember, ReferralProgram, Reward
from portal.models._base import utcnow
from portal.services import payout_requests, payout_runner, payouts
from portal.services.errors import ServiceError
from tests.integration.test_admin_services import a_review, a_test, count, fresh, participant_reward_row, person
from tests.support.payout_standin import PayoutStandin, WebhookReceiver
from tests.support.races import all_at_once


@pytest.fixture
def receiver():
    server = WebhookReceiver().start()
    yield server
    server.stop()


@pytest.fixture
def standin(tmp_path, receiver):
    with PayoutStandin(tmp_path / "payouts.db", webhook_url=receiver.url) as server:
        yield server


def sessions_of(db_url: str):
    from portal.db import make_engine

    engine = make_engine(db_url)

    @contextmanager
    def scope() -> Iterator[Session]:
        with Session(engine, expire_on_commit=False) as s:
            try:
                yield s
                s.commit()
            except BaseException:
                s.rollback()
                raise

    return scope


def approved_rewards(session: Session, n: int = 1, *, cents: int = 2500, account=None) -> list[Reward]:
    test = a_test(session)
    out = []
    for _ in range(n):
        who = account or person(session)
        # One review per participant and test: one participant's rewards are of tests of their own.
        _, reward = a_review(
            session, a_test(session) if account else test, who, status="approved", approved=True, cents=cents
        )
        out.append(reward)
    session.commit()
    return out


def webhooks(receiver: WebhookReceiver) -> list[tuple[bytes, dict[str, str]]]:
    """The webhooks the stand-in posted: raw body and headers, as the portal's route receives them."""
    with receiver.lock:
        return [(body, {k.lower(): v for k, v in headers.items()}) for headers, body in receiver.received]


def deliver(standin: PayoutStandin, reward: Reward, session: Session, *, succeeded: bool = True, webhook=True):
    row = fresh(session, Reward, reward.id)
    standin.store.deliver(row.provider_reward_id, succeeded=succeeded, send_webhook=webhook)


def test_an_approved_reward_is_ordered_sent_then_paid_by_the_webhook(db_url, session, standin, receiver):
    provider, scope = standin.provider(), sessions_of(db_url)
    (reward,) = approved_rewards(session)
    done = payout_runner.run_round(provider=provider, sessions=scope)
    assert (done.ordered, done.failed) == (1, 0)
    row = fresh(session, Reward, reward.id)
    assert (row.payout, row.status, row.provider, row.provider_status) == ("sent", "PENDING", "tremendous", "SCHEDULED")
    assert [ext for _, ext in standin.store.orders()] == [f"reward-{reward.id}"]
    page_row = participant_reward_row(session, row.account_id, reward.id)
    assert (page_row["stage"], page_row["stage_detail"].split(" (")[0]) == ("Sent", rules.SENT_DETAIL)

    deliver(standin, reward, session)
    [(body, headers)] = webhooks(receiver)
    assert payout_runner.receive_webhook(body, headers, provider=provider, sessions=scope) == 200
    row = fresh(session, Reward, reward.id)
    assert (row.payout, row.status, row.provider_status) == ("paid", "EXECUTED", "SUCCEEDED")
    assert row.paid_on is not None
    assert participant_reward_row(session, row.account_id, reward.id)["stage"] == "Paid"
    actions = session.execute(
        select(AuditEntry.action).where(AuditEntry.target_id == str(reward.id)).order_by(AuditEntry.id)
    ).scalars()
    assert [a for a in actions if a.startswith("payout.")] == ["payout.sent", "payout.paid"]

    # The same webhook again (a provider retry or a replay): recorded once, nothing changes.
    assert payout_runner.receive_webhook(body, headers, provider=provider, sessions=scope) == 200
    assert count(session, PayoutEvent) == 1
    # A forged one (tampered body, or no signature): 401, nothing recorded or changed.
    forged = body.replace(b"SUCCEEDED", b"FAILED")
    assert payout_runner.receive_webhook(forged, headers, provider=provider, sessions=scope) == 401
    assert payout_runner.receive_webhook(body, {}, provider=provider, sessions=scope) == 401
    assert count(session, PayoutEvent) == 1
    assert fresh(session, Reward, reward.id).payout == "paid"


def test_fifty_payout_rounds_at_once_order_each_reward_once(db_url, session, standin):
    provider = standin.provider()
    rewards = approved_rewards(session, 5)
    results = all_at_once(
        db_url,
        [
            lambda _s: payout_runner.run_round(provider=provider, sessions=sessions_of(db_url), workers=1)
            for _ in range(50)
        ],
    )
    assert sum(r.ordered for r in results) == 5
    externals = [ext for _, ext in standin.store.orders()]
    assert sorted(externals) == sorted(f"reward-{r.id}" for r in rewards)
    session.expire_all()
    assert {fresh(session, Reward, r.id).payout for r in rewards} == {"sent"}
    assert count(session, AuditEntry, AuditEntry.action == "payout.sent") == 5


def test_fifty_pay_now_clicks_place_one_order(db_url, session, standin):
    provider = standin.provider()
    (reward,) = approved_rewards(session)
    payer = person(session, role=roles.TEAM_OWNER)
    session.commit()

    def click(_s: Session):
        try:
            return payout_runner.pay_now(payer.id, str(reward.id), provider=provider, sessions=sessions_of(db_url))
        except ServiceError as refused:
            return refused.message

    results = all_at_once(db_url, [click for _ in range(50)])
    assert results.count(True) == 1, results
    assert set(results) - {True} <= {"Only an approved reward that has not been sent can be paid now."}
    assert len(standin.store.orders()) == 1
    assert count(session, AuditEntry, AuditEntry.action == "reward.pay-now") == 1
    # A participant, or staff who may not pay, cannot.
    for who in (person(session), person(session, role=roles.TEAM_MANAGER)):
        session.commit()
        with pytest.raises(ServiceError):
            payout_runner.pay_now(who.id, str(reward.id), provider=provider, sessions=sessions_of(db_url))


def test_a_lost_webhook_is_reconciled_by_the_poll(db_url, session, standin, receiver):
    provider, scope = standin.provider(), sessions_of(db_url)
    (reward,) = approved_rewards(session)
    payout_runner.run_round(provider=provider, sessions=scope)
    deliver(standin, reward, session, webhook=False)
    assert webhooks(receiver) == []
    # Before RECONCILE_AFTER nothing asks; after it, the poll reads the reward from the provider.
    assert payout_runner.run_round(provider=provider, sessions=scope).reconciled == 0
    later = utcnow() + rules.RECONCILE_AFTER + timedelta(minutes=1)
    assert payout_runner.run_round(provider=provider, sessions=scope, now=later).reconciled == 1
    row = fresh(session, Reward, reward.id)
    assert (row.payout, row.status) == ("paid", "EXECUTED")


def test_a_failed_delivery_shows_its_reason_and_is_sent_again_after_the_email_is_corrected(
    db_url, session, standin, receiver
):
    provider, scope = standin.provider(), sessions_of(db_url)
    who = person(session, email="bounce.me@example.org")
    session.commit()
    (reward,) = approved_rewards(session, account=who)
    payout_runner.run_round(provider=provider, sessions=scope)
    deliver(standin, reward, session, succeeded=False)
    [(body, headers)] = webhooks(receiver)
    payout_runner.receive_webhook(body, headers, provider=provider, sessions=scope)
    row = fresh(session, Reward, reward.id)
    assert (row.payout, row.status) == ("failed", "FAILED")
    assert row.failure_reason
    page_row = participant_reward_row(session, who.id, reward.id)
    assert (page_row["stage"], page_row["stage_detail"], page_row["failed"]) == ("Failed", row.failure_reason, "yes")

    # The participant corrects the e-mail: a resend waits 48 hours (shown), and is refused before.
    with pytest.raises(ServiceError) as bad:
        payout_requests.set_payment_email(session, account_id=who.id, email="not an e-mail")
    assert bad.value.field == "payment_email"
    payout_requests.set_payment_email(session, account_id=who.id, email="Ada.Fixed@Example.org")
    session.commit()
    assert payout_requests.payment_email(session, account_id=who.id).resend_from != ""
    with pytest.raises(ServiceError) as early:
        payout_runner.resend(who.id, str(reward.id), provider=provider, sessions=scope)
    assert early.value.message.startswith("You changed your payment e-mail recently")
    # Someone else cannot send it again.
    stranger = person(session)
    session.commit()
    with pytest.raises(ServiceError) as not_theirs:
        payout_runner.resend(stranger.id, str(reward.id), provider=provider, sessions=scope)
    assert not_theirs.value.message == rules.NOT_YOURS

    account = fresh(session, type(who), who.id)
    account.payment_email_changed_at = utcnow() - timedelta(hours=49)
    session.add(account)
    session.commit()
    assert payout_runner.resend(who.id, str(reward.id), provider=provider, sessions=scope) is True
    row = fresh(session, Reward, reward.id)
    assert (row.payout, row.status, row.payment_email) == ("sent", "PENDING", "ada.fixed@example.org")
    assert len(standin.store.orders()) == 1  # the same order, resent
    deliver(standin, reward, session)
    body, headers = webhooks(receiver)[-1]
    payout_runner.receive_webhook(body, headers, provider=provider, sessions=scope)
    assert fresh(session, Reward, reward.id).payout == "paid"
    # Paid: nothing to send again.
    with pytest.raises(ServiceError):
        payout_runner.resend(who.id, str(reward.id), provider=provider, sessions=scope)


def test_the_referral_bonus_is_one_reward_under_twenty_concurrent_payments(db_url, session):
    referrer, referee = person(session), person(session)
    program = ReferralProgram(name="Friends", bonus_cents=2000)
    session.add(program)
    session.flush()
    session.add(
        ReferralMember(
            program_id=program.id, referrer_account_id=referrer.id, referee_account_id=referee.id, email=referee.email
        )
    )
    session.commit()
    rewards = approved_rewards(session, 20, account=referee)
    for reward in rewards:
        row = fresh(session, Reward, reward.id)
        row.payout, row.provider_reward_id = "sent", f"R{reward.id:011d}"
        session.add(row)
    session.commit()

    def paid(reward_id: int):
        return lambda s: payouts.delivered(s, reward_id=reward_id, state="paid", provider_status="SUCCEEDED")

    results = all_at_once(db_url, [paid(r.id) for r in rewards])
    assert results.count(True) == 20
    session.expire_all()
    bonuses = session.execute(select(Reward).where(Reward.kind == rules.REFERRAL_BONUS)).scalars().all()
    assert [(b.account_id, b.amount_cents, b.status, b.review_id) for b in bonuses] == [
        (referrer.id, 2000, "PENDING", None)
    ]
    assert bonuses[0].approved_at is not None  # payable: the job orders it like any reward
    row = participant_reward_row(session, referrer.id, bonuses[0].id)
    assert (row["test_type"], row["stage"], row["payout"]) == ("Referral bonus", "Approved", "$20")
    # Paying the bonus earns nothing more (a bonus is not a referee's reward).
    assert payouts.referral_bonus(session, reward_id=bonuses[0].id) is None


def test_staff_see_totals_per_state_never_added_together(session):
    from portal.services.admin import rewards as staff_rewards

    staff = person(session, role=roles.TEAM_OWNER)
    test = a_test(session)
    a_review(session, test, person(session), cents=1000)  # in review
    a_review(session, test, person(session), status="approved", approved=True, cents=2000)
    _, sent = a_review(session, test, person(session), status="approved", approved=True, cents=3000)
    a_review(session, test, person(session), status="approved", approved=True, reward_status="EXECUTED", cents=4000)
    a_review(session, test, person(session), status="approved", approved=True, reward_status="FAILED", cents=500)
    a_review(session, test, person(session), status="rejected", reward_status="CANCELED", cents=700)
    sent.payout = "sent"
    session.add(sent)
    session.commit()
    found = staff_rewards.totals_by_state(session, actor_id=staff.id, query=staff_rewards.clean_query())
    by_state = {t["state"]: (t["count"], t["amount"]) for t in found}
    assert by_state == {
        "In review": ("1", "$10"),
        "Approved": ("1", "$20"),
        "Sending": ("0", "$0"),
        "Sent": ("1", "$30"),
        "Paid": ("1", "$40"),
        "Failed": ("1", "$5"),
        "Canceled": ("1", "$7"),
    }
    assert json.dumps(found)  # plain strings for the page


def test_staff_hold_payouts_near_the_tax_threshold_until_the_details_are_on_file(db_url, session, standin):
    from portal.services.admin import tax

    provider, scope = standin.provider(), sessions_of(db_url)
    payer, viewer = person(session, role=roles.TEAM_OWNER), person(session, role=roles.TEAM_MANAGER)
    near, far = person(session), person(session)
    session.commit()
    # $1,700 paid this year and $100 approved: 90% of the $2,000 threshold. The other: $500.
    test = a_test(session)
    _, paid = a_review(session, test, near, status="approved", approved=True, reward_status="EXECUTED", cents=170_000)
    row = fresh(session, Reward, paid.id)
    row.paid_on = utcnow()
    session.add(row)
    session.commit()
    (waiting,) = approved_rewards(session, account=near, cents=10_000)
    approved_rewards(session, account=far, cents=50_000)
    payout_runner.run_round(provider=provider, sessions=scope)  # orders both approved rewards
    session.expire_all()
    (late,) = approved_rewards(session, account=near, cents=1_000)

    listed = tax.near_threshold(session, actor_id=payer.id)
    assert [(r["participant"], r["year_total"], r["paid"], r["standing"]) for r in listed] == [
        (near.email, "$1,810", "$1,700", "90% of the threshold")
    ]
    with pytest.raises(ServiceError):
        tax.near_threshold(session, actor_id=viewer.id)  # staff who may not pay do not see it
    with pytest.raises(ServiceError):
        tax.hold(session, actor_id=near.id, account_id=near.id)

    tax.hold(session, actor_id=payer.id, account_id=str(near.id))
    session.commit()
    with pytest.raises(ServiceError) as twice:
        tax.hold(session, actor_id=payer.id, account_id=near.id)
    assert twice.value.message == tax.HELD_ALREADY
    assert tax.near_threshold(session, actor_id=payer.id)[0]["standing"] == "Payouts held until tax details are on file"
    # Held: the job does not order it, and the participant reads why.
    assert payout_runner.run_round(provider=provider, sessions=scope).ordered == 0
    assert fresh(session, Reward, late.id).payout is None
    page_row = participant_reward_row(session, near.id, late.id)
    assert (page_row["stage"], page_row["stage_detail"]) == ("Held", rules.HELD_DETAIL)
    assert participant_reward_row(session, near.id, waiting.id)["stage"] == "Sent"  # ordered before the hold

    tax.details_on_file(session, actor_id=payer.id, account_id=near.id)
    session.commit()
    assert payout_runner.run_round(provider=provider, sessions=scope).ordered == 1
    assert fresh(session, Reward, late.id).payout == "sent"
    assert [
        a.action for a in session.execute(select(AuditEntry).where(AuditEntry.target_type == "account")).scalars()
    ] == [
        "tax.hold",
        "tax.details-on-file",
    ]


def test_a_reward_on_its_way_through_the_provider_is_never_paid_by_hand_too(db_url, session, standin):
    from portal.services.admin import rewards as staff_rewards

    provider, scope = standin.provider(), sessions_of(db_url)
    owner = person(session, role=roles.TEAM_OWNER)
    session.commit()
    (reward,) = approved_rewards(session)
    payout_runner.run_round(provider=provider, sessions=scope)
    assert fresh(session, Reward, reward.id).payout == "sent"
    for status in (staff_rewards.PAID, staff_rewards.FAILED, staff_rewards.CANCELED):
        with pytest.raises(ServiceError):
            staff_rewards.mark(session=session, actor_id=owner.id, reward_ids=[reward.id], status=status)
    _, csv_text = staff_rewards.payout_csv(session=session, actor_id=owner.id)
    listed = {i for row in csv.DictReader(io.StringIO(csv_text)) for i in row["reward_ids"].split()}
    assert str(reward.id) not in listed
    assert fresh(session, Reward, reward.id).status == "PENDING"
