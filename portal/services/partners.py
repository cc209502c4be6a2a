"""The partner platforms' round trips (issue 39, item 5): who arrives from a partner, what they are told at the end,
and the reports owed to the partners.

The rating page calls `admit()` with the link's query before its access decision: the server checks the link (the
research service's `isInvited`, the panel's signature) and keeps a `PartnerEntry` whose random token goes to that
browser only. The browser's first entry of the test hands the token back with its respondent key (`bind`); from
then on `admitted()` tells the access decision that this respondent key came through a verified partner link (the
browser never says so itself). A submission calls `on_submitted()` in its own transaction: the crowd-work
completion code, the partner's outcome and the report owed (a `PartnerCallback` row, delivered by
portal/services/partner_sender.py with retries and `Idempotency-Key: partner-callback-<id>`).
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlmodel import Session, select, update

from portal.domain import partners as rules
from portal.models import PartnerCallback, PartnerEntry, Review, Test
from portal.models._base import utcnow
from portal.services.providers.partners import PartnerError, panel_exchange, research_service

log = logging.getLogger(__name__)

# Partners whose verified link admits a respondent without an account (crowd-work opens only public tests).
ADMITTING = (rules.RESPONDENT, rules.PANEL)


@dataclass(frozen=True)
class Admission:
    """What the rating page learns from a link. `partner` None: the link names no partner. `refused_text`: the
    page shows this instead of the test (nothing is stored). `token`: handed to this browser for its entry."""

    partner: str | None = None
    token: str = ""
    admitted: bool = False
    refused_title: str = ""
    refused_text: str = ""
    # A panel respondent (rid) whose visit to this test already ended: straight back to the exchange, as it ended.
    exit_url: str = ""

    @property
    def refused(self) -> bool:
        return bool(self.refused_text)


def _query(query: Mapping[str, Any]) -> dict[str, str]:
    return {str(k): v for k, v in query.items() if isinstance(v, str)}


def admit(
    session: Session, *, test_id: int, query: Mapping[str, Any], path: str, now: datetime | None = None
) -> Admission:
    """Check a rating link of test `test_id` (its `path` and `query`) for a visitor without an account."""
    params = _query(query)
    arrival = rules.arrival(params)
    if arrival is None or session.get(Test, test_id) is None:
        return Admission()
    if arrival.partner == rules.PANEL:
        return _admit_panel(session, test_id, arrival, path, params, now)
    if arrival.partner == rules.RESPONDENT:
        return _admit_respondent(session, test_id, arrival, now)
    if not _public(session, test_id):  # crowd-work opens only public tests: nothing to record for this one
        return Admission(partner=rules.CROWD_WORK)
    entry = _entry(session, test_id, arrival, now)
    return Admission(partner=rules.CROWD_WORK, token=entry.token)


def _public(session: Session, test_id: int) -> bool:
    from portal.services.taking.loading import qualifications  # the taking package imports this module

    return qualifications(session, test_id)[1]


def _refuse(partner: str, text: str, title: str = "") -> Admission:
    return Admission(partner=partner, refused_title=title, refused_text=text)


def _admit_panel(
    session: Session, test_id: int, arrival: rules.Arrival, path: str, params: dict[str, str], now: datetime | None
) -> Admission:
    exchange = panel_exchange()
    if arrival.malformed:
        return _refuse(rules.PANEL, rules.MSG_BAD_PARAMS, rules.MSG_BAD_LINK_TITLE)
    if exchange is None or arrival.panel != exchange.name:
        return _refuse(rules.PANEL, rules.MSG_UNKNOWN_PANEL, rules.MSG_BAD_LINK_TITLE)
    if not exchange.verify_entry(path, params):
        log.warning("panel entry for test %s refused: bad signature", test_id)
        return _refuse(rules.PANEL, rules.MSG_BAD_SIGNATURE, rules.MSG_BAD_LINK_TITLE)
    ended = session.exec(
        select(PartnerEntry)
        .where(
            PartnerEntry.test_id == test_id,
            PartnerEntry.partner == rules.PANEL,
            PartnerEntry.panel == arrival.panel,
            PartnerEntry.rid == arrival.rid,
            PartnerEntry.outcome.is_not(None),
        )
        .limit(1)
    ).first()
    if ended is not None and ended.outcome is not None:  # the link used again: no second visit, no second report
        return Admission(partner=rules.PANEL, exit_url=_exit_url(ended, ended.outcome) or "")
    entry = _entry(session, test_id, arrival, now)
    return Admission(partner=rules.PANEL, token=entry.token, admitted=True)


def _admit_respondent(session: Session, test_id: int, arrival: rules.Arrival, now: datetime | None) -> Admission:
    if arrival.malformed or arrival.project_id is None or arrival.screener_response_id is None:
        return _refuse(rules.RESPONDENT, rules.MSG_BAD_PARAMS)
    service = research_service()
    if service is None:
        return _refuse(rules.RESPONDENT, rules.MSG_RESPONDENT_DOWN)
    try:
        check = service.check_participant(
            project_id=arrival.project_id, screener_response_id=arrival.screener_response_id
        )
    except PartnerError as err:
        log.warning("research service check for test %s failed: %s", test_id, err.message)
        return _refuse(rules.RESPONDENT, rules.MSG_RESPONDENT_DOWN)
    if not check.invited:
        return _refuse(rules.RESPONDENT, rules.refusal_text(check))
    entry = _entry(session, test_id, arrival, now, data=check.data)
    return Admission(partner=rules.RESPONDENT, token=entry.token, admitted=True)


def _entry(
    session: Session, test_id: int, arrival: rules.Arrival, now: datetime | None, data: dict[str, Any] | None = None
) -> PartnerEntry:
    entry = PartnerEntry(
        partner=arrival.partner,
        test_id=test_id,
        token=secrets.token_hex(16),
        project_id=arrival.project_id,
        screener_response_id=arrival.screener_response_id,
        assignment_id=arrival.assignment_id,
        worker_id=arrival.worker_id,
        hit_id=arrival.hit_id,
        submit_to=arrival.submit_to,
        panel=arrival.panel,
        rid=arrival.rid,
        data=data or {},
        created_at=now or utcnow(),
    )
    session.add(entry)
    session.flush()
    return entry


def bind(session: Session, *, test_id: int, token: str, respondent: str) -> bool:
    """The browser's first entry with the token its page got: the entry now belongs to this respondent key (an
    entry already bound to another key stays theirs). A respondent of the research service must carry the
    entry's project id in their key. Whether the entry is this respondent's."""
    from portal.services.taking.review_sessions import PUBLIC_KEY  # the taking package imports this module

    if not isinstance(token, str) or len(token) != 32 or not PUBLIC_KEY.match(respondent or ""):
        return False
    entry = session.exec(
        select(PartnerEntry).where(PartnerEntry.token == token, PartnerEntry.test_id == test_id)
    ).first()
    if entry is None:
        return False
    if entry.partner == rules.RESPONDENT and not respondent.startswith(f"respondent:{entry.project_id}:"):
        return False
    if entry.respondent_key is None:
        session.exec(
            update(PartnerEntry)
            .where(PartnerEntry.id == entry.id, PartnerEntry.respondent_key.is_(None))
            .values(respondent_key=respondent)
        )
        session.flush()
        session.refresh(entry)
    return entry.respondent_key == respondent


def _newest(session: Session, test_id: int, respondent: str, partners: tuple[str, ...]) -> PartnerEntry | None:
    return session.exec(
        select(PartnerEntry)
        .where(
            PartnerEntry.test_id == test_id,
            PartnerEntry.respondent_key == respondent,
            PartnerEntry.partner.in_(partners),
        )
        .order_by(PartnerEntry.id.desc())
        .limit(1)
    ).first()


def admitted(session: Session, *, test_id: int, respondent: str | None) -> bool:
    """Whether this respondent key (no account) came to this test through a verified partner link."""
    if not respondent:
        return False
    return _newest(session, test_id, respondent, ADMITTING) is not None


@dataclass(frozen=True)
class Finish:
    """What the participant gets after submitting: a crowd-work completion code, a panel's exit URL."""

    completion_code: str | None = None
    exit_url: str | None = None


def _enqueue(session: Session, entry: PartnerEntry, outcome: str, now: datetime | None = None) -> None:
    payload = rules.callback_payload(
        partner=entry.partner,
        outcome=outcome,
        entry={
            "project_id": entry.project_id,
            "screener_response_id": entry.screener_response_id,
            "panel": entry.panel,
            "rid": entry.rid,
        },
        test_id=entry.test_id,
    )
    when = now or utcnow()
    session.add(
        PartnerCallback(
            partner=entry.partner,
            entry_id=entry.id,
            outcome=outcome,
            payload=payload,
            created_at=when,
            next_attempt_at=when,
        )
    )


def _conclude(session: Session, entry: PartnerEntry, outcome: str, review_id: int | None, now: datetime | None) -> bool:
    """Set the entry's outcome once (a write naming the unset outcome) and owe the partner its report."""
    values: dict[str, Any] = {"outcome": outcome}
    if review_id is not None:
        values["review_id"] = review_id
    moved = session.exec(
        update(PartnerEntry).where(PartnerEntry.id == entry.id, PartnerEntry.outcome.is_(None)).values(**values)
    )
    if moved.rowcount != 1:
        return False
    _enqueue(session, entry, outcome, now)
    return True


def _exit_url(entry: PartnerEntry, outcome: str) -> str | None:
    exchange = panel_exchange()
    if exchange is None or entry.rid is None:
        return None
    return exchange.exit_to(outcome=outcome, rid=entry.rid, test_id=entry.test_id)


def on_submitted(session: Session, *, test: Test, review: Review, now: datetime | None = None) -> Finish:
    """A review was just stored (in the submission's transaction): a crowd-work respondent's completion code, the
    partner entry's outcome 'complete' and the report owed, and a panel's exit URL."""
    if review.account_id is not None:
        return Finish()
    entry = _newest(session, test.id, review.respondent_key, rules.PARTNERS)
    code = None
    if test.panel == "mturk" or (entry is not None and entry.partner == rules.CROWD_WORK):
        code = rules.new_completion_code()
        review.survey_code = code
        if entry is not None and entry.partner == rules.CROWD_WORK:
            extra = {"assignmentId": entry.assignment_id, "hitId": entry.hit_id, "mturkWorkerId": entry.worker_id}
            review.worker_data = {**review.worker_data, **{k: v for k, v in extra.items() if v}}
        session.add(review)
        session.flush()
    if entry is None:
        return Finish(completion_code=code)
    if entry.partner == rules.CROWD_WORK:
        session.exec(update(PartnerEntry).where(PartnerEntry.id == entry.id).values(review_id=review.id))
        return Finish(completion_code=code)
    _conclude(session, entry, rules.COMPLETE, review.id, now)
    return Finish(
        completion_code=code, exit_url=_exit_url(entry, rules.COMPLETE) if entry.partner == rules.PANEL else None
    )


def finish_of(session: Session, review: Review) -> Finish:
    """The same Finish for a review stored earlier (a repeated submission)."""
    entry = session.exec(select(PartnerEntry).where(PartnerEntry.review_id == review.id)).first()
    exit_url = _exit_url(entry, entry.outcome or rules.COMPLETE) if entry and entry.partner == rules.PANEL else None
    return Finish(completion_code=review.survey_code, exit_url=exit_url)


def conclude_blocked(session: Session, *, token: str, state: str, now: datetime | None = None) -> str | None:
    """A panel entrant the rating page blocks (the test is full): the outcome is reported and the signed exit URL
    returned (None when the state has no outcome or the token names no panel entry)."""
    outcome = rules.outcome_for_state(state)
    entry = session.exec(select(PartnerEntry).where(PartnerEntry.token == token)).first() if token else None
    if outcome is None or entry is None or entry.partner != rules.PANEL:
        return None
    _conclude(session, entry, outcome, None, now)
    return _exit_url(entry, entry.outcome or outcome)


def on_rejected(session: Session, *, review_id: int, now: datetime | None = None) -> bool:
    """Staff rejected a review: a panel entrant's 'complete' becomes 'quality', reported to the exchange."""
    entry = session.exec(
        select(PartnerEntry).where(PartnerEntry.review_id == review_id, PartnerEntry.partner == rules.PANEL)
    ).first()
    if entry is None:
        return False
    moved = session.exec(
        update(PartnerEntry)
        .where(PartnerEntry.id == entry.id, PartnerEntry.outcome == rules.COMPLETE)
        .values(outcome=rules.QUALITY)
    )
    if moved.rowcount != 1:
        return False
    _enqueue(session, entry, rules.QUALITY, now)
    return True


def reviews_rejected(session: Session, review_ids: list[int], now: datetime | None = None) -> int:
    """Staff rejected these reviews (their decision's transaction): each panel entrant's exchange hears 'quality'."""
    return sum(1 for review_id in review_ids if on_rejected(session, review_id=review_id, now=now))


def completion_code_of(session: Session, *, test_id: int, respondent: str) -> str | None:
    """The completion code of this respondent key's review of the test (a respondent without an account opening
    the test again: their browser's key, 128 random bits, names only their own review)."""
    from portal.services.taking.review_sessions import PUBLIC_KEY  # the taking package imports this module

    if not isinstance(respondent, str) or not PUBLIC_KEY.match(respondent):
        return None
    return session.exec(
        select(Review.survey_code).where(Review.test_id == test_id, Review.respondent_key == respondent)
    ).first()
