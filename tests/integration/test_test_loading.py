"""Loading a test on /test/{id}/rate (portal/services/taking/loading.py) from real rows."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from sqlmodel import Session

from portal.domain.taking import access as ta
from portal.models import Account, Invite, ParticipantProfile, Review, ReviewSession, Test
from portal.services.definition_import import import_test
from portal.services.seeding import seed_reference
from portal.services.taking import review_sessions as rs
from portal.services.taking.loading import TestLoad, TestNotFound, load_test
from portal.settings import settings
from tests.support.factories import make_participant

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "portal/data/demo_tests"
T0 = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)


def demo(session: Session, file: str, **overrides: Any) -> Test:
    data = json.loads((DEMO / file).read_text())
    data.update(overrides)
    test = import_test(session, data)
    session.commit()
    return test


def participant(session: Session, *, levels: list[str] | None = None, **kw: Any) -> Account:
    account = make_participant(session, **kw)
    if levels is not None:
        profile = session.get(ParticipantProfile, account.id)
        profile.experience_levels = levels
        session.add(profile)
        session.commit()
    return account


def review(session: Session, test: Test, account: Account) -> None:
    session.add(
        Review(test_id=test.id, account_id=account.id, respondent_key=rs.respondent_key(account.id), kind="survey")
    )
    session.commit()


def review_session(
    session: Session,
    test: Test,
    account: Account,
    *,
    status: str = "active",
    deadline: datetime = T0 + timedelta(minutes=30),
) -> None:
    session.add(
        ReviewSession(
            test_id=test.id,
            account_id=account.id,
            respondent_key=rs.respondent_key(account.id),
            started_at=deadline - timedelta(hours=1),
            deadline_at=deadline,
            status=status,
        )
    )
    session.commit()


def invite(
    session: Session, test: Test, account: Account, *, status: str = "open", created: datetime = T0 - timedelta(hours=1)
) -> None:
    session.add(
        Invite(
            account_id=account.id,
            test_id=test.id,
            status=status,
            amount_cents=2000,
            created_at=created,
            expires_at=created + timedelta(hours=24),
        )
    )
    session.commit()


def load(session: Session, test: Test | Any, account: Account | None, **kw: Any) -> TestLoad:
    test_id = str(test.id) if isinstance(test, Test) else test
    return load_test(session=session, test_id=test_id, account_id=account.id if account else None, now=T0, **kw)


@pytest.fixture
def survey(session: Session) -> Test:
    return demo(session, "01-survey.json")  # b2b, participantLimit 50, seniority limits


# --- ok and the views ------------------------------------------------------------------------
def test_a_verified_participant_gets_the_survey(session: Session, survey: Test):
    got = load(session, survey, participant(session))
    assert (got.state, got.view, got.redirect_url) == (ta.OK, ta.SURVEY_VIEW, None)
    assert got.test_id == survey.id and got.name == survey.name
    assert got.title == f"{survey.name} | Survey | {settings.brand_name}"
    assert (got.product_type, got.panel, got.session_seconds, got.is_conditional) == ("survey", "b2b", 3600, True)
    assert (got.has_public_qualifications, got.qualification_based) == (False, False)
    assert (got.message_title, got.message_text, got.message_link_label, got.message_link_url) == ("", "", None, None)


def test_a_signed_out_visitor_is_sent_to_sign_in_and_sees_no_questions(session: Session, survey: Test):
    got = load(session, survey, None)
    assert (got.state, got.view) == (ta.OK, ta.SIGN_IN)
    # An id with no account behind it reads as signed out.
    ghost = load_test(session=session, test_id=str(survey.id), account_id=987654, now=T0)
    assert (ghost.state, ghost.view) == (ta.OK, ta.SIGN_IN)


def test_a_respondent_project_id_alone_does_not_open_a_paid_test_to_anyone(session: Session, survey: Test):
    """Only tests with public qualifications are taken signed out (docs/decisions.md, "Public respondents")."""
    got = load(session, survey, None, respondent_project_id="proj-7")
    assert (got.state, got.view) == (ta.OK, ta.SIGN_IN)
    seed_reference(session)
    public = demo(session, "08-public-qualification.json", name="Public with project")
    assert load(session, public, None, respondent_project_id="proj-7").view == ta.SURVEY_VIEW
    external = demo(session, "01-survey.json", name="External with project", panel="external")
    got = load(session, external, None, respondent_project_id="proj-7")
    assert (got.state, got.view) == (ta.NOT_INVITED, None)
    assert load(session, survey, None, respondent_project_id="   ").view == ta.SIGN_IN
    assert load(session, survey, None, respondent_project_id="x" * 201).view == ta.SIGN_IN


def test_a_public_qualification_test_opens_signed_out(session: Session):
    seed_reference(session)
    public = demo(session, "08-public-qualification.json")
    got = load(session, public, None)
    assert (got.state, got.view) == (ta.OK, ta.SURVEY_VIEW)
    assert got.has_public_qualifications and got.qualification_based


def test_a_signed_out_respondent_of_a_public_test_with_a_screener_is_not_screened(session: Session):
    """A public test with a screener opens on its survey for a signed-out visitor (screener.applies):
    never the screener's heading with nothing under it. Signed in, the same test screens first."""
    seed_reference(session)
    screener = json.loads((DEMO / "07-screener.json").read_text())["screenerQuestion"]
    public = demo(session, "08-public-qualification.json", name="Public with screener", screenerQuestion=screener)
    got = load(session, public, None)
    assert (got.state, got.view) == (ta.OK, ta.SURVEY_VIEW)
    assert load(session, public, None, respondent_project_id="proj-7").view == ta.SURVEY_VIEW
    assert load(session, public, participant(session)).view == ta.SCREENER


def test_a_private_qualification_makes_the_audience_qualification_based(session: Session):
    seed_reference(session)
    test = demo(session, "01-survey.json", name="Qualified survey", qualifications=["SaaS purchase decision makers"])
    got = load(session, test, None)
    assert (got.has_public_qualifications, got.qualification_based, got.view) == (False, True, ta.SIGN_IN)


def test_the_screener_comes_first_until_it_is_passed(session: Session):
    screened = demo(session, "07-screener.json")
    account = participant(session)
    first = load(session, screened, account)
    assert (first.state, first.view) == (ta.OK, ta.SCREENER)
    assert first.session_seconds == 900
    after = load(session, screened, account, screener_passed=True)
    assert (after.state, after.view) == (ta.OK, ta.SURVEY_VIEW)
    # Only a real True passes: a string from the browser does not.
    assert load(session, screened, account, screener_passed="false").view == ta.SCREENER


def test_a_video_test_redirects_to_the_recorder_with_email_and_first_name(session: Session):
    video = demo(session, "06-video.json")
    account = participant(session, first_name="Zoë")
    got = load(session, video, account)
    assert (got.state, got.view) == (ta.OK, ta.VIDEO_REDIRECT)
    url = urlsplit(got.redirect_url)
    assert (url.scheme, url.netloc, url.path) == ("https", "recorder.example.com", "/record")
    assert parse_qs(url.query) == {"e": [account.email], "n": ["Zoë"]}


def test_completed_gives_the_thank_you_views(session: Session, survey: Test):
    assert load(session, survey, participant(session), completed=True).view == ta.THANK_YOU
    assert load(session, survey, None, respondent_project_id="p1", completed=True).view == ta.RESPONDENT_THANK_YOU
    free = demo(session, "01-survey.json", name="Free survey", isFreemium=True)
    assert load(session, free, participant(session), completed=True).view == ta.FREE_JOIN


# --- fallback ---------------------------------------------------------------------------------
def test_a_video_test_without_a_recorder_url_falls_back(session: Session):
    video = demo(session, "06-video.json")
    video.video_recorder_url = None
    session.add(video)
    session.commit()
    got = load(session, video, participant(session))
    assert (got.state, got.view, got.redirect_url) == (ta.FALLBACK, None, None)
    assert got.message_text == "Unable to load test. Please try again later or contact support."
    # Signed out, the sign-in page comes before the recorder is needed.
    assert load(session, video, None).view == ta.SIGN_IN


@pytest.mark.parametrize("column, value", [("status", "archived"), ("panel", "galaxy")])
def test_a_row_the_rules_do_not_know_falls_back(session: Session, survey: Test, column: str, value: str):
    setattr(survey, column, value)
    session.add(survey)
    session.commit()
    got = load(session, survey, participant(session))
    assert (got.state, got.view, got.name) == (ta.FALLBACK, None, "")
    assert survey.name not in got.title


# --- blocking states --------------------------------------------------------------------------
@pytest.mark.parametrize("status", ["removed", "draft", "stopped", "completed", "scheduled"])
def test_a_test_that_is_not_running_is_unavailable(session: Session, status: str):
    test = demo(session, "01-survey.json", status=status)
    for who in (participant(session), None):
        got = load(session, test, who)
        assert (got.state, got.view) == (ta.TEST_REMOVED, None)
        assert (got.message_title, got.name) == ("Test unavailable", "")
        assert test.name not in got.title


def test_a_reviewed_test_says_so(session: Session, survey: Test):
    account = participant(session)
    review(session, survey, account)
    got = load(session, survey, account)
    assert (got.state, got.view, got.message_text) == (ta.REVIEWED, None, "You've already reviewed this test.")
    assert got.name == survey.name  # the participant knows the test
    # A completed invite reads as reviewed too.
    other = participant(session)
    invite(session, survey, other, status="completed")
    assert load(session, survey, other).state == ta.REVIEWED


def test_an_unverified_participant_is_asked_to_verify(session: Session, survey: Test):
    got = load(session, survey, participant(session, verified=False))
    assert (got.state, got.message_text) == (ta.UNVERIFIED, "Verified profile required to take this test.")


def test_an_external_panel_test_needs_an_invite(session: Session):
    external = demo(session, "01-survey.json", name="External survey", panel="external")
    account = participant(session)
    got = load(session, external, account)
    assert got.state == ta.NOT_INVITED
    assert got.message_text.startswith("You were not invited to participate in this test.")
    invite(session, external, account)
    assert load(session, external, account).view == ta.SURVEY_VIEW
    # Signed out there is no account invite to check: sign-in (or the respondent's own check) decides.
    assert (load(session, external, None).state, load(session, external, None).view) == (ta.OK, ta.SIGN_IN)


def test_a_canceled_invite_is_not_an_invite(session: Session, survey: Test):
    account = participant(session)
    invite(session, survey, account, status="canceled")
    assert load(session, survey, account).state == ta.NOT_INVITED


def test_the_latest_invite_counts(session: Session, survey: Test):
    account = participant(session)
    invite(session, survey, account, status="canceled", created=T0 - timedelta(hours=3))
    invite(session, survey, account, status="open", created=T0 - timedelta(hours=2))
    assert load(session, survey, account).state == ta.OK


def test_an_invite_older_than_24_hours_has_expired(session: Session, survey: Test):
    account = participant(session)
    invite(session, survey, account, created=T0 - timedelta(hours=24, minutes=1))
    got = load(session, survey, account)
    assert (got.state, got.message_title) == (ta.INVITATION_EXPIRED, "Link expired")
    marked = participant(session)
    invite(session, survey, marked, status="expired")
    assert load(session, survey, marked).state == ta.INVITATION_EXPIRED
    filled = participant(session)
    invite(session, survey, filled, status="filled")
    assert load(session, survey, filled).state == ta.LIMIT_REACHED


def test_a_session_past_its_deadline_offers_restart(session: Session, survey: Test):
    account = participant(session)
    review_session(session, survey, account, deadline=T0 - timedelta(seconds=rs.GRACE_SECONDS + 1))
    got = load(session, survey, account)
    assert (got.state, got.view) == (ta.SESSION_EXPIRED, None)
    assert got.message_text == "Your session has expired. You can restart the review."
    assert (got.message_link_label, got.message_link_url) == ("Restart", f"/test/{survey.id}/rate?restart=1")


@pytest.mark.parametrize("status", ["expired", "cleared"])
def test_an_expired_or_cleared_session_offers_restart_until_a_new_one_starts(
    session: Session, survey: Test, status: str
):
    account = participant(session)
    review_session(session, survey, account, status=status, deadline=T0 + timedelta(minutes=5))
    assert load(session, survey, account).state == ta.SESSION_EXPIRED
    with pytest.raises(rs.SessionExpiredError):  # not started again until the participant restarts
        rs.start_session(session=session, test_id=survey.id, account_id=account.id, now=T0)
    assert rs.restart(session=session, test_id=survey.id, account_id=account.id, now=T0)  # the Restart
    rs.start_session(session=session, test_id=survey.id, account_id=account.id, now=T0)
    session.commit()
    assert (load(session, survey, account).state, load(session, survey, account).view) == (ta.OK, ta.SURVEY_VIEW)


def test_time_up_clears_the_session_and_the_reload_offers_restart(session: Session, survey: Test):
    account = participant(session)
    rs.start_session(session=session, test_id=survey.id, account_id=account.id, now=T0 - timedelta(hours=1))
    assert rs.clear_session(session=session, test_id=survey.id, account_id=account.id, now=T0)
    session.commit()
    assert load(session, survey, account).state == ta.SESSION_EXPIRED


# --- quotas -----------------------------------------------------------------------------------
def test_reviews_and_other_live_sessions_fill_the_test(session: Session):
    test = demo(session, "01-survey.json", name="Small survey", participantLimit=2)
    me = participant(session)
    review(session, test, participant(session))
    assert load(session, test, me).state == ta.OK
    review_session(session, test, participant(session))  # another participant's live session
    got = load(session, test, me)
    assert (got.state, got.message_title) == (ta.LIMIT_REACHED, "Thank you for your interest")
    assert load(session, test, None).state == ta.LIMIT_REACHED  # the test is full for everyone


@pytest.mark.parametrize(
    "status, deadline",
    [
        ("active", T0 - timedelta(seconds=rs.GRACE_SECONDS + 1)),  # ran out, not yet marked
        ("expired", T0 + timedelta(minutes=5)),
        ("cleared", T0 + timedelta(minutes=5)),
        ("submitted", T0 + timedelta(minutes=5)),  # its review is what counts
    ],
)
def test_sessions_that_are_over_hold_no_place(session: Session, status: str, deadline: datetime):
    test = demo(session, "01-survey.json", name="One-place survey", participantLimit=1)
    review_session(session, test, participant(session), status=status, deadline=deadline)
    assert load(session, test, participant(session)).state == ta.OK


def test_one_participant_with_a_review_and_a_live_session_takes_one_place(session: Session):
    test = demo(session, "01-survey.json", name="Two-place survey", participantLimit=2)
    other = participant(session)
    review(session, test, other)
    review_session(session, test, other)
    assert load(session, test, participant(session)).state == ta.OK


def test_my_own_live_session_keeps_my_place_when_the_test_fills(session: Session):
    test = demo(session, "01-survey.json", name="Full survey", participantLimit=1)
    me = participant(session)
    review_session(session, test, me)
    assert load(session, test, me).state == ta.OK  # my session is not counted against me
    review(session, test, participant(session))
    got = load(session, test, me)
    assert (got.state, got.view) == (ta.OK, ta.SURVEY_VIEW)  # the test is full, my place is kept
    assert load(session, test, participant(session)).state == ta.LIMIT_REACHED


def test_a_seniority_quota_counts_the_highest_level(session: Session):
    test = demo(
        session,
        "01-survey.json",
        name="Senior survey",
        participantLimit=100,
        seniorityLimits={"senior": 1, "middle": 5},
    )
    me = participant(session, levels=["middle", "senior"])  # counts as senior
    review_session(session, test, participant(session, levels=["middle"]))
    assert load(session, test, me).state == ta.OK
    review(session, test, participant(session, levels=["senior", "specialist"]))
    got = load(session, test, me)
    assert (got.state, got.message_title) == (ta.SENIORITY_CAPACITY_FULL, "Thank you for your interest")
    # Middle has room; a level without a quota is not limited by it.
    assert load(session, test, participant(session, levels=["middle"])).state == ta.OK
    assert load(session, test, participant(session, levels=["specialist"])).state == ta.OK
    assert load(session, test, participant(session)).state == ta.OK  # no level on the profile


def test_an_expired_session_of_a_senior_does_not_take_a_senior_place(session: Session):
    test = demo(session, "01-survey.json", name="Senior survey 2", seniorityLimits={"senior": 1})
    review_session(session, test, participant(session, levels=["senior"]), deadline=T0 - timedelta(hours=1))
    assert load(session, test, participant(session, levels=["senior"])).state == ta.OK
    review_session(session, test, participant(session, levels=["senior"]))
    assert load(session, test, participant(session, levels=["senior"])).state == ta.SENIORITY_CAPACITY_FULL


# --- not found --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "bad", ["abc", "²", "-1", "999999", 999999, -1, "", " ", None, True, 1.0, "1e3", "99999999999", "2147483648", [1]]
)
def test_an_id_that_names_no_test_is_not_found(session: Session, survey: Test, bad: Any):
    with pytest.raises(TestNotFound):
        load_test(session=session, test_id=bad, account_id=None, now=T0)


def test_the_id_may_come_as_a_number_or_padded_text(session: Session, survey: Test):
    assert load_test(session=session, test_id=survey.id, account_id=None, now=T0).test_id == survey.id
    assert load_test(session=session, test_id=f" {survey.id} ", account_id=None, now=T0).test_id == survey.id
