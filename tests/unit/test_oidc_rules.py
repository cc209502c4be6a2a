"""LinkedIn/Google rules: parsing the start request, the account decision table, and where each outcome leads."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from portal.domain.oidc import (
    AccountFacts,
    Action,
    Decision,
    Facts,
    Flow,
    after_sign_in,
    auth_error_message,
    claims_email_verified,
    claims_profile,
    decide,
    destination,
    error_destination,
    parse_flow,
    verify_reason_message,
)


def test_parse_flow_reads_flags_tracking_and_a_safe_return_url():
    flow = parse_flow(
        "linkedin",
        {
            "signUp": "true",
            "utm_source": " newsletter ",
            "REFERRALCODE": "F1",
            "RR_WCID": "w",
            "unknown": "x",
            "returnUrl": "/test/3/rate",
            "captchaToken": "t",
        },
    )
    assert flow.sign_up and not flow.connect_existing and not flow.is_sign_in
    assert flow.return_url == "/test/3/rate"
    assert flow.tracking == {"utm_source": "newsletter", "REFERRALCODE": "F1", "RR_WCID": "w"}


@pytest.mark.parametrize(
    "target", ["https://evil.example.com/", "//evil.example.com", "javascript:alert(1)", "/sign-in?x=1"]
)
def test_parse_flow_drops_foreign_return_urls(target):
    assert parse_flow("linkedin", {"returnUrl": target}).return_url == ""


def test_parse_flow_defaults_and_limits():
    plain = parse_flow("google", {})
    assert plain.is_sign_in and not plain.sign_up
    assert not parse_flow("google", {"signUp": "true"}).sign_up  # only LinkedIn creates accounts
    both = parse_flow("linkedin", {"signUp": "1", "connectExisting": "true"})
    assert both.connect_existing and not both.sign_up
    assert parse_flow("linkedin", {"to": "/profile"}).return_url == "/profile"
    long = parse_flow("linkedin", {"utm_campaign": "x" * 500})
    assert len(long.tracking["utm_campaign"]) == 200
    assert not parse_flow("linkedin", {"signUp": "yes please"}).sign_up


def test_flow_round_trips_and_rejects_junk():
    flow = parse_flow(
        "linkedin", {"connectExisting": "true", "signInFlow": "true", "returnUrl": "/profile", "utm_source": "a"}
    )
    assert Flow.from_dict(flow.to_dict()) == flow
    assert Flow.from_dict(None) is None
    assert Flow.from_dict({"provider": "myspace"}) is None
    tampered = Flow.from_dict(
        {"provider": "google", "return_url": "https://evil.example.com", "tracking": {"x": "1", "utm_source": "s"}}
    )
    assert tampered.return_url == "" and tampered.tracking == {"utm_source": "s"}


SIGN_IN = Flow(provider="linkedin", is_sign_in=True)
SIGN_UP = Flow(provider="linkedin", sign_up=True)
CONNECT = Flow(provider="linkedin", connect_existing=True)
GOOGLE = Flow(provider="google", is_sign_in=True)


def facts(**kw) -> Facts:
    base = dict(
        provider="linkedin",
        email="pat@example.com",
        email_verified=True,
        identity_account_id=None,
        current=None,
        email_account=None,
    )
    base.update(kw)
    return Facts(**base)


def acct(account_id=7, emails=("pat@example.com",), verified=True, other=False) -> AccountFacts:
    return AccountFacts(account_id=account_id, emails=emails, email_verified=verified, has_other_identity=other)


@pytest.mark.parametrize(
    ("flow", "f", "expected"),
    [
        # The identity decides who signs in, in every flow that is not a connect by a signed-in user.
        (SIGN_IN, facts(identity_account_id=3), Decision(Action.SIGN_IN, 3)),
        (SIGN_UP, facts(identity_account_id=3, email_account=acct()), Decision(Action.SIGN_IN, 3)),
        (CONNECT, facts(identity_account_id=3), Decision(Action.SIGN_IN, 3)),
        # An e-mail match never signs in by itself.
        (SIGN_IN, facts(email_account=acct()), Decision(Action.EXISTING_ACCOUNT, 7)),
        (SIGN_UP, facts(email_account=acct()), Decision(Action.EXISTING_ACCOUNT, 7)),
        (SIGN_IN, facts(email_account=acct(), email_verified=False), Decision(Action.CONNECT_ERROR)),
        (SIGN_IN, facts(email_account=acct(other=True)), Decision(Action.LINKEDIN_EXISTS)),
        # Connect after 'We found your existing account' (signed out).
        (CONNECT, facts(email_account=acct()), Decision(Action.ATTACH, 7)),
        (CONNECT, facts(email_account=acct(), email_verified=False), Decision(Action.CONNECT_ERROR)),
        (CONNECT, facts(email_account=acct(other=True)), Decision(Action.LINKEDIN_EXISTS)),
        (CONNECT, facts(), Decision(Action.NO_ACCOUNT)),
        (CONNECT, facts(email=""), Decision(Action.NO_ACCOUNT)),
        # Connect by a signed-in user.
        (CONNECT, facts(current=acct(9, ("me@example.com",))), Decision(Action.ATTACH, 9)),
        (CONNECT, facts(current=acct(9), identity_account_id=9), Decision(Action.SIGN_IN, 9)),
        (CONNECT, facts(current=acct(9), identity_account_id=3), Decision(Action.LINKEDIN_EXISTS)),
        (CONNECT, facts(current=acct(9, other=True)), Decision(Action.CONNECT_ERROR)),
        (CONNECT, facts(current=acct(9, ("me@example.com",), verified=False)), Decision(Action.EMAIL_MISMATCH)),
        (CONNECT, facts(current=acct(9, ("pat@example.com",), verified=False)), Decision(Action.ATTACH, 9)),
        # Nobody matches.
        (SIGN_UP, facts(), Decision(Action.CREATE)),
        (SIGN_UP, facts(email=""), Decision(Action.CREATE)),
        (SIGN_IN, facts(), Decision(Action.LINKEDIN_NOT_EXISTS)),
        (GOOGLE, facts(provider="google"), Decision(Action.NOT_EXISTS)),
        (Flow(provider="google", sign_up=True), facts(provider="google"), Decision(Action.NOT_EXISTS)),
        # A sign-in while signed in as someone else is just a sign-in.
        (SIGN_IN, facts(current=acct(9), identity_account_id=3), Decision(Action.SIGN_IN, 3)),
    ],
)
def test_decision_table(flow, f, expected):
    assert decide(flow, f) == expected


def _query(url: str) -> tuple[str, dict[str, list[str]]]:
    parts = urlsplit(url)
    return parts.path, parse_qs(parts.query)


def test_destinations_of_outcomes_without_a_session():
    flow = Flow(provider="linkedin", is_sign_in=True, return_url="/profile")
    assert destination(flow, Decision(Action.EXISTING_ACCOUNT, 1)) == "/existing-account?returnUrl=%2Fprofile"
    assert (
        destination(Flow(provider="google"), Decision(Action.EXISTING_ACCOUNT, 1))
        == "/existing-account?provider=google"
    )
    assert destination(flow, Decision(Action.LINKEDIN_EXISTS)) == "/existing-account?linkedin_exists=true"
    assert destination(flow, Decision(Action.CONNECT_ERROR)) == "/existing-account?linkedin_error=true"
    assert destination(flow, Decision(Action.NO_ACCOUNT)) == "/verify-account?reason=no_account"
    assert destination(
        Flow(provider="linkedin", connect_existing=True, sign_in_flow=True), Decision(Action.EMAIL_MISMATCH)
    ) == ("/verify-account?reason=email_mismatch&from_sign_in=true")
    assert _query(destination(flow, Decision(Action.LINKEDIN_NOT_EXISTS))) == (
        "/sign-in",
        {"linkedin_not_exists": ["true"], "to": ["/profile"]},
    )
    assert destination(Flow(provider="google"), Decision(Action.NOT_EXISTS)) == "/sign-in?notExists=true"
    with pytest.raises(ValueError):
        destination(flow, Decision(Action.SIGN_IN, 1))


def test_redirect_after_a_provider_sign_in():
    flow = Flow(provider="linkedin", return_url="/profile")
    common = dict(registration_complete=True, has_linkedin=True, linkedin_configured=True)
    assert after_sign_in(flow=flow, created=True, **common) == "/sign-up/finish"
    assert after_sign_in(flow=flow, created=False, **{**common, "registration_complete": False}) == "/sign-up"
    assert after_sign_in(flow=flow, created=False, **common) == "/profile"
    assert after_sign_in(flow=Flow(provider="linkedin"), created=False, **common) == "/"
    google = Flow(provider="google", return_url="/profile")
    assert (
        after_sign_in(flow=google, created=False, **{**common, "has_linkedin": False})
        == "/linkedin-connect?from_sign_in=true&returnUrl=%2Fprofile"
    )
    assert (
        after_sign_in(flow=google, created=False, **{**common, "has_linkedin": False, "linkedin_configured": False})
        == "/profile"
    )
    assert after_sign_in(flow=google, created=False, **common) == "/profile"


def test_error_destinations():
    assert error_destination(None, "state") == "/sign-in?authError=state"
    assert error_destination(Flow(provider="linkedin", sign_up=True), "captcha") == "/sign-up?authError=captcha"
    assert (
        error_destination(Flow(provider="linkedin", sign_up=True), "failed")
        == "/sign-up?authError=failed&provider=linkedin"
    )
    assert error_destination(Flow(provider="google", return_url="/x"), "denied") == "/sign-in?authError=denied&to=%2Fx"
    assert (
        error_destination(Flow(provider="linkedin", connect_existing=True), "failed")
        == "/existing-account?linkedin_error=true"
    )


def test_messages():
    assert auth_error_message("failed", "google") == "We couldn't sign you in with Google. Please try again."
    assert (
        auth_error_message("failed", "evil<script>") == "We couldn't sign you in with your account. Please try again."
    )
    assert auth_error_message("made-up") == ""
    assert auth_error_message(None) == ""
    assert "different from the one you registered with" in verify_reason_message("email_mismatch")
    assert verify_reason_message("whatever") == ""


def test_claims():
    claims = {
        "sub": "s",
        "email": "a@b.c",
        "email_verified": "true",
        "given_name": "A",
        "extra": {"x": 1},
        "picture": 5,
    }
    assert claims_email_verified(claims) and not claims_email_verified({"email_verified": False})
    assert claims_profile(claims) == {"sub": "s", "email": "a@b.c", "email_verified": "true", "given_name": "A"}
