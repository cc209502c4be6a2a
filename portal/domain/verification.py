"""Verification rules and messages: which e-mail a link is for, and what the user is told."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote

from portal.domain.navigation import RELOADED_FOR_NEW_PERSON, RELOADED_PARAM

KINDS = {"personal": "verify-email", "work": "verify-work-email"}

VERIFIED = "Your email {email} has been verified"
ALREADY_VERIFIED = "Your email {email} is already verified"
LINK_INVALID = "This verification link is invalid or has expired. Please request a new one."
RESEND_SENT = "New verification email was sent."
RESEND_FAILED = "Please check email address"
SOMETHING_WENT_WRONG = "Something went wrong, please try again later"
VERIFY_PAGE_SENT = "Verification email sent! Please check your inbox."
VERIFY_PAGE_FAILED = "Failed to send verification email. Please try again."
VERIFY_PAGE_ALREADY = "Your email is already verified. Please contact support if you need assistance."


def purpose_for(kind: str) -> str | None:
    return KINDS.get(kind)


@dataclass(frozen=True)
class Notices:
    """What a page does with the e-mail-link query parameters it was opened with."""

    toasts: tuple[tuple[str, str], ...] = ()  # (level, message)
    remove_params: tuple[str, ...] = ()
    redirect: str | None = None


def notices_for(query: dict[str, str], *, signed_in_and_verified: bool, return_path: str) -> Notices:
    """ev+email: 'has been verified', then both removed. eav: 'already verified', then on to `to` or home."""
    email = query.get("email", "")
    if query.get("ev") and email:
        return Notices(toasts=(("success", VERIFIED.format(email=email)),), remove_params=("ev", "email"))
    if query.get("eav") and email:
        toast = (("warning", ALREADY_VERIFIED.format(email=email)),)
        if signed_in_and_verified:
            return Notices(toasts=toast, redirect=return_path)
        return Notices(toasts=toast, remove_params=("eav",))
    if query.get("verification") == "invalid":
        return Notices(toasts=(("error", LINK_INVALID),), remove_params=("verification",))
    if query.get(RELOADED_PARAM) == "1":
        return Notices(toasts=(("info", RELOADED_FOR_NEW_PERSON),), remove_params=(RELOADED_PARAM,))
    return Notices()


THANK_YOU_PATH = "/thank-you"


def after_link(status: str, email: str, *, sign_up: bool = False) -> str:
    """Where the verification link sends the browser.

    `sign_up`: the work e-mail of a participant still in the sign-up (registration complete, not
    yet verified) was verified: they reach the thank-you after sign-up (screen 12).
    """
    if status == "verified":
        return f"{THANK_YOU_PATH if sign_up else '/'}?ev=1&email={quote(email)}"
    if status == "already":
        return f"/sign-in?eav=1&email={quote(email)}"
    return "/sign-in?verification=invalid"


# A participant whose e-mails are confirmed but who is not verified (profile not completed, staff not verified): why
# no test comes (issue 40).
AWAITING_VERIFICATION = (
    "Your account is not verified yet. Invites to paid tests start once we have verified it: complete your profile "
    "(job title, company and seniority), and our team checks it."
)
