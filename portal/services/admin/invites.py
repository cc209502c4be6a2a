"""Staff: invite a chosen set of participants to a test, in batches of any size.

A batch is chosen with the participants table's search and filters, or by picking rows. Who it invites
is one rule (portal/domain/staff/invite_rule.py): `_conditions` holds its database side, `_walk` and the
domain's `Quotas` its order and quotas; the invite page's counts and cost (`audience`) and the sender
(`_chunk`) both go through them, so the page never promises what the sender will not do.

Starting a batch takes the test's write lock, counts, and records the batch with its audit row; the
same request again while that batch runs (a double click, a second tab, 50 identical events) changes
nothing and is answered with the running batch (`joined`). The batch is then sent in chunks of CHUNK
participants, each chunk one transaction under the same lock (invites, their e-mails in the outbox and
the batch's progress commit together), so two senders never invite one person twice. A batch that stops
half-way is continued by starting it again: nothing is duplicated.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Row, String, and_, cast, func, insert, not_, select, true
from sqlmodel import Session

from portal.domain import emails
from portal.domain import invites as invite_rules
from portal.domain import notifications as notification_rules
from portal.domain import table as table_rules
from portal.domain.geography import country_name
from portal.domain.reference_data import INVITE_LIFETIME_HOURS
from portal.domain.staff import incentives, roles
from portal.domain.staff import invite_rule as rule
from portal.models import Account, Invite, InviteBatch, ParticipantProfile, Review, Test
from portal.models._base import utcnow
from portal.services import notifications, row_locks
from portal.services.admin import audit, participant_sets
from portal.services.admin.guard import Caller, require_staff
from portal.services.errors import ServiceError
from portal.settings import settings

CHUNK = 500
MAX_BATCH = 20_000
MAX_PICKED = participant_sets.MAX_PICKED
WALK_PAGE = 2000
INVITE_HOURS = INVITE_LIFETIME_HOURS
NOT_RUNNING = "Invites can only be sent for a running test."
NO_TEST = "This test does not exist."
NOBODY = "No participant matches: nobody to invite."
NOBODY_PICKED = "None of the selected participants can be invited."
QUOTAS_FULL = "The test's quotas are full."
TOO_MANY = f"A batch can invite at most {MAX_BATCH:,} participants; narrow the filters."
TOO_MANY_PICKED = participant_sets.TOO_MANY_PICKED
ALREADY_SENDING = "These invites are already being sent (another tab or a double click): nothing was sent twice."


@dataclass(frozen=True)
class Audience:
    matched: int  # participants matching the search and filters (or picked), staff and inactive accounts aside
    invited: int  # ... already invited to this test
    reviewed: int  # ... who already reviewed it
    excluded: int  # ... who took a test within the test's exclusion window
    to_invite: int  # who a batch would invite now: the rule's every condition, quotas included
    places: int | None  # open places of the test's participant limit (None: no limit)
    payout_range: str  # what the invites pay by the incentive table (or the override)
    unverified: int = 0  # ... not verified
    elsewhere: int = 0  # ... not in the test's audience country
    over_quota: int = 0  # ... who would exceed the participant limit or their level's limit
    cost_cents: int = 0  # what the invites to_invite pay together
    picked: int = 0  # rows picked by hand (0: the search and filters choose)
    country: str = ""  # the test's audience country, by name
    problem: str = ""  # who cannot be invited, and why ('' when everyone can)

    @property
    def cost_text(self) -> str:
        return table_rules.format_money(self.cost_cents) or "$0"


def _test(session: Session, test_id: Any, *, lock: bool = False) -> Test:
    """The test; with `lock`, its row locked until the transaction ends (one sender per test at a time).

    (portal/services/row_locks.py: on SQLite too, so two senders never both read the same people as not
    yet invited.)
    """
    number = test_id if isinstance(test_id, int) and not isinstance(test_id, bool) else None
    if not number:
        raise ServiceError(NO_TEST)
    test = row_locks.locked(session, Test, number) if lock else session.get(Test, number)
    if test is None:
        raise ServiceError(NO_TEST)
    return test


def _exclusion(test: Test, now: datetime) -> Any:
    """Nobody who submitted a review of any test within the test's exclusion window (every one for 'all')."""
    if not rule.excludes(test.exclusion_days):
        return true()
    took = select(Review.account_id).where(Review.account_id.is_not(None))
    since = rule.window_start(test.exclusion_days, now)
    if since is not None:
        took = took.where(Review.created_at >= since)
    return Account.id.not_in(took)


def _conditions(test: Test, now: datetime) -> dict[str, Any]:
    """The database side of the invite rule (domain/staff/invite_rule.py), one condition per reason, in its order."""
    invited = select(Invite.account_id).where(Invite.test_id == test.id)
    reviewed = select(Review.account_id).where(Review.test_id == test.id, Review.account_id.is_not(None))
    return {
        rule.INVITED: Account.id.not_in(invited),
        rule.REVIEWED: Account.id.not_in(reviewed),
        rule.EXCLUDED: _exclusion(test, now),
        # As the access rules ask: the verified flag, and a confirmed personal e-mail (a finished sign-up is asked
        # above).
        rule.UNVERIFIED: and_(Account.verified.is_(True), Account.email_verified_at.is_not(None)),
        rule.ELSEWHERE: func.coalesce(ParticipantProfile.country, "") == test.audience_country,
    }


def _walk(session: Session, where: list[Any], values: dict[str, Any]) -> Iterator[Row[*tuple[Any, ...]]]:
    """(account id, seniority levels, e-mail) of everyone the rule lets in before quotas, in id order, a page at a
    time."""
    after = 0
    while True:
        page = session.execute(
            participant_sets.people(Account.id, ParticipantProfile.experience_levels, Account.email)
            .where(*where, Account.id > after)
            .order_by(Account.id)
            .limit(WALK_PAGE),
            values,
        ).all()
        yield from page
        if len(page) < WALK_PAGE:
            return
        after = page[-1][0]


def _places(session: Session, test: Test, now: datetime) -> int | None:
    if test.participant_limit is None:
        return None
    reviews = session.execute(select(func.count()).select_from(Review).where(Review.test_id == test.id)).scalar_one()
    open_invites = session.execute(
        select(func.count())
        .select_from(Invite)
        .where(Invite.test_id == test.id, Invite.status == "open", Invite.expires_at > now)
    ).scalar_one()
    return rule.open_places(test.participant_limit, reviews + open_invites)


def _level_places(session: Session, test: Test, now: datetime) -> dict[str, int]:
    """Open places per seniority level of the test's seniority limits (reviews and open invites count)."""
    limits = rule.level_room(test.seniority_limits, {})
    if not limits:
        return {}
    used: dict[str, int] = {}
    holders = (
        select(Review.account_id)
        .where(Review.test_id == test.id)
        .union(
            select(Invite.account_id).where(Invite.test_id == test.id, Invite.status == "open", Invite.expires_at > now)
        )
    )
    for (levels,) in session.execute(
        select(ParticipantProfile.experience_levels).where(ParticipantProfile.account_id.in_(holders))
    ):
        level = rule.quota_holder_level(levels, limits)
        if level is not None:
            used[level] = used.get(level, 0) + 1
    return rule.level_room(test.seniority_limits, used)


def _quotas(session: Session, test: Test, now: datetime) -> rule.Quotas:
    return rule.Quotas(places=_places(session, test, now), level_places=_level_places(session, test, now))


def _levels(text: Any) -> list[str]:
    try:
        value = json.loads(text) if isinstance(text, str) else text
    except ValueError:
        return []
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _plan(
    session: Session,
    test: Test,
    where: list[Any],
    values: dict[str, Any],
    quotas: rule.Quotas,
    day: str,
    override: int | None,
) -> rule.Plan:
    """Who a batch would invite now and what it would cost: the sender's own walk and quotas, without writing.
    A test without quotas invites everyone the rule lets in, whatever the order: counted by seniority in SQL."""
    if quotas.places is None and not quotas.level_places:
        levels = cast(ParticipantProfile.experience_levels, String)
        found = session.execute(
            participant_sets.people(levels, func.count()).where(*where).group_by(levels), values
        ).all()
        return _plan_by_levels(test, found, day, override)
    plan = rule.Plan()
    for _account_id, levels, _email in _walk(session, where, values):
        if quotas.full:
            plan.over_quota += 1  # counted, not read further: the rest are all over the limit
            break
        if quotas.admit(levels):
            plan.add(rule.invite_cents(test.product_type, levels, day, override))
        else:
            plan.over_quota += 1
    return plan


def _plan_by_levels(test: Test, counts: Any, day: str, override: int | None) -> rule.Plan:
    """A test without quotas: everyone the rule lets in, from (seniority levels as text, how many) pairs."""
    plan = rule.Plan()
    for text, count in counts:
        plan.count += count
        plan.cents += count * rule.invite_cents(test.product_type, _levels(text), day, override)
    return plan


def _valid_override(override_cents: Any) -> int | None:
    return (
        override_cents
        if isinstance(override_cents, int)
        and not isinstance(override_cents, bool)
        and not incentives.override_problem(override_cents)
        else None
    )


def audience(
    session: Session,
    *,
    actor_id: Caller,
    test_id: Any,
    criteria: Any,
    override_cents: Any = None,
    now: datetime | None = None,
) -> Audience:
    """The invite page's figures: who matches, why some will not be invited, who will, and what it costs."""
    require_staff(session, actor_id, roles.INVITE)
    test = _test(session, test_id)
    now = now or utcnow()
    chosen = participant_sets.criteria(criteria)
    values: dict[str, Any] = {}
    matching = participant_sets.matching(chosen, values)
    conditions = list(_conditions(test, now).items())
    quotas = _quotas(session, test, now)
    places = quotas.places  # before the plan takes its places
    override = _valid_override(override_cents)
    day = incentives.day_of(test.launched_at, now)
    # Everyone matching, who fails each condition first, and who passes them all, by seniority: one reading of
    # the matching participants (a test without quotas is planned from it, the sender's rule in SQL).
    levels = cast(ParticipantProfile.experience_levels, String)
    rows = session.execute(
        participant_sets.people(
            levels,
            func.count(),
            *(
                func.count().filter(and_(True, *(c for _, c in conditions[:i]), not_(condition)))
                for i, (_reason, condition) in enumerate(conditions)
            ),
            func.count().filter(and_(True, *(c for _, c in conditions))),
        )
        .where(*matching)
        .group_by(levels),
        values,
    ).all()
    matched = sum(row[1] for row in rows)
    failing = {reason: sum(row[2 + i] for row in rows) for i, (reason, _) in enumerate(conditions)}
    if places is None and not quotas.level_places:
        plan = _plan_by_levels(test, [(row[0], row[-1]) for row in rows if row[-1]], day, override)
    else:
        plan = _plan(session, test, [*matching, *(c for _, c in conditions)], values, quotas, day, override)
    eligible = matched - sum(failing.values())
    over_quota = eligible - plan.count
    picked = len(chosen.get("ids", []))
    country = country_name(test.audience_country) or test.audience_country
    reasons = {**failing, rule.OVER_QUOTA: over_quota, rule.NOT_A_PARTICIPANT: max(0, picked - matched)}
    return Audience(
        matched=matched,
        invited=failing[rule.INVITED],
        reviewed=failing[rule.REVIEWED],
        excluded=failing[rule.EXCLUDED],
        to_invite=plan.count,
        places=places,
        payout_range=payout_text(test, override_cents, now),
        unverified=failing[rule.UNVERIFIED],
        elsewhere=failing[rule.ELSEWHERE],
        over_quota=over_quota,
        cost_cents=plan.cents,
        picked=picked,
        country=country,
        problem=rule.cannot_invite_text(reasons, country, picked=picked, window=test.exclusion_days),
    )


def payout_text(test: Test, override_cents: Any, now: datetime) -> str:
    if isinstance(override_cents, int) and not isinstance(override_cents, bool):
        return table_rules.format_money(override_cents)
    day = incentives.day_of(test.launched_at, now)
    amounts = sorted({incentives.payout_cents(test.product_type, [level], day) for level in incentives.LEVELS})
    label = "day 1" if day == incentives.DAY1 else "day 2"
    low, high = table_rules.format_money(amounts[0]), table_rules.format_money(amounts[-1])
    return f"{low} – {high} by seniority ({label} rates)" if low != high else f"{low} ({label} rate)"


def start_batch(
    session: Session,
    *,
    actor_id: Caller,
    test_id: Any,
    criteria: Any,
    override_cents: Any = None,
    now: datetime | None = None,
) -> dict[str, Any]:
    """Record a batch (who it is for, the override) and its audit row; `run_chunk` then sends it.

    Under the test's write lock: the same request again while its batch runs returns that batch marked
    `joined` (no second batch, no second audit row), so 50 identical requests start one batch."""
    staff = require_staff(session, actor_id, roles.INVITE)
    problem = incentives.override_problem(override_cents)
    if problem:
        raise ServiceError(problem, field="payout")
    chosen = participant_sets.criteria(criteria)
    test = _test(session, test_id, lock=True)
    if test.status != "running":
        raise ServiceError(NOT_RUNNING)
    running = (
        session.execute(
            select(InviteBatch)
            .where(
                InviteBatch.test_id == test.id,
                InviteBatch.status == "running",
                InviteBatch.created_by_id == staff.account_id,
            )
            .order_by(InviteBatch.id)
        )
        .scalars()
        .all()
    )
    for batch in running:
        if batch.criteria == chosen and batch.amount_override_cents == override_cents:
            return {**batch_view(batch), "joined": True}
    found = audience(
        session=session, actor_id=actor_id, test_id=test.id, criteria=chosen, override_cents=override_cents, now=now
    )
    if found.to_invite <= 0:
        raise ServiceError(QUOTAS_FULL if found.over_quota else (NOBODY_PICKED if found.picked else NOBODY))
    if found.to_invite > MAX_BATCH:
        raise ServiceError(TOO_MANY)
    batch = InviteBatch(
        test_id=test.id,
        created_by_id=staff.account_id,
        amount_override_cents=override_cents,
        criteria=chosen,
        requested=found.to_invite,
    )
    session.add(batch)
    session.flush()
    audit.record(
        session,
        staff,
        "invites.send",
        "test",
        test.id,
        {},
        {
            "batch": batch.id,
            "participants": found.to_invite,
            "cost_cents": found.cost_cents,
            "override_cents": override_cents,
            "criteria": batch.criteria,
        },
    )
    return {**batch_view(batch), "joined": False, "problem": found.problem}


def run_chunk(session: Session, *, actor_id: Caller, batch_id: Any, now: datetime | None = None) -> dict[str, Any]:
    """Send the next chunk of a batch in this transaction (see _chunk); the batch's progress."""
    return batch_view(_chunk(session, actor_id, batch_id, now))


def _chunk(session: Session, actor_id: Caller, batch_id: Any, now: datetime | None) -> InviteBatch:
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
    quotas = _quotas(session, test, now)
    day = incentives.day_of(test.launched_at, now)
    values: dict[str, Any] = {}
    where = [
        *participant_sets.matching(participant_sets.criteria(batch.criteria), values),
        *_conditions(test, now).values(),
    ]
    # Participants over a seniority quota are skipped but stay candidates, so every chunk walks from the
    # first candidate on, past the skipped ones, until it has sent CHUNK invites or nobody is left.
    sent = skipped = 0
    full = exhausted = False
    chosen: list[tuple[int, str, int]] = []  # (account id, e-mail, cents) of who this chunk invites
    walk = _walk(session, where, values)
    while sent < CHUNK:
        found = next(walk, None)
        if found is None:
            exhausted = True
            break
        account_id, levels, email = found
        if quotas.full:  # the test's participant limit is reached: nobody more can be invited
            skipped += 1
            full = True
            break
        if not quotas.admit(levels):
            skipped += 1
            continue
        cents = rule.invite_cents(test.product_type, levels, day, batch.amount_override_cents)
        chosen.append((account_id, email or "", cents))
        sent += 1
    _invite(session, test, batch, chosen, now)
    batch.sent += sent
    batch.skipped = skipped  # this chunk read every skipped candidate again: its count is the batch's
    if full or exhausted:  # the participant limit is reached, or nobody is left
        return _finish(session, batch, now, "" if sent or not skipped else QUOTAS_FULL)
    session.add(batch)
    return batch


def _invite(
    session: Session, test: Test, batch: InviteBatch, chosen: list[tuple[int, str, int]], now: datetime
) -> None:
    """Insert the chunk's invites and queue their notifications, in bulk (one statement each, not one ORM object a
    person: a batch of 10,000 is queued in seconds, bench/invite_notifications.py)."""
    if not chosen:
        return
    expires = now + timedelta(hours=INVITE_HOURS)
    ids: dict[int, int] = dict(  # (account id, invite id) pairs; a Result has keys(): listed first
        list(
            session.execute(
                insert(Invite).returning(Invite.account_id, Invite.id),
                [
                    {
                        "account_id": account_id,
                        "test_id": test.id,
                        "status": "open",
                        "amount_cents": cents,
                        "created_at": now,
                        "expires_at": expires,
                        "batch_id": batch.id,
                    }
                    for account_id, _email, cents in chosen
                ],
            ).tuples()
        )
    )
    label = invite_rules.product_type_label(test.product_type)
    link = f"{settings.base_url}{invite_rules.rating_path(test.id)}"
    settings_link = notifications.settings_link()
    pending = [
        notifications.Pending(
            account_id,
            email,
            notification_rules.subject_key("invite", ids[account_id]),
            emails.test_invite(
                brand=settings.brand_name,
                test_label=label,
                payout=table_rules.format_money(cents),
                link=link,
                hours=INVITE_HOURS,
                minutes=test.session_seconds // 60,
                settings_link=settings_link,
            ),
            link,
        )
        for account_id, email, cents in chosen
        if email
    ]
    notifications.send(session, "invite", pending, now=now)


def _finish(session: Session, batch: InviteBatch, now: datetime, error: str = "") -> InviteBatch:
    """The batch ends; `skipped` is then who was counted at its start but not invited (a quota filled, someone
    was invited by another batch, verified no more ... meanwhile)."""
    batch.status = "failed" if error and batch.sent == 0 else "done"
    batch.error = error or None
    batch.finished_at = now
    batch.skipped = max(0, batch.requested - batch.sent)
    session.add(batch)
    return batch


def batch_view(batch: InviteBatch) -> dict[str, Any]:
    return {
        "id": batch.id,
        "requested": batch.requested,
        "sent": batch.sent,
        "skipped": batch.skipped,
        "status": batch.status,
        "error": batch.error or "",
    }


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
