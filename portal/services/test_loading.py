"""Loading a test on the rating route /test/{id}/rate: what the page shows.

The service reads the test and the participant's rows, turns them into `AccessFacts`
(portal/domain/test_loading.py says how rows read as facts), lets `test_access.decide_access()`
name the state and `test_access.next_view()` pick the screen. It never judges the screener
(`screener_passed` comes from the screener service) and never starts a session.

Choices (docs/decisions.md, "Loading a test (issue 5)"):
- Quotas count the test's reviews plus other respondents' review sessions that are active and
  within their deadline (plus the session service's grace); the participant's own never blocks.
- A participant counts under one seniority: the highest level of their profile.
- Only external-panel tests require an invite (the access rules say so); b2b tests do not.
- The latest session 'cleared' (time up) or 'expired' gives session-expired.
- A signed-out visitor gets only test-level states; a blocked or unavailable test shows no name.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, select

from portal.domain import screener as screening
from portal.domain import test_access as access
from portal.domain.test_access import GRACE_SECONDS, respondent_key
from portal.domain import test_loading as rules
from portal.domain.ids import whole_number
from portal.domain.reference_data import SENIORITY_KEYS
from portal.domain.titles import test_page_title
from portal.models import Account, Invite, ParticipantProfile, Qualification, Review, ReviewSession, Test, TestQualification
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
    view: str | None  # sign-in, screener, survey, preference, highlight, video, thank-you, respondent-thank-you, free-join
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


def _test_id(value: Any) -> int:
    number = whole_number(value)
    if number is None or number > rules.MAX_TEST_ID:
        raise TestNotFound(MSG_NOT_FOUND)
    return number


def qualifications(session: Session, test_id: int) -> tuple[bool, bool]:
    """(any qualification, any public qualification) of the test."""
    rows = session.exec(
        select(Qualification.is_public)
        .join(TestQualification, TestQualification.qualification_id == Qualification.id)
        .where(TestQualification.test_id == test_id)
    ).all()
    return bool(rows), any(bool(public) for public in rows)


def _latest_invite(session: Session, test_id: int, account_id: int) -> Invite | None:
    return session.exec(
        select(Invite).where(Invite.test_id == test_id, Invite.account_id == account_id)
        .order_by(Invite.created_at.desc(), Invite.id.desc()).limit(1)
    ).first()


def _latest_session(session: Session, test_id: int, key: str) -> ReviewSession | None:
    return session.exec(
        select(ReviewSession).where(ReviewSession.test_id == test_id, ReviewSession.respondent_key == key)
        .order_by(ReviewSession.id.desc()).limit(1)
    ).first()


def _has_review(session: Session, test_id: int, key: str) -> bool:
    return session.exec(
        select(func.count()).select_from(Review).where(Review.test_id == test_id, Review.respondent_key == key)
    ).one() > 0


def _taken_places(session: Session, test: Test, own_key: str | None, now: datetime) -> dict[str, int | None]:
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


def _load(test: Test, state: str, *, view: access.View | None, has_public: bool, qualification_based: bool) -> TestLoad:
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
    )


def load_test(
    *,
    session: Session,
    test_id: Any,
    account_id: int | None,
    respondent_project_id: str | None = None,
    screener_passed: bool = False,
    completed: bool = False,
    now: datetime | None = None,
) -> TestLoad:
    """What the rating route shows for this test and this visitor.

    `test_id` is the untrusted route value ('12'); anything that is not the id of a test raises
    TestNotFound. `account_id` is the signed-in account (None when signed out; an id without an
    account reads as signed out). `respondent_project_id` is the URL's value (untrusted; blank or
    over 200 characters reads as absent). `screener_passed` comes from the screener service.
    `completed` is the browser's record that this visitor completed the test (the spec's
    completed-tests record): with access ok it gives the thank-you views.
    """
    number = _test_id(test_id)
    if account_id is not None and (isinstance(account_id, bool) or not isinstance(account_id, int)):
        raise TypeError("account_id must be an int or None")
    now = rules.aware(now) if now is not None else datetime.now(UTC)
    test = session.get(Test, number)
    if test is None:
        raise TestNotFound(MSG_NOT_FOUND)
    project_id = rules.respondent_project_id(respondent_project_id)
    any_qualification, has_public = qualifications(session, test.id)
    qualification_based = rules.is_qualification_based(panel=test.panel, has_qualifications=any_qualification)
    account = session.get(Account, account_id) if account_id is not None else None

    limits = {k: v for k, v in (test.seniority_limits or {}).items() if isinstance(k, str) and isinstance(v, int)}
    own_key = respondent_key(account.id) if account is not None else None
    profile = None
    facts: dict[str, Any] = {
        "test_status": test.status, "now": now, "panel": test.panel,
        "participant_limit": test.participant_limit, "seniority_limits": limits,
    }
    if account is not None:
        profile = session.get(ParticipantProfile, account.id)
        invite = _latest_invite(session, test.id, account.id)
        latest = _latest_session(session, test.id, own_key)
        facts.update(
            signed_in=True,
            registered=bool(account.is_registration_complete and account.email_verified_at is not None),
            verified=bool(account.verified),
            seniority=rules.quota_seniority(profile.experience_levels if profile else None),
            invite_status=invite.status if invite is not None else None,
            invite_expires_at=rules.aware(invite.expires_at) if invite is not None else None,
            has_review=_has_review(session, test.id, own_key),
            session=rules.session_state(
                latest.status if latest else None, latest.deadline_at if latest else None, now,
                grace_seconds=GRACE_SECONDS,
            ),
        )
    if test.participant_limit is not None or limits:
        places = _taken_places(session, test, own_key, now)
        facts["participant_count"] = len(places)
        if limits:
            facts["seniority_counts"] = _seniority_counts(session, places)

    try:
        state = access.decide_access(access.AccessFacts(**facts))
    except ValueError:  # a row the rules cannot read (unknown panel, negative quota): fallback
        state = access.FALLBACK
    if account is None:
        state = rules.signed_out_state(state)
    if state != access.OK:
        return _load(test, state, view=None, has_public=has_public, qualification_based=qualification_based)
    try:
        view = access.next_view(
            product_type=test.product_type,
            signed_in=account is not None,
            respondent_project_id=project_id,
            has_public_qualifications=has_public,
            has_screener=screening.applies(has_screener=bool(test.screener_question), signed_in=account is not None),
            screener_passed=screener_passed is True,  # only a real True (never a browser string)
            completed=completed is True,
            is_freemium=bool(test.is_freemium),
            video_recorder_url=test.video_recorder_url,
            email=account.email if account is not None else None,
            first_name=profile.first_name if profile is not None else None,
        )
    except ValueError:  # a video test without a usable recorder URL
        return _load(test, access.FALLBACK, view=None, has_public=has_public, qualification_based=qualification_based)
    if account is None:
        state, name = rules.signed_out_view(view=view.name, panel=test.panel, has_public_qualifications=has_public)
        if state != access.OK:
            return _load(test, state, view=None, has_public=has_public, qualification_based=qualification_based)
        if name != view.name:
            view = access.View(name)
    return _load(test, access.OK, view=view, has_public=has_public, qualification_based=qualification_based)


def submission_quota_state(*, session: Session, test_id: int, account_id: int | None, own_key: str) -> str:
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
        test_status=test.status, now=datetime.now(UTC), panel=test.panel,
        participant_limit=test.participant_limit, seniority_limits=limits, participant_count=len(places),
        seniority=rules.quota_seniority(profile.experience_levels if profile else None),
        seniority_counts=_seniority_counts(session, places) if limits else {},
    )
    return access.quota_state(facts)
