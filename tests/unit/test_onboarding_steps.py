"""The onboarding's step machine (spec section 4)."""

from __future__ import annotations

import pytest

from portal.domain import onboarding as steps

NO_ERRORS: dict[str, str] = {}
REVIEW_ERROR = {"firstName": "First name is required"}
DETAILS_ERROR = {"workEmail": "Email already exists"}


def test_steps_and_labels():
    assert steps.STEPS == ("Review info", "Additional details", "Validate email")
    assert (steps.LOOKS_GOOD, steps.GO_BACK, steps.CONTINUE, steps.SUBMITTING, steps.RESEND) == (
        "Looks good",
        "Go back",
        "Continue",
        "Submitting...",
        "Resend email",
    )
    assert steps.RESEND_SENT == "Verification email has been sent successfully!"


@pytest.mark.parametrize(
    ("step", "expected"), [(0, 0), (1, 0), (2, 1), ("2", 1), (-3, 0), (None, 0), ("x", 0), (True, 0), (9, 0)]
)
def test_back_never_below_zero(step, expected):
    assert steps.back(step) == expected


def test_forward_needs_the_step_to_validate():
    assert steps.plan(0, 1, errors=NO_ERRORS, registration_complete=False, by_tab=False) == steps.Move(step=1, target=1)
    blocked = steps.plan(0, 1, errors=REVIEW_ERROR, registration_complete=False, by_tab=False)
    assert blocked.step == 0 and blocked.blocked_by == 0 and not blocked.submit
    # an error of a later step does not stop 'Looks good'
    assert steps.plan(0, 1, errors=DETAILS_ERROR, registration_complete=False, by_tab=False).step == 1


def test_submitting_at_step_1_sends_the_profile_only_without_errors():
    move = steps.plan(1, 2, errors=NO_ERRORS, registration_complete=False, by_tab=False)
    assert move.submit and move.step == 1 and move.target == 2  # moves on only once the save succeeded
    assert steps.plan(1, 2, errors=DETAILS_ERROR, registration_complete=False, by_tab=False) == steps.Move(
        step=1, target=2, blocked_by=1
    )
    assert steps.plan(1, 2, errors=REVIEW_ERROR, registration_complete=True, by_tab=False).blocked_by == 0


def test_jumping_ahead_by_tab_validates_first():
    assert steps.plan(0, 1, errors=REVIEW_ERROR, registration_complete=False, by_tab=True).blocked_by == 0
    assert steps.plan(0, 1, errors=NO_ERRORS, registration_complete=False, by_tab=True).step == 1
    # the last step before registration is complete: its tab is disabled
    assert steps.plan(0, 2, errors=NO_ERRORS, registration_complete=False, by_tab=True).step == 0
    assert steps.plan(1, 2, errors=NO_ERRORS, registration_complete=False, by_tab=True).blocked_by == 1
    # once complete, entering the last step by tab sends the profile (when nothing is wrong)
    move = steps.plan(0, 2, errors=NO_ERRORS, registration_complete=True, by_tab=True)
    assert move.submit and move.target == 2
    assert steps.plan(0, 2, errors=DETAILS_ERROR, registration_complete=True, by_tab=True).blocked_by == 1


def test_a_tab_is_disabled_by_shown_errors_only():
    # an empty work e-mail (not shown yet) does not stop the 'Additional details' tab
    hidden = {"workEmail": "Work email is required"}
    assert steps.plan(0, 1, errors=hidden, registration_complete=False, by_tab=True, any_error=False).step == 1
    assert steps.plan(0, 1, errors=hidden, registration_complete=False, by_tab=True, any_error=True).blocked_by == 0


def test_going_back_by_tab_is_always_allowed():
    assert steps.plan(2, 0, errors=REVIEW_ERROR, registration_complete=True, by_tab=True) == steps.Move(
        step=0, target=0
    )
    assert steps.plan(1, 1, errors=DETAILS_ERROR, registration_complete=False, by_tab=True).step == 1


@pytest.mark.parametrize("target", [None, "x", -1, 3, 2.5, True, [1]])
def test_bad_targets_do_not_move(target):
    assert steps.plan(1, target, errors=NO_ERRORS, registration_complete=True, by_tab=True) == steps.Move(
        step=1, target=1
    )


def test_later_steps_disabled_while_any_error_exists():
    enabled = lambda i, at, err, done: steps.tab_enabled(i, at, any_error=err, registration_complete=done)  # noqa: E731
    assert [enabled(i, 0, False, False) for i in range(3)] == [True, True, False]
    assert [enabled(i, 0, True, True) for i in range(3)] == [True, False, False]
    assert [enabled(i, 1, True, True) for i in range(3)] == [True, True, False]
    assert [enabled(i, 0, False, True) for i in range(3)] == [True, True, True]
    assert [enabled(i, 2, True, True) for i in range(3)] == [True, True, True]
    assert not enabled("x", 0, False, True) and not enabled(1, None, False, True)


def test_first_step_and_messages():
    assert steps.first_step(registration_complete=False) == 0
    assert steps.first_step(registration_complete=True) == 2
    assert steps.incomplete_message(0, REVIEW_ERROR) == "All fields are required to continue."
    assert steps.incomplete_message(1, {"employerHqCountry": "Country of employer headquarters is required"}) == (
        "Please complete all required(*) fields to continue."
    )
    # an invalid value that is not missing gives no 'complete all fields' message
    assert steps.incomplete_message(1, DETAILS_ERROR) == ""
    assert steps.incomplete_message(0, DETAILS_ERROR) == ""
    assert steps.step_of("workEmail") == 1 and steps.step_of("email") == 0 and steps.step_of("nope") is None
