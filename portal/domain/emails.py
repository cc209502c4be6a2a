"""The text of every e-mail the portal sends (subject, body), built from plain values."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Email:
    subject: str
    body: str


def verify_email(*, brand: str, email: str, link: str, work: bool, hours: int) -> Email:
    which = "work email" if work else "email"
    return Email(
        subject=f"Verify your {which} for {brand}",
        body=(
            f"Hello,\n\nPlease confirm that {email} is your {which} by opening this link:\n\n{link}\n\n"
            f"The link works once and expires in {hours} hours. If you did not ask for it, ignore this message.\n\n"
            f"{brand}\n"
        ),
    )


def password_reset(*, brand: str, link: str, minutes: int) -> Email:
    return Email(
        subject=f"Reset your {brand} password",
        body=(
            f"Hello,\n\nSomeone asked to reset the password of your {brand} account. To choose a new one, open:\n\n"
            f"{link}\n\nThe link works once and expires in {minutes} minutes. "
            "If you did not ask for it, ignore this message: your password stays as it is.\n\n"
            f"{brand}\n"
        ),
    )


def email_changed(*, brand: str, old_email: str, new_email: str) -> Email:
    return Email(
        subject=f"The email address of your {brand} account was changed",
        body=(
            f"Hello,\n\nThe email address of your {brand} account was changed from {old_email} to {new_email}.\n\n"
            "If you made this change, there is nothing to do. If you did not, contact support right away.\n\n"
            f"{brand}\n"
        ),
    )


def password_reset_no_password(*, brand: str, sign_in_link: str) -> Email:
    """A reset was asked for an account that signs in with LinkedIn or Google (it has no password)."""
    return Email(
        subject=f"Reset your {brand} password",
        body=(
            f"Hello,\n\nSomeone asked to reset the password of your {brand} account, but your account has no "
            f"password: you sign in with LinkedIn or Google. Sign in here:\n\n{sign_in_link}\n\n"
            "If you did not ask for this, ignore this message.\n\n"
            f"{brand}\n"
        ),
    )


def password_changed(*, brand: str, forgot_link: str) -> Email:
    return Email(
        subject=f"Your {brand} password was changed",
        body=(
            f"Hello,\n\nThe password of your {brand} account was just changed and every signed-in device was "
            f"signed out.\n\n"
            f"If you made this change, there is nothing to do. If you did not, reset your password now at "
            f"{forgot_link} and contact support.\n\n"
            f"{brand}\n"
        ),
    )


def test_invite(*, brand: str, test_label: str, payout: str, link: str, hours: int) -> Email:
    return Email(
        subject=f"New paid test for you: {test_label} ({payout})",
        body=(
            f"Hello,\n\nYou are invited to a paid {test_label} on {brand}. It pays {payout} once your answers are "
            f"approved.\n\nStart it here:\n\n{link}\n\nThe invite is open for {hours} hours.\n\n{brand}\n"
        ),
    )


def appeal_decided(*, brand: str, test_label: str, overturned: bool, note: str, link: str) -> Email:
    """To the participant when staff decide their appeal (issue 36)."""
    if overturned:
        subject = f"Your appeal was accepted: {test_label}"
        outcome = (
            f"A staff member reviewed your appeal against the rejection of your answers to {test_label} and "
            f"overturned it: your answers are approved and your reward is payable."
        )
    else:
        subject = f"Your appeal was reviewed: {test_label}"
        outcome = (
            f"A staff member reviewed your appeal against the rejection of your answers to {test_label}. "
            f"The rejection stands."
        )
    said = f"\n\nTheir note: {note}" if note else ""
    return Email(
        subject=subject,
        body=f"Hello,\n\n{outcome}{said}\n\nYour rewards: {link}\n\n{brand}\n",
    )


def appeal_received(*, brand: str, test_label: str, review_id: int, link: str) -> Email:
    """To the staff member who rejected a review when its participant appeals (issue 36): another decides it."""
    return Email(
        subject=f"Your rejection of review #{review_id} was appealed: {test_label}",
        body=(
            f"Hello,\n\nThe participant whose answers to {test_label} you rejected (review #{review_id}) appealed. "
            f"A staff member other than you decides the appeal; you will be told the outcome.\n\n"
            f"Open appeals: {link}\n\n{brand}\n"
        ),
    )


def appeal_outcome_for_staff(*, brand: str, test_label: str, review_id: int, overturned: bool, note: str) -> Email:
    """To the staff member who rejected a review when another decides its appeal (issue 36)."""
    outcome = (
        "overturned your rejection: the answers are approved and the reward is payable."
        if overturned
        else "upheld your rejection."
    )
    said = f"\n\nTheir note: {note}" if note else ""
    return Email(
        subject=f"Appeal {'overturned' if overturned else 'upheld'}: review #{review_id}, {test_label}",
        body=f"Hello,\n\nA staff member decided the appeal against review #{review_id} of {test_label} and {outcome}"
        f"{said}\n\n{brand}\n",
    )
