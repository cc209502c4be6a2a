"""The one-click unsubscribe token (issue 38): signed with SECRET_KEY (itsdangerous), naming an account and a kind.

It is valid without signing in and does not expire (an unsubscribe link in an old e-mail still works, RFC 8058);
it can only turn off the kind it names for the account it names, and nothing else.
"""

from __future__ import annotations

from itsdangerous import BadSignature, URLSafeSerializer

from portal.domain import notifications as rules
from portal.settings import settings


def _signer(secret: str | None) -> URLSafeSerializer:
    return URLSafeSerializer(secret or settings.secret_key, salt=rules.TOKEN_SALT)


def make(account_id: int, kind: str, *, secret: str | None = None) -> str:
    return str(_signer(secret).dumps([int(account_id), kind]))


def read(token: object, *, secret: str | None = None) -> tuple[int, str] | None:
    """(account id, kind) the token names, or None when it is not one this portal signed."""
    if not isinstance(token, str) or not token or len(token) > 500:
        return None
    try:
        value = _signer(secret).loads(token)
    except BadSignature:
        return None
    if not isinstance(value, list) or len(value) != 2:
        return None
    account_id, kind = value
    if isinstance(account_id, bool) or not isinstance(account_id, int) or not rules.can_turn_off(kind):
        return None
    return account_id, kind


def url(account_id: int, kind: str) -> str:
    return f"{settings.base_url}{rules.UNSUBSCRIBE_PATH}/{make(account_id, kind)}"
