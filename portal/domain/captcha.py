"""Captcha providers: where their scripts and verify endpoints live, and how an answer is judged."""

from __future__ import annotations

from typing import Any

PROVIDERS: dict[str, dict[str, str]] = {
    "recaptcha": {
        "verify_url": "https://www.google.com/recaptcha/api/siteverify",
        "script_url": "https://www.google.com/recaptcha/api.js?render={site_key}",
    },
    "hcaptcha": {
        "verify_url": "https://api.hcaptcha.com/siteverify",
        "script_url": "https://js.hcaptcha.com/1/api.js?render=explicit",
    },
    "turnstile": {
        "verify_url": "https://challenges.cloudflare.com/turnstile/v0/siteverify",
        "script_url": "https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit",
    },
}

CAPTCHA_MISSING = "Please confirm you are not a robot and try again."
CAPTCHA_REJECTED = "We could not confirm you are not a robot. Please try again."
CAPTCHA_UNAVAILABLE = "We could not check the captcha right now. Please try again in a moment."


def judge(answer: Any, *, provider: str, action: str, min_score: float) -> bool:
    """Whether a provider's verify answer accepts the token for this action."""
    if not isinstance(answer, dict) or answer.get("success") is not True:
        return False
    if provider == "recaptcha":
        score = answer.get("score")
        if isinstance(score, (int, float)) and score < min_score:
            return False
        if answer.get("action") not in (None, action):
            return False
    return True
