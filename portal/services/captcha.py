"""Server-side captcha check against the provider's verify endpoint (off unless CAPTCHA_PROVIDER is set)."""

from __future__ import annotations

import logging

import httpx
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from portal.db import session_scope
from portal.domain.captcha import CAPTCHA_MISSING, CAPTCHA_REJECTED, CAPTCHA_UNAVAILABLE, PROVIDERS, judge
from portal.models import UsedCaptchaToken
from portal.services.errors import ServiceError
from portal.services.tokens import hash_token
from portal.settings import settings

log = logging.getLogger(__name__)


class CaptchaError(ServiceError):
    pass


def verify_url() -> str:
    return settings.captcha_verify_url or PROVIDERS[settings.captcha_provider]["verify_url"]


def script_url() -> str:
    if not settings.captcha_enabled:
        return ""
    template = settings.captcha_script_url or PROVIDERS[settings.captcha_provider]["script_url"]
    return template.replace("{site_key}", settings.captcha_site_key)


def _spend(token: str, session: Session | None) -> bool:
    """Record the token as used, in its own transaction; False when it was used before."""
    row = UsedCaptchaToken(token_hash=hash_token(token))
    try:
        if session is None:
            with session_scope() as own:
                own.add(row)
        else:
            with session.begin_nested():
                session.add(row)
        return True
    except IntegrityError:
        return False


def verify_captcha(token: str | None, *, action: str, remote_ip: str, session: Session | None = None) -> None:
    """Refuse a missing, reused or rejected token with a clear message. Blocking: call from a thread."""
    if not settings.captcha_enabled:
        return
    token = (token or "").strip()
    if not token or len(token) > 4096:
        raise CaptchaError(CAPTCHA_MISSING)
    if not _spend(token, session):
        raise CaptchaError(CAPTCHA_REJECTED)
    data = {"secret": settings.captcha_secret, "response": token}
    if remote_ip:
        data["remoteip"] = remote_ip
    try:
        response = httpx.post(verify_url(), data=data, timeout=10)
        answer = response.json()
    except (httpx.HTTPError, ValueError) as err:
        log.warning("captcha verify failed: %s", err)
        raise CaptchaError(CAPTCHA_UNAVAILABLE) from err
    if not judge(answer, provider=settings.captcha_provider, action=action, min_score=settings.captcha_min_score):
        raise CaptchaError(CAPTCHA_REJECTED)
