"""Staff: invite a chosen set of participants to a test, in batches of any size.

A batch is chosen with the participants table's search and filters. Starting it counts who matches,
who is already invited or has reviewed, and records the batch; it is then sent in chunks of CHUNK
participants, each chunk one transaction (invites, their e-mails in the outbox and the batch's
progress commit together; the test row is locked, so two batches for one test never invite the same
person twice). A batch that stops half-way is continued by running it again: nothing is duplicated.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, func, select, update
from sqlmodel import Session

from portal.domain import emails
from portal.domain import invites as invite_rules
from portal.domain import table as table_rules
from portal.domain.reference_data import INVITE_LIFETIME_HOURS
from portal.domain.staff import incentives, roles
from portal.models import Account, Invite, InviteBatch, ParticipantProfile, Review, Test
from portal.models._base import utcnow
from portal.services.admin import audit
from portal.services.admin.guard import require_staff
from portal.services.admin.participants import clean_query as participants_query
from portal.services.admin.participants import conditions_for
from portal.services.errors import ServiceError
from portal.services.outbox import enqueue_email
from portal.services.tables import bound_values
from portal.settings import settings

CHUNK = 500
MAX_BATCH = 20_000
INVITE_HOURS = INVITE_LIFETIME_HOURS
NOT_RUNNING = "Invites can only be sent for a running test."
NO_TEST = "This test does not exist."
NOBODY = "No participant matches: nobody to invite."
QUOTAS_FULL = "The test's quotas are full."
TOO_MANY = f"A batch can invite at most {MAX_BATCH:,} participants; narrow the filters."


@dataclass(frozen=True)
class Audience:
    matched: int  # participants matching the search and filters
    invited: int  # ... already invited to this test
    reviewed: int  # ... who already reviewed it
    to_invite: int  # the rest (before quotas)
    places: int | None  # open places of the test's participant limit (None: no limit)
    payout_range: str  # what the invites pay by the incentive table (or the override)


def _test(session: Session, test_id: Any, *, lock: bool = False) -> Test:
    """The test; with `lock`, its row locked until the transaction ends (one sender per test at a time).

    PostgreSQL locks with SELECT ... FOR UPDATE. SQLite ignores FOR UPDATE, and its driver begins a
    transaction only at the first write, so every read before it sees whatever is committed at that
    moment: two senders could both read the same people as not yet invited, and both invite them. A
    write that changes nothing takes SQLite's write lock first (another sender waits for it), so what is
    read after it includes every invite committed before.
    """
    number = test_id if isinstance(test_id, int) and not isinstance(test_id, bool) else None
    if number and lock and session.get_bind().dialect.name == "sqlite":
        session.execute(update(Test).where(Test.id == number).values(status=Test.status)
                        .execution_options(synchronize_session=False))
    test = session.get(Test, number, with_for_update=lock, populate_existing=lock) if number else None
    if test is None:
        raise ServiceError(NO_TEST)
    return test


def _eligible(session: Session, test_id: int, criteria: Any, values: dict[str, Any]):
    """The accounts matching the criteria that may be invited: active participants with a finished sign-up."""
    query = participants_query(**_criteria(criteria))
    values.update(bound_values(query))
    where = conditions_for(query, values)
    return (
        select(Account.id)
        .outerjoin(ParticipantProfile, ParticipantProfile.account_id == Account.id)
        .where(Account.removed_at.is_(None), Account.staff_role.is_(None), Account.is_registration_complete.is_(True), *where)
    )


def _criteria(raw: Any) -> dict[str, Any]:
    raw = raw if isinstance(raw, dict) else {}
    return {"search": raw.get("search", ""), "filters": raw.get("filters", [])}


def _taken(test_id: int):
    """Accounts already invited to, or with a review of, the test."""
    invited = select(Invite.account_id).where(Invite.test_id == test_id)
    reviewed = select(Review.account_id).where(Review.test_id == test_id, Review.account_id.is_not(None))
    return invited, reviewed


def _places(session: Session, test: Test, now: datetime) -> int | None:
    if test.participant_limit is None:
        return None
    reviews = session.execute(select(func.count()).select_from(Review).where(Review.test_id == test.id)).scalar_one()
    open_invites = session.execute(select(func.count()).select_from(Invite).where(
        Invite.test_id == test.id, Invite.status == "open", Invite.expires_at > now)).scalar_one()
    return max(0, test.participant_limit - reviews - open_invites)


def _level_places(session: Session, test: Test, now: datetime) -> dict[str, int]:
    """Open places per seniority level of the test's seniority limits (reviews and open invites count)."""
    limits = {k: v for k, v in (test.seniority_limits or {}).items() if isinstance(v, int)}
    if not limits:
        return {}
    used = dict.fromkeys(limits, 0)
    holders = select(Review.account_id).where(Review.test_id == test.id).union(
        select(Invite.account_id).where(Invite.test_id == test.id, Invite.status == "open", Invite.expires_at > now))
    for (levels,) in session.execute(select(ParticipantProfile.experience_levels).where(ParticipantProfile.account_id.in_(holders))):
        for level in levels or ():
            if level in used:
                used[level] += 1
                break
    return {level: max(0, limit - used[level]) for level, limit in limits.items()}


def audience(*, session: Session, actor_id: int, test_id: Any, criteria: Any, override_cents: Any = None,
             now: datetime | None = None) -> Audience:
    require_staff(session, actor_id, roles.INVITE)
    test = _test(session, test_id)
    now = now or utcnow()
    values: dict[str, Any] = {}
    eligible = _eligible(session, test.id, criteria, values).subquery()
    invited, reviewed = _taken(test.id)
    # The three counts in one reading of the matching participants (three statements read them three times).
    matched, already_invited, already_reviewed = session.execute(select(
        func.count(),
        func.count().filter(eligible.c.id.in_(invited)),
        func.count().filter(and_(eligible.c.id.in_(reviewed), eligible.c.id.not_in(invited))),
    ).select_from(eligible), values).one()
    return Audience(matched=matched, invited=already_invited, reviewed=already_reviewed,
                    to_invite=matched - already_invited - already_reviewed, places=_places(session, test, now),
                    payout_range=payout_text(test, override_cents, now))


def payout_text(test: Test, override_cents: Any, now: datetime) -> str:
    if isinstance(override_cents, int) and not isinstance(override_cents, bool):
        return table_rules.format_money(override_cents)
    day = incentives.day_of(test.launched_at, now)
    amounts = sorted({incentives.payout_cents(test.product_type, [level], day) for level in incentives.LEVELS})
    label = "day 1" if day == incentives.DAY1 else "day 2"
    low, high = table_rules.format_money(amounts[0]), table_rules.format_money(amounts[-1])
    return f"{low} – {high} by seniority ({label} rates)" if low != high else f"{low} ({label} rate)"


def start_batch(*, session: Session, actor_id: int, test_id: Any, criteria: Any, override_cents: Any = None,
                now: datetime | None = None) -> InviteBatch:
    """Record a batch (who it is for, the override) and its audit row; `run_chunk` then sends it."""
    staff = require_staff(session, actor_id, roles.INVITE)
    problem = incentives.override_problem(override_cents)
    if problem:
        raise ServiceError(problem, field="payout")
    test = _test(session, test_id)
    if test.status != "running":
        raise ServiceError(NOT_RUNNING)
    found = audience(session=session, actor_id=actor_id, test_id=test.id, criteria=criteria, now=now)
    if found.to_invite <= 0:
        raise ServiceError(NOBODY)
    if found.to_invite > MAX_BATCH:
        raise ServiceError(TOO_MANY)
    query = participants_query(**_criteria(criteria))
    batch = InviteBatch(
        test_id=test.id, created_by_id=staff.account_id, amount_override_cents=override_cents,
        criteria={"search": query.search, "filters": [{"name": f.name, "type": f.type, "values": list(f.values)} for f in query.filters]},
        requested=found.to_invite,
    )
    session.add(batch)
    session.flush()
    audit.record(session, staff, "invites.send", "test", test.id, {},
                 {"batch": batch.id, "participants": found.to_invite, "override_cents": override_cents,
                  "criteria": batch.criteria})
    return batch_view(batch)


def run_chunk(*, session: Session, actor_id: int, batch_id: Any, now: datetime | None = None) -> dict[str, Any]:
    """Send the next chunk of a batch in this transaction (see _chunk); the batch's progress."""
    return batch_view(_chunk(session, actor_id, batch_id, now))


def _chunk(session: Session, actor_id: int, batch_id: Any, now: datetime | None) -> InviteBatch:
    """Send the next chunk of a batch in this transaction; the batch is 'done' when nobody is left."""
    staff = require_staff(session, actor_id, roles.INVITE)
    batch = session.get(InviteBatch, batch_id) if isinstance(batch_id, int) and not isinstance(batch_id, bool) else None
    if batch is None or batch.status != "running" or batch.created_by_id != staff.account_id:
        raise ServiceError("This batch is not being sent.")
    test = _test(session, batch.test_id, lock=True)  # one sender per test at a time: no duplicate
    session.refresh(batch)  # as the sender before left it (its counts), read after the lock
    if batch.status != "running":
        raise ServiceError("This batch is not being sent.")
    now = now or utcnow()
    if test.status != "running":
        return _finish(session, batch, now, NOT_RUNNING)
    places = _places(session, test, now)
    level_places = _level_places(session, test, now)
    day = incentives.day_of(test.launched_at, now)
    label = invite_rules.product_type_label(test.product_type)
    values: dict[str, Any] = {}
    invited, reviewed = _taken(test.id)
    eligible = _eligible(session, test.id, batch.criteria, values).where(Account.id.not_in(invited), Account.id.not_in(reviewed))
    # Participants over a seniority quota are skipped but stay candidates, so every chunk looks from the
    # first candidate on and reads past the skipped ones until it has sent CHUNK invites or nobody is left
    # (reading only the first CHUNK candidates stopped a batch whose first CHUNK were all over a quota,
    # leaving the participants after them uninvited).
    sent = skipped = 0
    after = 0
    full = False  # the test's participant limit is reached: nobody more can be invited
    exhausted = False
    while sent < CHUNK and not full:
        chosen = session.execute(
            select(Account.id, ParticipantProfile.experience_levels, Account.email)
            .outerjoin(ParticipantProfile, ParticipantProfile.account_id == Account.id)
            .where(Account.id.in_(eligible), Account.id > after).order_by(Account.id).limit(CHUNK), values
        ).all()
        if not chosen:
            exhausted = True
            break
        for account_id, levels, email in chosen:
            if sent >= CHUNK:
                break
            after = account_id
            if places is not None and places <= 0:
                skipped += 1
                full = True
                break
            level = next((lvl for lvl in levels or () if lvl in level_places), None)
            if level is not None and level_places[level] <= 0:
                skipped += 1
                continue
            cents = batch.amount_override_cents or incentives.payout_cents(test.product_type, levels or (), day)
            session.add(Invite(account_id=account_id, test_id=test.id, status="open", amount_cents=cents,
                               created_at=now, expires_at=now + timedelta(hours=INVITE_HOURS), batch_id=batch.id))
            if email:
                message = emails.test_invite(brand=settings.brand_name, test_label=label, payout=table_rules.format_money(cents),
                                             link=f"{settings.base_url}{invite_rules.rating_path(test.id)}", hours=INVITE_HOURS)
                enqueue_email(session=session, to=email, subject=message.subject, body=message.body, kind="invite")
            sent += 1
            if places is not None:
                places -= 1
            if level is not None:
                level_places[level] -= 1
    batch.sent += sent
    batch.skipped = skipped  # this chunk read every skipped candidate again: its count is the batch's
    if full or exhausted:  # the participant limit is reached, or nobody is left
        return _finish(session, batch, now, "" if sent or not skipped else QUOTAS_FULL)
    session.add(batch)
    return batch


def _finish(session: Session, batch: InviteBatch, now: datetime, error: str = "") -> InviteBatch:
    batch.status = "failed" if error and batch.sent == 0 else "done"
    batch.error = error or None
    batch.finished_at = now
    if batch.sent + batch.skipped < batch.requested and (batch.status == "done" or error == QUOTAS_FULL):
        batch.skipped = batch.requested - batch.sent
    session.add(batch)
    return batch


def batch_view(batch: InviteBatch) -> dict[str, Any]:
    return {"id": batch.id, "requested": batch.requested, "sent": batch.sent, "skipped": batch.skipped,
            "status": batch.status, "error": batch.error or ""}


def send_all(*, session_factory: Any, actor_id: int, batch_id: int, on_progress: Any = None) -> dict[str, Any]:
    """Run every chunk, one transaction each (tests and benchmarks; the page runs chunks one by one)."""
    while True:
        with session_factory() as session:
            batch = run_chunk(session=session, actor_id=actor_id, batch_id=batch_id)
            session.commit()
        if on_progress:
            on_progress(batch)
        if batch["status"] != "running":
            return batch


__all__ = ["Audience", "CHUNK", "audience", "batch_view", "run_chunk", "send_all", "start_batch"]
