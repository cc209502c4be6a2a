"""The captcha check against a provider stand-in on loopback (reCAPTCHA's siteverify protocol)."""

from __future__ import annotations

import dataclasses

import pytest

from portal.services import captcha
from portal.services.captcha import CaptchaError, verify_captcha
from portal.settings import settings
from tests.support.captcha_provider import CaptchaProvider


@pytest.fixture
def provider(monkeypatch):
    stand_in = CaptchaProvider().start()
    env = stand_in.env()
    configured = dataclasses.replace(
        settings,
        captcha_provider=env["CAPTCHA_PROVIDER"],
        captcha_site_key=env["CAPTCHA_SITE_KEY"],
        captcha_secret=env["CAPTCHA_SECRET"],
        captcha_verify_url=env["CAPTCHA_VERIFY_URL"],
    )
    monkeypatch.setattr(captcha, "settings", configured)
    yield stand_in
    stand_in.stop()


def test_valid_token_passes_once(session, provider):
    token = provider.issue("sign_in")
    verify_captcha(token, action="sign_in", remote_ip="127.0.0.1", session=session)
    with pytest.raises(CaptchaError) as err:
        verify_captcha(token, action="sign_in", remote_ip="127.0.0.1", session=session)
    assert err.value.message == "We could not confirm you are not a robot. Please try again."
    assert provider.verify_calls == 1  # a reused token is refused before asking the provider


@pytest.mark.parametrize("token", [None, "", "   "])
def test_missing_token_is_refused(session, provider, token):
    with pytest.raises(CaptchaError) as err:
        verify_captcha(token, action="sign_in", remote_ip="127.0.0.1", session=session)
    assert err.value.message == "Please confirm you are not a robot and try again."


def test_rejected_and_wrong_action_tokens_are_refused(session, provider):
    with pytest.raises(CaptchaError):
        verify_captcha("made-up-token-" + "x" * 30, action="sign_in", remote_ip="127.0.0.1", session=session)
    with pytest.raises(CaptchaError):
        verify_captcha(provider.issue("sign_up"), action="sign_in", remote_ip="127.0.0.1", session=session)


def test_off_by_default(session):
    assert not settings.captcha_enabled
    verify_captcha(None, action="sign_in", remote_ip="127.0.0.1", session=session)
