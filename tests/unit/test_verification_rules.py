"""E-mail-link notices, where a link leads, mail backoff, captcha answers, e-mail texts."""

from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pytest

from portal.domain import emails
from portal.domain.captcha import judge
from portal.domain.mail_retry import next_delay
from portal.domain.verification import after_link, notices_for


def test_ev_shows_verified_toast_and_removes_both_params():
    n = notices_for({"ev": "1", "email": "a@b.co", "x": "1"}, signed_in_and_verified=True, return_path="/")
    assert n.toasts == (("success", "Your email a@b.co has been verified"),)
    assert n.remove_params == ("ev", "email")
    assert n.redirect is None


def test_eav_for_a_verified_user_warns_and_redirects_to_target():
    n = notices_for({"eav": "1", "email": "a@b.co"}, signed_in_and_verified=True, return_path="/profile")
    assert n.toasts == (("warning", "Your email a@b.co is already verified"),)
    assert n.redirect == "/profile"


def test_eav_for_a_visitor_only_warns():
    n = notices_for({"eav": "1", "email": "a@b.co"}, signed_in_and_verified=False, return_path="/")
    assert n.toasts == (("warning", "Your email a@b.co is already verified"),)
    assert n.redirect is None
    assert n.remove_params == ("eav",)


@pytest.mark.parametrize("query", [{}, {"ev": "1"}, {"email": "a@b.co"}, {"eav": "1"}, {"verification": "other"}])
def test_no_notice_without_complete_parameters(query):
    n = notices_for(query, signed_in_and_verified=True, return_path="/")
    assert n.toasts == () and n.redirect is None and n.remove_params == ()


def test_invalid_link_notice():
    n = notices_for({"verification": "invalid"}, signed_in_and_verified=False, return_path="/")
    assert n.toasts[0][0] == "error" and "invalid or has expired" in n.toasts[0][1]


def test_after_link_targets():
    verified = urlsplit(after_link("verified", "x+y@b.co"))
    assert verified.path == "/" and parse_qs(verified.query) == {"ev": ["1"], "email": ["x+y@b.co"]}
    already = urlsplit(after_link("already", "a@b.co"))
    assert already.path == "/sign-in" and parse_qs(already.query) == {"eav": ["1"], "email": ["a@b.co"]}
    assert after_link("invalid", "") == "/sign-in?verification=invalid"


@pytest.mark.parametrize(
    ("attempts", "seconds"), [(0, 30), (1, 30), (2, 60), (3, 120), (5, 480), (7, 1920), (8, 3600), (20, 3600)]
)
def test_mail_backoff_doubles_up_to_an_hour(attempts, seconds):
    assert next_delay(attempts) == timedelta(seconds=seconds)


@pytest.mark.parametrize(
    ("answer", "provider", "ok"),
    [
        ({"success": True, "score": 0.9, "action": "sign_in"}, "recaptcha", True),
        ({"success": True, "score": 0.1, "action": "sign_in"}, "recaptcha", False),
        ({"success": True, "score": 0.9, "action": "sign_up"}, "recaptcha", False),
        ({"success": False, "error-codes": ["timeout-or-duplicate"]}, "recaptcha", False),
        ({"success": True}, "hcaptcha", True),
        ({"success": "true"}, "turnstile", False),
        (["success"], "turnstile", False),
        (None, "hcaptcha", False),
    ],
)
def test_captcha_answers(answer, provider, ok):
    assert judge(answer, provider=provider, action="sign_in", min_score=0.5) is ok


def test_email_texts_carry_the_link_and_address():
    mail = emails.verify_email(
        brand="Participants Portal", email="w@acme.io", link="http://x/verify?token=t", work=True, hours=48
    )
    assert "work email" in mail.subject and "http://x/verify?token=t" in mail.body and "w@acme.io" in mail.body
    reset = emails.password_reset(brand="Participants Portal", link="http://x/reset?token=r", minutes=60)
    assert "http://x/reset?token=r" in reset.body and "60 minutes" in reset.body
    changed = emails.email_changed(brand="Participants Portal", old_email="old@a.co", new_email="new@a.co")
    assert "old@a.co" in changed.body and "new@a.co" in changed.body
