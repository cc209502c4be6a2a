"""Access states, the view after access, the recorder URL and the session timer (issue 5)."""

from dataclasses import FrozenInstanceError, replace
from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs, urlsplit

import pytest

from portal.domain.taking import access as ta

NOW = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


def facts(**kw) -> ta.AccessFacts:
    base = dict(test_status="running", now=NOW, signed_in=True, verified=True, seniority="senior")
    base.update(kw)
    return ta.AccessFacts(**base)


# --- every state ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kw, state",
    [
        ({}, ta.OK),
        ({"test_removed": True}, ta.TEST_REMOVED),
        ({"test_status": "removed"}, ta.TEST_REMOVED),
        ({"test_status": "stopped"}, ta.TEST_REMOVED),
        ({"test_status": "draft"}, ta.TEST_REMOVED),
        ({"test_status": "bogus"}, ta.FALLBACK),
        ({"has_review": True}, ta.REVIEWED),
        ({"panel": "external"}, ta.NOT_INVITED),
        ({"invite_required": True}, ta.NOT_INVITED),
        ({"invite_status": "canceled"}, ta.NOT_INVITED),
        ({"invite_status": "open", "invite_expires_at": NOW - timedelta(seconds=1)}, ta.INVITATION_EXPIRED),
        ({"invite_status": "open", "invite_expires_at": NOW}, ta.INVITATION_EXPIRED),
        ({"invite_status": "expired"}, ta.INVITATION_EXPIRED),
        ({"invite_status": "completed"}, ta.REVIEWED),
        ({"invite_status": "filled"}, ta.LIMIT_REACHED),
        ({"panel": "external", "invite_status": "open", "invite_expires_at": NOW + timedelta(hours=1)}, ta.OK),
        ({"session": "expired"}, ta.SESSION_EXPIRED),
        ({"participant_limit": 30, "participant_count": 30}, ta.LIMIT_REACHED),
        ({"participant_limit": 30, "participant_count": 29}, ta.OK),
        ({"participant_limit": 0}, ta.LIMIT_REACHED),
        ({"seniority_limits": {"senior": 5}, "seniority_counts": {"senior": 5}}, ta.SENIORITY_CAPACITY_FULL),
        ({"seniority_limits": {"senior": 5}, "seniority_counts": {"senior": 4}}, ta.OK),
        ({"seniority_limits": {"middle": 1}, "seniority_counts": {"middle": 1}}, ta.OK),
        ({"seniority_limits": {"senior": 1}}, ta.OK),
        ({"verified": False}, ta.UNVERIFIED),
        ({"signed_in": False, "verified": False}, ta.OK),
    ],
)
def test_each_state(kw, state):
    assert ta.decide_access(facts(**kw)) == state


def test_a_paused_test_says_so_and_offers_no_restart():
    assert ta.decide_access(facts(test_status="paused")) == ta.TEST_PAUSED
    page = ta.access_message(ta.TEST_PAUSED, 7)
    assert page.title == "Test paused" and "your answers are kept" in page.text
    assert (page.link_label, page.link_url) == (None, None)


def test_every_state_is_reachable_and_has_a_page():
    assert set(ta.ACCESS_STATES) == {
        "ok",
        "limit-reached",
        "reviewed",
        "unverified",
        "not-invited",
        "session-expired",
        "invitation-expired",
        "test-removed",
        "test-paused",
        "seniority-capacity-full",
        "fallback",
    }
    for state in ta.ACCESS_STATES:
        page = ta.access_message(state, 7)
        assert (page is None) == (state == ta.OK)


# --- ordering -----------------------------------------------------------------------------
ALL_BAD = dict(
    test_removed=True,
    has_review=True,
    panel="external",
    session="expired",
    participant_limit=1,
    participant_count=1,
    seniority_limits={"senior": 0},
    verified=False,
)


@pytest.mark.parametrize(
    "drop, expected",
    [
        ((), ta.TEST_REMOVED),
        (("test_removed",), ta.REVIEWED),
        (("test_removed", "has_review"), ta.NOT_INVITED),
        (("test_removed", "has_review", "panel"), ta.SESSION_EXPIRED),
        (("test_removed", "has_review", "panel", "session"), ta.LIMIT_REACHED),
        (("test_removed", "has_review", "panel", "session", "participant_limit"), ta.SENIORITY_CAPACITY_FULL),
        (("test_removed", "has_review", "panel", "session", "participant_limit", "seniority_limits"), ta.UNVERIFIED),
    ],
)
def test_order_first_rule_wins(drop, expected):
    kw = {k: v for k, v in ALL_BAD.items() if k not in drop}
    assert ta.decide_access(facts(**kw)) == expected


def test_expired_invite_comes_before_the_session_and_quota():
    f = facts(
        invite_status="open",
        invite_expires_at=NOW - timedelta(hours=1),
        session="expired",
        participant_limit=1,
        participant_count=5,
    )
    assert ta.decide_access(f) == ta.INVITATION_EXPIRED


def test_active_session_keeps_its_place_when_quotas_fill():
    f = facts(session="active", participant_limit=1, participant_count=1, seniority_limits={"senior": 0})
    assert ta.decide_access(f) == ta.OK
    assert ta.decide_access(replace(f, session="none")) == ta.LIMIT_REACHED


# --- bad inputs ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kw",
    [
        {"panel": "nope"},
        {"session": "maybe"},
        {"invite_status": "lost"},
        {"participant_count": -1},
        {"participant_count": True},
        {"participant_limit": "30"},
        {"seniority_limits": {"senior": -1}},
        {"seniority_counts": ["senior"]},
        {"now": "2026-05-01"},
        {"test_status": None},
        {"invite_expires_at": "tomorrow"},
    ],
)
def test_bad_facts_refused(kw):
    with pytest.raises(ValueError):
        facts(**kw)


def test_facts_are_frozen_and_not_shared():
    limits = {"senior": 2}
    f = facts(seniority_limits=limits)
    limits["senior"] = 0
    assert ta.decide_access(f) == ta.OK
    with pytest.raises(FrozenInstanceError):
        f.has_review = True  # type: ignore[misc]
    with pytest.raises(TypeError):
        ta.decide_access({"test_status": "running"})  # type: ignore[arg-type]


# --- pages --------------------------------------------------------------------------------
def test_page_texts():
    assert ta.access_message("reviewed", 1).text == "You've already reviewed this test."
    assert ta.access_message("unverified", 1).text == "Verified profile required to take this test."
    for state in ("limit-reached", "seniority-capacity-full"):
        page = ta.access_message(state, 1)
        assert page.title == "Thank you for your interest"
        assert page.text.startswith("This test is already full.")
        assert "future invites" in page.text
    assert ta.access_message("not-invited", 1).text == (
        "You were not invited to participate in this test. Please contact support for help."
    )
    expired = ta.access_message("invitation-expired", 1)
    assert expired.title == "Link expired" and expired.text.startswith("This research opportunity has ended")
    assert "24 hours" in expired.text
    removed = ta.access_message("test-removed", 1)
    assert removed.title == "Test unavailable" and removed.text.startswith("We apologize for the inconvenience")
    fallback = "Unable to load test. Please try again later or contact support."
    assert ta.access_message("fallback", 1).text == fallback
    assert ta.access_message("what", 1).text == fallback


def test_session_expired_links_restart_to_the_rate_url():
    page = ta.access_message("session-expired", 42)
    assert page.text == "Your session has expired. You can restart the review."
    assert (page.link_label, page.link_url) == ("Restart", "/test/42/rate?restart=1")
    assert ta.access_message("session-expired", 5).link_url == "/test/5/rate?restart=1"
    with pytest.raises((TypeError, ValueError)):
        ta.access_message("session-expired", "x")


# --- the view -----------------------------------------------------------------------------
def view(**kw):
    base = dict(product_type="landing-page", signed_in=True)
    base.update(kw)
    return ta.next_view(**base)


@pytest.mark.parametrize(
    "kw, name",
    [
        ({"signed_in": False}, "sign-in"),
        ({"signed_in": False, "respondent_project_id": "p1"}, "highlight"),
        ({"signed_in": False, "has_public_qualifications": True}, "highlight"),
        ({"has_screener": True}, "screener"),
        ({"has_screener": True, "screener_passed": True}, "highlight"),
        ({"completed": True, "is_freemium": True, "respondent_project_id": "p"}, "free-join"),
        ({"completed": True, "respondent_project_id": "p"}, "respondent-thank-you"),
        ({"completed": True, "has_screener": True}, "thank-you"),
        ({"product_type": "survey"}, "survey"),
        ({"product_type": "icp-pulse-brand-survey"}, "survey"),
        ({"product_type": "category-buyer-insights"}, "survey"),
        ({"product_type": "preference-test"}, "preference"),
        ({"product_type": "pricing-test"}, "highlight"),
    ],
)
def test_view_choice(kw, name):
    assert view(**kw).name == name


def test_sign_in_comes_before_completed_and_screener():
    assert view(signed_in=False, completed=True, has_screener=True).name == "sign-in"


def test_video_view_redirects_to_the_recorder():
    v = view(product_type="video-test", video_recorder_url="https://rec.example/s/1", email="a@b.co", first_name="Al")
    assert v.name == "video"
    assert parse_qs(urlsplit(v.url).query) == {"e": ["a@b.co"], "n": ["Al"]}
    with pytest.raises(ValueError):
        view(product_type="video-test")
    with pytest.raises(ValueError):
        view(product_type="")


def test_video_url_encoding():
    url = ta.video_redirect_url("https://rec.example/x?a=1&e=old#frag", "a+b&c@x.com", "Zoë Ann=1")
    parts = urlsplit(url)
    assert parts.fragment == "frag" and parts.path == "/x"
    assert "a+b&c" not in parts.query  # reserved characters are escaped
    assert parse_qs(parts.query) == {"a": ["1"], "e": ["a+b&c@x.com"], "n": ["Zoë Ann=1"]}
    assert parse_qs(urlsplit(ta.video_redirect_url("http://r.io/", "a@b.co", "")).query) == {"e": ["a@b.co"]}


@pytest.mark.parametrize("bad", ["javascript:alert(1)", "/relative", "ftp://x.io/a", "", None, "https://"])
def test_video_url_bad_inputs(bad):
    with pytest.raises(ValueError):
        ta.video_redirect_url(bad, "a@b.co", "Al")


def test_video_url_bad_values():
    with pytest.raises(ValueError):
        ta.video_redirect_url("https://r.io/", ["a@b.co"], "Al")  # type: ignore[arg-type]


# --- timer --------------------------------------------------------------------------------
def test_timer_messages_and_constants():
    assert ta.SESSION_SECONDS == (3600, 900, 300)
    assert ta.start_message(3600) == (
        "You have 60 minutes to complete the test. Responses won't be accepted after the time is up."
    )
    assert ta.start_message(900).startswith("You have 15 minutes to complete")
    assert ta.start_message(300).startswith("You have 5 minutes to complete")
    assert ta.MID_WARNING == "You have 15 minutes remaining..."
    assert ta.TIME_UP == "Time is up."
    assert ta.PENDING_REVIEW_POLL_MS == 300000


@pytest.mark.parametrize("bad", [0, 600, -300, True, "3600", None])
def test_start_message_bad_lengths(bad):
    with pytest.raises(ValueError):
        ta.start_message(bad)


def test_mid_warning_only_for_long_sessions():
    assert ta.shows_mid_warning(3600) and not ta.shows_mid_warning(900) and not ta.shows_mid_warning(300)


def test_timeout_modal_and_extension():
    assert ta.shows_timeout_modal(ta.TIMEOUT_MODAL_SECONDS - 1, 0)
    assert not ta.shows_timeout_modal(ta.TIMEOUT_MODAL_SECONDS, 0)
    assert not ta.shows_timeout_modal(0, 0)
    assert not ta.shows_timeout_modal(60, ta.MAX_EXTENSIONS)  # no extension left: nothing to offer
    # A 5-minute test warns in its last third, not from its first second.
    assert ta.timeout_modal_seconds(300) == 100 and ta.timeout_modal_seconds(900) == ta.TIMEOUT_MODAL_SECONDS
    assert not ta.shows_timeout_modal(299, 0, 300) and ta.shows_timeout_modal(99, 0, 300)
    assert ta.can_extend(0) and not ta.can_extend(1)
    with pytest.raises(ValueError):
        ta.can_extend(-1)
    with pytest.raises(ValueError):
        ta.shows_timeout_modal(-5, 0)
