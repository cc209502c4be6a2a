"""'Delete my account' (issue 40, item 2): the wording, and what an erased account is called where it still shows."""

from __future__ import annotations

PURPOSE = "delete-account"
LINK_MINUTES = 60
PATH = "/account/delete"

HEADING = "Delete my account"
TEXT = (
    "Deleting your account signs you out everywhere and erases your profile, e-mail addresses, phone and messages. "
    "It cannot be undone. We keep only what the law and our payment records need: the amounts and dates of your "
    "rewards, and an anonymous record that the account existed. Download your data first if you want a copy."
)
BUTTON = "E-mail me a link to delete my account"
SENT = "We sent a link to {email}. Open it within 60 minutes to delete your account."
STAFF = "Staff accounts are not deleted from here: a super-admin deactivates them on the participants page."
CONFIRM_TITLE = "Delete your account for good?"
CONFIRM_BUTTON = "Delete my account"
LINK_DEAD = "This link has expired or was used already. Ask for a new one in account settings."
DELETED = "Your account was deleted."
TOO_MANY = "We sent you a link a moment ago. Please check your e-mail, or wait a few minutes before asking again."
# Links asked for per account and hour.
MAX_LINKS_PER_HOUR = 3

DATA_HEADING = "Your data"
DATA_TEXT = (
    "Download everything we hold about you: your profile, e-mails, invites, reviews with your answers, rewards, "
    "messages and sign-ins, as a ZIP of JSON and CSV files."
)
DATA_BUTTON = "Download my data"


def placeholder(account_id: int) -> str:
    """What stands where the person's name or address was (audit rows, the e-mail log)."""
    return f"account #{account_id} (deleted)"


def placeholder_address(account_id: int) -> str:
    return f"deleted-{account_id}@deleted.invalid"
