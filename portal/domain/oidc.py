"""LinkedIn and Google sign-in: the flow's flags, and which screen each callback outcome leads to.

Pure rules: the HTTP routes parse the start request with `parse_flow`, the account
service gathers the facts and asks `decide` what to do, and `destination` turns
the decision into the address the browser is sent to.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from enum import Enum
from typing import Any
from urllib.parse import urlencode

from portal.domain.accounts import normalize_email
from portal.domain.navigation import HOME_PATH, SIGN_IN_PATH, SIGN_UP_PATH, safe_return_path

PROVIDERS = ("linkedin", "google")
PROVIDER_LABELS = {"linkedin": "LinkedIn", "google": "Google"}
# Only LinkedIn creates accounts (the spec's sign-up screen offers 'Sign Up with LinkedIn' only).
SIGN_UP_PROVIDERS = ("linkedin",)

# Tracking data kept with the flow and stored on a new account.
TRACKING_KEYS = ("utm_medium", "utm_campaign", "utm_source", "li_fat_id", "RR_WCID", "RR_WCID_TTL", "REFERRALCODE")
TRACKING_MAX_LENGTH = 200
FLAG_KEYS = ("signUp", "connectExisting", "signInFlow", "isSignIn")

SIGN_UP_FINISH_PATH = "/sign-up/finish"
EXISTING_ACCOUNT_PATH = "/existing-account"
VERIFY_ACCOUNT_PATH = "/verify-account"
LINKEDIN_CONNECT_PATH = "/linkedin-connect"

# Query values the screens read.
NO_ACCOUNT_FOUND_PARAM = "linkedin_not_exists"
NOT_EXISTS_PARAM = "notExists"
AUTH_ERROR_PARAM = "authError"

# Visible strings of the spec.
LAST_USED = "Last used"
NO_ACCOUNT_FOUND = "No account found"
ACCOUNT_DOES_NOT_EXIST = "Account does not exist"
EXISTING_ACCOUNT_TITLE = "We found your existing account"
LINKEDIN_ERROR_TITLE = "We couldn't connect your LinkedIn"
LINKEDIN_EXISTS_TITLE = "LinkedIn account already exists"
CONNECT_TITLE = "Connect your LinkedIn to continue"
VERIFY_TITLE = "We couldn't verify your account"

# Our wording where the spec shows none (docs/decisions.md).
AUTH_ERRORS = {
    "state": (
        "Your sign-in request has expired or was started in another browser. Nothing was changed. Please try again."
    ),
    "denied": "Sign-in was cancelled. Please try again.",
    "failed": "We couldn't sign you in with {provider}. Please try again.",
    "captcha": "We could not confirm you are not a robot. Please try again.",
    "staff": (
        "Staff accounts sign in with their e-mail and password: the local sign-in stand-in never signs in to a "
        "staff account."
    ),
}
VERIFY_REASONS = {
    "email_mismatch": (
        "The email address of your LinkedIn account is different from the one you registered with, "
        "and that one is not verified yet. Verify the email you registered with, then connect LinkedIn again."
    ),
    "no_account": (
        "We couldn't find an account with the email address of your LinkedIn account. "
        "Sign up with LinkedIn, or log in with the account you registered with."
    ),
}


def _flag(value: Any) -> bool:
    return isinstance(value, str) and value.strip().lower() in {"1", "true", "yes"}


@dataclass(frozen=True)
class Flow:
    """What the browser asked for when it started the provider flow (kept with `state`)."""

    provider: str
    sign_up: bool = False
    connect_existing: bool = False
    sign_in_flow: bool = False
    is_sign_in: bool = False
    return_url: str = ""
    tracking: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> Flow | None:
        if not isinstance(data, dict) or data.get("provider") not in PROVIDERS:
            return None
        tracking = got if isinstance(got := data.get("tracking"), dict) else {}
        return cls(
            provider=data["provider"],
            sign_up=bool(data.get("sign_up")),
            connect_existing=bool(data.get("connect_existing")),
            sign_in_flow=bool(data.get("sign_in_flow")),
            is_sign_in=bool(data.get("is_sign_in")),
            return_url=safe_return_path(got if isinstance(got := data.get("return_url"), str) else "", default=""),
            tracking={k: str(v)[:TRACKING_MAX_LENGTH] for k, v in tracking.items() if k in TRACKING_KEYS},
        )


def parse_flow(provider: str, query: Mapping[str, Any]) -> Flow:
    """The start request's query: flags as 'true'/'1', a same-site returnUrl, the known tracking keys."""
    tracking = {}
    for key in TRACKING_KEYS:
        value = query.get(key)
        if isinstance(value, str) and value.strip():
            tracking[key] = value.strip()[:TRACKING_MAX_LENGTH]
    return_url = query.get("returnUrl") or query.get("to") or ""
    connect = _flag(query.get("connectExisting"))
    sign_up = _flag(query.get("signUp")) and provider in SIGN_UP_PROVIDERS and not connect
    return Flow(
        provider=provider,
        sign_up=sign_up,
        connect_existing=connect,
        sign_in_flow=_flag(query.get("signInFlow")),
        is_sign_in=_flag(query.get("isSignIn")) or not (sign_up or connect),
        return_url=safe_return_path(return_url if isinstance(return_url, str) else "", default=""),
        tracking=tracking,
    )


class Action(str, Enum):
    SIGN_IN = "sign_in"  # the identity's account: open a session
    ATTACH = "attach"  # attach the identity to `account_id`, then open a session
    CREATE = "create"  # a new account with this identity
    EXISTING_ACCOUNT = "existing_account"  # an account has the provider's e-mail: offer to connect
    LINKEDIN_EXISTS = "linkedin_exists"  # the identity (or another of the same provider) is elsewhere
    CONNECT_ERROR = "connect_error"  # cannot connect safely
    EMAIL_MISMATCH = "email_mismatch"  # signed-in account unverified and e-mails differ
    NO_ACCOUNT = "no_account"  # connect asked, but no account has the provider's e-mail
    LINKEDIN_NOT_EXISTS = "linkedin_not_exists"  # LinkedIn sign-in of an unknown LinkedIn
    NOT_EXISTS = "not_exists"  # sign-in of an unknown identity of another provider


@dataclass(frozen=True)
class AccountFacts:
    """What the service knows of an account that matters for the decision."""

    account_id: int
    emails: tuple[str, ...] = ()  # personal and work e-mail, lowercased
    email_verified: bool = False
    has_other_identity: bool = False  # another subject of the same provider is attached


@dataclass(frozen=True)
class Facts:
    provider: str
    email: str  # the provider's e-mail, lowercased ("" when none)
    email_verified: bool  # the provider says it verified that e-mail
    identity_account_id: int | None  # who holds (provider, subject) now
    current: AccountFacts | None  # the signed-in account, if any
    email_account: AccountFacts | None  # the account whose personal or work e-mail is the provider's e-mail


@dataclass(frozen=True)
class Decision:
    action: Action
    account_id: int | None = None


def decide(flow: Flow, facts: Facts) -> Decision:
    """The account outcome of a verified provider login. Accounts are keyed on (provider, subject) only;
    an e-mail match never signs anyone in by itself: it leads to the connect screen, and connecting
    needs the provider to have verified that e-mail."""
    held_by = facts.identity_account_id
    email = normalize_email(facts.email)

    if flow.connect_existing and facts.current is not None:
        current = facts.current
        if held_by == current.account_id:
            return Decision(Action.SIGN_IN, current.account_id)
        if held_by is not None:
            return Decision(Action.LINKEDIN_EXISTS)
        if current.has_other_identity:
            return Decision(Action.CONNECT_ERROR)
        if not current.email_verified and email not in current.emails:
            return Decision(Action.EMAIL_MISMATCH)
        return Decision(Action.ATTACH, current.account_id)

    if held_by is not None:
        return Decision(Action.SIGN_IN, held_by)

    match = facts.email_account if email else None
    if flow.connect_existing:
        if match is None:
            return Decision(Action.NO_ACCOUNT)
        if match.has_other_identity:
            return Decision(Action.LINKEDIN_EXISTS)
        if not facts.email_verified:
            return Decision(Action.CONNECT_ERROR)
        return Decision(Action.ATTACH, match.account_id)

    if match is not None:
        if match.has_other_identity:
            return Decision(Action.LINKEDIN_EXISTS)
        if not facts.email_verified:
            return Decision(Action.CONNECT_ERROR)
        return Decision(Action.EXISTING_ACCOUNT, match.account_id)

    if flow.sign_up and flow.provider in SIGN_UP_PROVIDERS:
        return Decision(Action.CREATE)
    if flow.provider == "linkedin":
        return Decision(Action.LINKEDIN_NOT_EXISTS)
    return Decision(Action.NOT_EXISTS)


def _with_query(path: str, params: dict[str, str]) -> str:
    params = {k: v for k, v in params.items() if v}
    return f"{path}?{urlencode(params)}" if params else path


def after_sign_in(
    *,
    flow: Flow,
    created: bool,
    registration_complete: bool,
    has_linkedin: bool,
    linkedin_configured: bool,
) -> str:
    """The `redirect` of a successful provider sign-in."""
    if created:
        return SIGN_UP_FINISH_PATH
    if not registration_complete:
        return SIGN_UP_PATH  # 'Finish your registration'
    target = flow.return_url or HOME_PATH
    if flow.provider != "linkedin" and not has_linkedin and linkedin_configured and not flow.connect_existing:
        return _with_query(LINKEDIN_CONNECT_PATH, {"from_sign_in": "true", "returnUrl": flow.return_url})
    return target


def destination(flow: Flow, decision: Decision) -> str:
    """Where a callback that did not open a session sends the browser."""
    action = decision.action
    if action is Action.EXISTING_ACCOUNT:
        params = {"returnUrl": flow.return_url}
        if flow.provider != "linkedin":
            params["provider"] = flow.provider
        return _with_query(EXISTING_ACCOUNT_PATH, params)
    if action is Action.LINKEDIN_EXISTS:
        return _with_query(EXISTING_ACCOUNT_PATH, {"linkedin_exists": "true"})
    if action is Action.CONNECT_ERROR:
        return _with_query(EXISTING_ACCOUNT_PATH, {"linkedin_error": "true"})
    if action is Action.EMAIL_MISMATCH:
        return _with_query(
            VERIFY_ACCOUNT_PATH,
            {"reason": "email_mismatch", "from_sign_in": "true" if flow.sign_in_flow else ""},
        )
    if action is Action.NO_ACCOUNT:
        return _with_query(VERIFY_ACCOUNT_PATH, {"reason": "no_account"})
    if action is Action.LINKEDIN_NOT_EXISTS:
        return _with_query(SIGN_IN_PATH, {NO_ACCOUNT_FOUND_PARAM: "true", "to": flow.return_url})
    if action is Action.NOT_EXISTS:
        return _with_query(SIGN_IN_PATH, {NOT_EXISTS_PARAM: "true", "to": flow.return_url})
    raise ValueError(f"{action} opens a session; use after_sign_in")


def error_destination(flow: Flow | None, code: str) -> str:
    """A refused or failed flow: connect flows show the connect error, others their screen with a message."""
    if flow is not None and flow.connect_existing:
        return _with_query(EXISTING_ACCOUNT_PATH, {"linkedin_error": "true"})
    path = SIGN_UP_PATH if flow is not None and flow.sign_up else SIGN_IN_PATH
    params = {AUTH_ERROR_PARAM: code}
    if flow is not None:
        if code == "failed":
            params["provider"] = flow.provider
        if path == SIGN_IN_PATH:
            params["to"] = flow.return_url
    return _with_query(path, params)


def auth_error_message(code: str | None, provider: str | None = None) -> str:
    """The message for an `authError` query value; unknown codes show nothing."""
    template = AUTH_ERRORS.get(code or "")
    if template is None:
        return ""
    return template.format(provider=PROVIDER_LABELS.get(provider or "", "your account"))


def verify_reason_message(reason: str | None) -> str:
    return VERIFY_REASONS.get(reason or "", "")


def claims_profile(claims: Mapping[str, Any]) -> dict[str, Any]:
    """The profile fields of ID token claims worth keeping (prefills 'Review your information')."""
    keep = ("sub", "name", "given_name", "family_name", "email", "email_verified", "picture", "locale")
    out: dict[str, Any] = {}
    for key in keep:
        value = claims.get(key)
        if isinstance(value, (str, bool)) or (key == "locale" and isinstance(value, dict)):
            out[key] = value[:500] if isinstance(value, str) else value
    return out


def claims_email_verified(claims: Mapping[str, Any]) -> bool:
    value = claims.get("email_verified")
    return value is True or (isinstance(value, str) and value.lower() == "true")
