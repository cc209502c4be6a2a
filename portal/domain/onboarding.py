"""The onboarding's three steps (spec section 4) as a small state machine, and its texts.

Steps: 0 'Review info', 1 'Additional details', 2 'Validate email'. Forward movement needs the
steps before the target to validate; earlier steps are always open. Later steps are disabled
while any error is shown. The 'Validate email' step needs a finished registration: the button of
step 1 ('Continue') sends the profile and then moves on; entering it by its tab sends the profile
again when registration is complete and nothing is wrong; before registration is complete its
tab is disabled (there is no address to validate yet).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from portal.domain.ids import whole_number
from portal.domain.sign_up_fields import DETAILS_INCOMPLETE, REQUIRED, REVIEW_INCOMPLETE

REVIEW, DETAILS, VALIDATE = 0, 1, 2
STEPS: tuple[str, ...] = ("Review info", "Additional details", "Validate email")
LAST = VALIDATE

# Which fields each form step holds.
STEP_FIELDS: dict[int, tuple[str, ...]] = {
    REVIEW: ("firstName", "lastName", "jobTitle", "email", "companyName"),
    DETAILS: ("workEmail", "employerHqCountry"),
}
INCOMPLETE: dict[int, str] = {REVIEW: REVIEW_INCOMPLETE, DETAILS: DETAILS_INCOMPLETE}

# Texts of the screen (spec sections 2 and 8).
TITLE = "Finish your registration"
REVIEW_TITLE = "Review your information"
LOOKS_GOOD = "Looks good"
GO_BACK = "Go back"
CONTINUE = "Continue"
SUBMITTING = "Submitting..."
RESEND = "Resend email"
RESEND_SENT = "Verification email has been sent successfully!"  # the onboarding's reading
RESEND_FAILED = "Please check email address"
SOMETHING_WENT_WRONG = "Something went wrong, please try again later"
SUBMIT_FAILED = "An error occurred during submission"
PROFILE_REMOVED = "Sorry, your profile was removed"
FORM_ERROR = "Form contains error, please double check all fields."
SIGNUP_EVENT = "sign_up"  # the analytics event name pushed to window.dataLayer


def as_step(value: Any) -> int | None:
    """A step index from anything a browser may send; None when it is not one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        value = whole_number(value)
    if isinstance(value, int) and REVIEW <= value <= LAST:
        return value
    return None


def step_of(field: str) -> int | None:
    for step, fields in STEP_FIELDS.items():
        if field in fields:
            return step
    return None


def first_step(*, registration_complete: bool) -> int:
    """Where the screen opens: a finished registration is at 'Validate email'."""
    return VALIDATE if registration_complete else REVIEW


def back(step: Any) -> int:
    """'Go back': one step down, never below 0."""
    current = as_step(step)
    return max((current or 0) - 1, REVIEW)


def step_errors(step: int, errors: Mapping[str, str]) -> dict[str, str]:
    fields = STEP_FIELDS.get(step, ())
    return {key: message for key, message in errors.items() if key in fields and message}


def incomplete_message(step: int, errors: Mapping[str, str]) -> str:
    """The form-level message of a step: shown while one of its required fields is empty."""
    for key, message in step_errors(step, errors).items():
        if REQUIRED.get(key) == message:
            return INCOMPLETE[step]
    return ""


def tab_enabled(index: Any, current: Any, *, any_error: bool, registration_complete: bool) -> bool:
    """Earlier steps are always open; later ones not while an error shows; the last needs registration."""
    target, at = as_step(index), as_step(current)
    if target is None or at is None:
        return False
    if target <= at:
        return True
    if any_error:
        return False
    return target != LAST or registration_complete


@dataclass(frozen=True)
class Move:
    """What a move request leads to."""

    step: int  # the step to show now (the target, or the current one when refused)
    submit: bool = False  # send the profile first; move to `target` only when that succeeds
    target: int = 0
    blocked_by: int | None = None  # the step whose fields stopped the move


def plan(
    current: Any,
    target: Any,
    *,
    errors: Mapping[str, str],
    registration_complete: bool,
    by_tab: bool,
    any_error: bool | None = None,
) -> Move:
    """Decide a move from `current` to `target` ('Looks good'/'Continue' or a click on a tab).

    `errors` are the messages of every field as the server sees them now (live and database
    checks); moving forward validates every form step before the target. `any_error`: whether
    the screen shows an error now (disables the later tabs); by default, whether `errors` has one.
    """
    at = as_step(current)
    to = as_step(target)
    if at is None:
        at = REVIEW
    if to is None:
        return Move(step=at, target=at)
    if to <= at:
        return Move(step=to, target=to)
    for step in range(REVIEW, min(to, LAST)):
        if step_errors(step, errors):
            return Move(step=at, target=to, blocked_by=step)
    shown = bool(errors) if any_error is None else any_error
    if by_tab and not tab_enabled(to, at, any_error=shown, registration_complete=registration_complete):
        return Move(step=at, target=to, blocked_by=at)
    if to == LAST:
        # The button of step 1 always sends; the tab only once registration is complete (enabled above).
        return Move(step=at, target=to, submit=True)
    return Move(step=to, target=to)
