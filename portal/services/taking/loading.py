"""Loading a test on the rating route /test/{id}/rate: what the page shows.

The service reads the test and the participant's rows, turns them into `AccessFacts`
(portal/domain/taking/loading.py says how rows read as facts), lets `test_access.decide_access()`
name the state and `test_access.next_view()` pick the screen. It never judges the screener
(the participant's stored screener result is read, never judged) and never starts a session.

Choices (docs/decisions.md, "Loading a test (issue 5)"):
- Quotas count the test's reviews plus other respondents' review sessions that are active and
  within their deadline (plus the session service's grace); the participant's own never blocks.
- A participant counts under one seniority: the highest level of their profile.
- Only external-panel tests require an invite (the access rules say so); b2b tests do not.
- The latest session 'cleared' (time up) or 'expired' gives session-expired.
- A signed-out visitor gets only test-level states; a blocked or unavailable test shows no name.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import BindParameter, bindparam, exists
from sqlmodel import Session, select

from portal.domain.ids import whole_number
from portal.domain.reference_data import SENIORITY_KEYS
from portal.domain.taking import access
from portal.domain.taking import loading as rules
from portal.domain.taking import screener as screening
from portal.domain.taking.access import GRACE_SECONDS, respondent_key
from portal.domain.titles import test_page_title
from portal.models import (
    Account,
    Invite,
    ParticipantProfile,
    Qualification,
    Review,
    ReviewSession,
    ScreenerResponse,
    Test,
    TestQualification,
)
from portal.services.errors import ServiceError
from portal.settings import settings

MSG_NOT_FOUND = "This test could not be found."
# States that tell nothing about the test itself: its name and content stay hidden.
_HIDDEN_STATES = frozenset({access.TEST_REMOVED, access.FALLBACK})


class TestNotFound(ServiceError):
    """No test has this id (or the id is not a whole number): the route shows not-found."""

    __test__ = False  # not a pytest test class


@dataclass(frozen=True)
class TestLoad:
    """What /test/{id}/rate shows. `view` is set only when `state` is ok."""

    __test__ = False

    test_id: int
    state: str  # one of test_access.ACCESS_STATES
    view: (
        str | None
    )  # sign-in, screener, survey, preference, highlight, video, thank-you, respondent-thank-you, free-join
    redirect_url: str | None  # the video recorder URL with e and n, when view == 'video'
    title: str
    name: str
    product_type: str
    panel: str
    session_seconds: int
    is_conditional: bool
    has_public_qualifications: bool
    qualification_based: bool  # custom panel or any qualification: thank-you shows the sign-up promo
    message_title: str
    message_text: str
    message_link_label: str | None
    message_link_url: str | None
    # The participant's review session in progress (active, within its deadline and the grace), read
    # with the decision: the entry (services/test_taking.enter) takes it without reading it again.
    session_id: int | None = None
    # The signed-in participant's review of this test is stored (whatever the decision says first).
    reviewed: bool = False


def _test_id(value: Any) -> int:
    number = whole_number(value)
    if number is None or number > rules.MAX_TEST_ID:
        raise TestNotFound(MSG_NOT_FOUND)
    return number


# The test's columns the decision reads (not its content: the survey, the areas, the concepts ...).
_TEST_COLUMNS = (
    Test.id,
    Test.name,
    Test.status,
    Test.panel,
    Test.product_type,
    Test.session_seconds,
    Test.participant_limit,
    Test.seniority_limits,
    Test.is_surveys_conditional_enabled,
    Test.screener_question,
    Test.is_freemium,
    Test.video_recorder_url,
)


@dataclass(frozen=True)
class _TestRow:
    """Those columns, by the test's attribute names."""

    id: int
    name: str
    status: str
    panel: str
    product_type: str
    session_seconds: int
    participant_limit: int | None
    seniority_limits: Any
    is_surveys_conditional_enabled: bool
    screener_question: Any
    is_freemium: bool
    video_recorder_url: str | None


@dataclass(frozen=True)
class _Rows:
    """What the access decision reads for a test and (signed in) one participant, in one statement."""

    test: _TestRow
    any_qualification: bool
    has_public: bool
    # The signed-in participant's account (None: no such account) and profile.
    account_id: int | None = None
    registration_complete: bool = False
    email_verified_at: datetime | None = None
    verified: bool = False
    email: str | None = None
    experience_levels: Any = None
    first_name: str | None = None
    invite_status: str | None = None
    invite_expires_at: datetime | None = None
    has_review: bool = False
    screener_passed: bool | None = None
    session_id: int | None = None
    session_status: str | None = None
    session_deadline_at: datetime | None = None


def _latest(column: Any, *where: Any, order: tuple[Any, ...]) -> Any:
    """`column` of the newest row (by `order`) matching `where`, as a subquery of the test's row."""
    return select(column).where(*where).order_by(*order).limit(1).correlate(Test).scalar_subquery()


@functools.cache
def _rows_statement(signed_in: bool) -> Any:
    """The test (the columns the decision reads), its qualifications and, signed in, the participant's account and
    profile columns, latest invite, review, screener result and latest review session: built once, run with
    bound values (`_rows`)."""
    linked = select(TestQualification.test_id).where(TestQualification.test_id == Test.id).correlate(Test)
    public = (
        select(TestQualification.test_id)
        .join(Qualification, Qualification.id == TestQualification.qualification_id)
        .where(TestQualification.test_id == Test.id, Qualification.is_public.is_(True))
        .correlate(Test)
    )
    columns: list[Any] = [*_TEST_COLUMNS, exists(linked).label("any_qualification"), exists(public).label("has_public")]
    if not signed_in:
        return select(*columns).where(Test.id == bindparam("test_id"))
    account: BindParameter[int] = bindparam("account_id")
    key: BindParameter[str] = bindparam("key")
    invite = (Invite.test_id == Test.id, Invite.account_id == account)
    by_newest_invite = (Invite.created_at.desc(), Invite.id.desc())
    mine = (ReviewSession.test_id == Test.id, ReviewSession.respondent_key == key)
    reviewed = select(Review.id).where(Review.test_id == Test.id, Review.respondent_key == key).correlate(Test)
    columns += [
        _latest(Invite.status, *invite, order=by_newest_invite).label("invite_status"),
        _latest(Invite.expires_at, *invite, order=by_newest_invite).label("invite_expires_at"),
        exists(reviewed).label("has_review"),
        _latest(
            ScreenerResponse.is_passed,
            ScreenerResponse.test_id == Test.id,
            ScreenerResponse.respondent_key == key,
            order=(ScreenerResponse.id.desc(),),
        ).label("screener_passed"),
        _latest(ReviewSession.id, *mine, order=(ReviewSession.id.desc(),)).label("session_id"),
        _latest(ReviewSession.status, *mine, order=(ReviewSession.id.desc(),)).label("session_status"),
        _latest(ReviewSession.deadline_at, *mine, order=(ReviewSession.id.desc(),)).label("session_deadline_at"),
    ]
    columns += [
        Account.id.label("account_id"),
        Account.is_registration_complete.label("registration_complete"),
        Account.email_verified_at,
        Account.verified,
        Account.email,
        ParticipantProfile.experience_levels,
        ParticipantProfile.first_name,
    ]
    return (
        select(*columns)
        .select_from(Test)
        .outerjoin(Account, Account.id == account)
        .outerjoin(ParticipantProfile, ParticipantProfile.account_id == Account.id)
        .where(Test.id == bindparam("test_id"))
    )


def _rows(session: Session, test_id: int, own_key: str | None, account_id: int | None) -> _Rows | None:
    """The rows of `_rows_statement` (None: no such test)."""
    params: dict[str, Any] = {"test_id": test_id}
    if own_key is not None:
        params.update(account_id=account_id, key=own_key)
    found = session.execute(_rows_statement(own_key is not None), params).first()
    if found is None:
        return None
    values = found._mapping
    test = _TestRow(*found[: len(_TEST_COLUMNS)])
    return _Rows(test=test, **{name: values[name] for name in _ROW_FIELDS if name in values})


_ROW_FIELDS = tuple(f for f in _Rows.__dataclass_fields__ if f != "test")


def qualifications(session: Session, test_id: int) -> tuple[bool, bool]:
    """(any qualification, any public qualification) of the test."""
    rows = session.exec(
        select(Qualification.is_public)
        .join(TestQualification, TestQualification.qualification_id == Qualification.id)
        .where(TestQualification.test_id == test_id)
    ).all()
    return bool(rows), any(bool(public) for public in rows)


def _taken_places(session: Session, test: Any, own_key: str | None, now: datetime) -> dict[str, int | None]:
    """Who holds a place: respondent key -> account id, for reviews and others' live sessions."""
    places: dict[str, int | None] = dict(
        session.exec(select(Review.respondent_key, Review.account_id).where(Review.test_id == test.id)).all()
    )
    # Live = active and not past deadline + grace (the session service still accepts answers).
    live = select(ReviewSession.respondent_key, ReviewSession.account_id).where(
        ReviewSession.test_id == test.id,
        ReviewSession.status == "active",
        ReviewSession.deadline_at >= now - timedelta(seconds=GRACE_SECONDS),
    )
    for key, account_id in session.exec(live).all():
        places.setdefault(key, account_id)
    if own_key is not None:
        places.pop(own_key, None)
    return places


def _seniority_counts(session: Session, places: dict[str, int | None]) -> dict[str, int]:
    account_ids = sorted({a for a in places.values() if a is not None})
    counts = dict.fromkeys(SENIORITY_KEYS, 0)
    if not account_ids:
        return counts
    rows = session.exec(
        select(ParticipantProfile.experience_levels).where(ParticipantProfile.account_id.in_(account_ids))
    ).all()
    for levels in rows:
        level = rules.quota_seniority(levels)
        if level is not None:
            counts[level] += 1
    return counts


def _load(
    test: Any,
    state: str,
    *,
    view: access.View | None,
    has_public: bool,
    qualification_based: bool,
    session_id: int | None = None,
    reviewed: bool = False,
) -> TestLoad:
    hidden = state in _HIDDEN_STATES
    message = access.access_message(state, test.id)
    name = "" if hidden else test.name
    return TestLoad(
        test_id=test.id,
        state=state,
        view=view.name if view is not None else None,
        redirect_url=view.url if view is not None else None,
        title=test_page_title(name=name, brand=settings.brand_name, pricing_tier=None if hidden else test.product_type),
        name=name,
        product_type=test.product_type,
        panel=test.panel,
        session_seconds=test.session_seconds,
        is_conditional=bool(test.is_surveys_conditional_enabled),
        has_public_qualifications=has_public,
        qualification_based=qualification_based,
        message_title=message.title if message else "",
        message_text=message.text if message else "",
        message_link_label=message.link_label if message else None,
        message_link_url=message.link_url if message else None,
        session_id=session_id,
        reviewed=reviewed,
    )


def load_test(
    session: Session,
    *,
    test_id: Any,
    account_id: int | None,
    respondent_project_id: str | None = None,
    screener_passed: bool | None = None,
    completed: bool = False,
    now: datetime | None = None,
    partner_admitted: bool = False,
) -> TestLoad:
    """What the rating route shows for this test and this visitor.

    `test_id` is the untrusted route value ('12'); anything that is not the id of a test raises
    TestNotFound. `account_id` is the signed-in account (None when signed out; an id without an
    account reads as signed out). `respondent_project_id` is the URL's value (untrusted; blank or
    over 200 characters reads as absent). `screener_passed`: the screener's result (None: the
    participant's stored result, read with the other rows).
    `completed` is the browser's record that this visitor completed the test (the spec's
    completed-tests record): with access ok it gives the thank-you views.
    `partner_admitted`: a visitor without an account whom a partner's link admitted, as the server checked it
    (portal/services/partners.py): the test opens to them as to the public.
    """
    number = _test_id(test_id)
    if account_id is not None and (isinstance(account_id, bool) or not isinstance(account_id, int)):
        raise TypeError("account_id must be an int or None")
    now = rules.aware(now) if now is not None else datetime.now(UTC)
    rows = _rows(session, number, respondent_key(account_id) if account_id is not None else None, account_id)
    if rows is None:
        raise TestNotFound(MSG_NOT_FOUND)
    test, has_public = rows.test, rows.has_public
    signed_in = rows.account_id is not None  # an id without an account reads as signed out
    reviewed = signed_in and bool(rows.has_review)
    project_id = rules.respondent_project_id(respondent_project_id)
    qualification_based = rules.is_qualification_based(panel=test.panel, has_qualifications=rows.any_qualification)
    if screener_passed is None:
        screener_passed = rows.screener_passed is True

    limits = {k: v for k, v in (test.seniority_limits or {}).items() if isinstance(k, str) and isinstance(v, int)}
    own_key = respondent_key(account_id) if signed_in and account_id is not None else None
    facts: dict[str, Any] = {
        "test_status": test.status,
        "now": now,
        "panel": test.panel,
        "participant_limit": test.participant_limit,
        "seniority_limits": limits,
    }
    session_id = None
    if signed_in:
        facts.update(
            signed_in=True,
            registered=bool(rows.registration_complete and rows.email_verified_at is not None),
            verified=bool(rows.verified),
            seniority=rules.quota_seniority(rows.experience_levels),
            invite_status=rows.invite_status,
            invite_expires_at=rules.aware(rows.invite_expires_at) if rows.invite_expires_at is not None else None,
            has_review=bool(rows.has_review),
            session=rules.session_state(
                rows.session_status, rows.session_deadline_at, now, grace_seconds=GRACE_SECONDS
            ),
        )
        if facts["session"] == access.SESSION_ACTIVE:
            session_id = rows.session_id
    if test.participant_limit is not None or limits:
        places = _taken_places(session, test, own_key, now)
        facts["participant_count"] = len(places)
        if limits:
            facts["seniority_counts"] = _seniority_counts(session, places)

    try:
        state = access.decide_access(access.AccessFacts(**facts))
    except ValueError:  # a row the rules cannot read (unknown panel, negative quota): fallback
        state = access.FALLBACK
    if not signed_in:
        state = rules.signed_out_state(state)
    if state != access.OK:
        return _load(
            test, state, view=None, has_public=has_public, qualification_based=qualification_based, reviewed=reviewed
        )
    try:
        view = access.next_view(
            product_type=test.product_type,
            signed_in=signed_in,
            respondent_project_id=project_id,
            has_public_qualifications=has_public or (partner_admitted and not signed_in),
            has_screener=screening.applies(has_screener=bool(test.screener_question), signed_in=signed_in),
            screener_passed=screener_passed is True,  # only a real True (never a browser string)
            completed=completed is True,
            is_freemium=bool(test.is_freemium),
            video_recorder_url=test.video_recorder_url,
            email=rows.email if signed_in else None,
            first_name=rows.first_name if signed_in else None,
        )
    except ValueError:  # a video test without a usable recorder URL
        return _load(
            test,
            access.FALLBACK,
            view=None,
            has_public=has_public,
            qualification_based=qualification_based,
            reviewed=reviewed,
        )
    if not signed_in:
        state, name = rules.signed_out_view(
            view=view.name, panel=test.panel, has_public_qualifications=has_public or partner_admitted
        )
        if state != access.OK:
            return _load(
                test,
                state,
                view=None,
                has_public=has_public,
                qualification_based=qualification_based,
                reviewed=reviewed,
            )
        if name is not None and name != view.name:
            view = access.View(name)
    return _load(
        test,
        access.OK,
        view=view,
        has_public=has_public,
        qualification_based=qualification_based,
        session_id=session_id,
        reviewed=reviewed,
    )


def submission_quota_state(session: Session, *, test_id: int, account_id: int | None, own_key: str) -> str:
    """The quota state at submission: the test row locked (PostgreSQL; SQLite has one writer at a
    time), only stored reviews counted, so two last submissions cannot both take the last place."""
    test = session.exec(select(Test).where(Test.id == test_id).with_for_update()).one()
    limits = {k: v for k, v in (test.seniority_limits or {}).items() if isinstance(k, str) and isinstance(v, int)}
    if test.participant_limit is None and not limits:
        return access.OK
    places: dict[str, int | None] = dict(
        session.exec(select(Review.respondent_key, Review.account_id).where(Review.test_id == test.id)).all()
    )
    places.pop(own_key, None)
    profile = session.get(ParticipantProfile, account_id) if account_id is not None else None
    facts = access.AccessFacts(
        test_status=test.status,
        now=datetime.now(UTC),
        panel=test.panel,
        participant_limit=test.participant_limit,
        seniority_limits=limits,
        participant_count=len(places),
        seniority=rules.quota_seniority(profile.experience_levels if profile else None),
        seniority_counts=_seniority_counts(session, places) if limits else {},
    )
    return access.quota_state(facts)
