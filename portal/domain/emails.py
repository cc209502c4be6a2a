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


def password_changed(*, brand: str, forgot_link: str, kept_this_device: bool = False) -> Email:
    """After a reset every device is signed out; after a change in account settings every other one."""
    devices = "every other signed-in device" if kept_this_device else "every signed-in device"
    return Email(
        subject=f"Your {brand} password was changed",
        body=(
            f"Hello,\n\nThe password of your {brand} account was just changed and {devices} was "
            f"signed out.\n\n"
            f"If you made this change, there is nothing to do. If you did not, reset your password now at "
            f"{forgot_link} and contact support.\n\n"
            f"{brand}\n"
        ),
    )


def delete_account(*, brand: str, link: str, minutes: int) -> Email:
    """The confirmation of 'Delete my account' (issue 40): the link, what it does, and that ignoring it is safe."""
    return Email(
        subject=f"Confirm deleting your {brand} account",
        body=(
            f"Hello,\n\nYou asked to delete your {brand} account. To confirm, open this link within {minutes} "
            f"minutes:\n\n{link}\n\n"
            "Deleting it signs you out everywhere and erases your profile, e-mail addresses, phone and messages; it "
            "cannot be undone. We keep only what the law and our payment records need: the amounts and dates of your "
            "rewards, and an anonymous record that the account existed.\n\n"
            f"If you did not ask for this, ignore this e-mail: nothing happens.\n\n{brand}\n"
        ),
    )


def test_invite(
    *,
    brand: str,
    test_label: str,
    payout: str,
    link: str,
    hours: int,
    minutes: int | None = None,
    settings_link: str = "",
) -> Email:
    """A new invite (issue 38): what the test is, what it pays, how long it takes, and the invite's deadline."""
    article = "an" if test_label[:1].lower() in "aeiou" else "a"
    takes = f" Once you start, you have {minutes} minutes to finish it." if minutes else ""
    return Email(
        subject=f"A new paid test for you: {test_label}, {payout}",
        body=(
            f"Hello,\n\nThere is a new test for you on {brand}: {article} {test_label} test that pays {payout} "
            f"once your answers are approved.{takes}\n\n"
            f"Your invite is open for {hours} hours, and places go to whoever starts first, so if you would like "
            f"to take it, start soon:\n\n{link}\n\n"
            f"Thank you,\n{brand}\n{_settings_footer(settings_link)}"
        ),
    )


def invite_reminder(
    *, brand: str, test_label: str, payout: str, link: str, hours_left: int, settings_link: str
) -> Email:
    left = "less than an hour" if hours_left < 1 else f"about {hours_left} hour{'s' if hours_left != 1 else ''}"
    return Email(
        subject=f"Your invite to a {test_label} test ends soon",
        body=(
            f"Hello,\n\nA quick reminder: your invite to the {test_label} test on {brand} ({payout}) ends in "
            f"{left}. If you would still like to take it, start here:\n\n{link}\n\n"
            f"If not, there is nothing to do: the invite simply ends.\n\n{brand}\n{_settings_footer(settings_link)}"
        ),
    )


def account_verified(*, brand: str, link: str, settings_link: str) -> Email:
    return Email(
        subject=f"Your {brand} account is verified",
        body=(
            f"Hello,\n\nGood news: we checked your profile and your account is now verified. From now on you can "
            f"be invited to paid tests; we will write to you when one is waiting.\n\nYour account: {link}\n\n"
            f"{brand}\n{_settings_footer(settings_link)}"
        ),
    )


def review_approved(*, brand: str, test_label: str, payout: str, link: str, settings_link: str) -> Email:
    pays = f" Your reward of {payout} is on its way" if payout else " Your reward is on its way"
    return Email(
        subject=f"Your answers were approved: {test_label}",
        body=(
            f"Hello,\n\nThank you for taking the {test_label} test. Your answers were approved.{pays}: we will "
            f"write again when it is sent.\n\nYour rewards: {link}\n\n{brand}\n{_settings_footer(settings_link)}"
        ),
    )


def review_rejected(*, brand: str, test_label: str, reason: str, note: str, link: str, settings_link: str) -> Email:
    said = f"\n\nA note from the reviewer: {note}" if note else ""
    return Email(
        subject=f"Your answers were not accepted: {test_label}",
        body=(
            f"Hello,\n\nThank you for taking the {test_label} test. We are sorry, but your answers were not "
            f"accepted, so no reward will be paid for them.\n\nThe reason: {reason}.{said}\n\n"
            f"If you think this is a mistake, you can appeal once from your rewards page:\n\n{link}\n\n"
            f"{brand}\n{_settings_footer(settings_link)}"
        ),
    )


def reward_sent(*, brand: str, payout: str, what: str, email: str, link: str, settings_link: str) -> Email:
    return Email(
        subject=f"Your reward of {payout} was sent",
        body=(
            f"Hello,\n\nYour reward of {payout} for {what} was sent to {email}. Look out for a message from our "
            f"payout provider with the link to claim it.\n\nYour rewards: {link}\n\n"
            f"{brand}\n{_settings_footer(settings_link)}"
        ),
    )


def reward_failed(*, brand: str, payout: str, what: str, reason: str, link: str, settings_link: str) -> Email:
    why = f" The provider said: {reason}." if reason else ""
    return Email(
        subject=f"We could not send your reward of {payout}",
        body=(
            f"Hello,\n\nWe tried to send your reward of {payout} for {what}, but it did not go through.{why}\n\n"
            f"Please check the e-mail address for payments on your rewards page and send it again from there:\n\n"
            f"{link}\n\n{brand}\n{_settings_footer(settings_link)}"
        ),
    )


def new_message(*, brand: str, sender: str, subject: str, preview: str, link: str, settings_link: str) -> Email:
    """A message from staff (issue 38): who wrote, about what, and the start of the text."""
    return Email(
        subject=f"{sender} wrote to you: {subject}",
        body=(
            f'Hello,\n\n{sender} wrote to you on {brand} about "{subject}":\n\n  {preview}\n\n'
            f"Read the whole message and reply here:\n\n{link}\n\n{brand}\n{_settings_footer(settings_link)}"
        ),
    )


def _settings_footer(settings_link: str) -> str:
    if not settings_link:
        return ""
    return (
        f"\n--\nYou get this e-mail because of your notification settings. Choose what we send you: {settings_link}\n"
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
