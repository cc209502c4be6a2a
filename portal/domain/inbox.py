"""Messages between staff and a participant (issue 38, item 3): the rules, with no I/O.

A thread belongs to one participant; it is about a test (a review of theirs) or general, and either side may start
it. Staff share one inbox: a participant's message is unread until any staff member opens the thread.
"""

from __future__ import annotations

SUBJECT_MAX = 120
BODY_MAX = 5000
PREVIEW_CHARS = 140
GROUP_MAX = 10_000  # recipients of one group message

PAGE_PATH = "/messages"
STAFF_PATH = "/admin/messages"

SUBJECT_REQUIRED = "Write a subject."
SUBJECT_TOO_LONG = f"The subject is too long (at most {SUBJECT_MAX} characters)."
BODY_REQUIRED = "Write a message."
BODY_TOO_LONG = f"The message is too long (at most {BODY_MAX:,} characters)."
NOT_FOUND = "This conversation does not exist."
NO_PARTICIPANT = "This participant does not exist."
NO_REVIEW = "This test is not one of yours."
NOBODY = "No participant matches: nobody would get this message."
TOO_MANY = f"A group message goes to at most {GROUP_MAX:,} participants: narrow the filters."
SENT_ALREADY = "This message was sent already."
GENERAL = "General"


def clean_subject(raw: object) -> tuple[str, str | None]:
    """(the subject, spaces trimmed and runs of whitespace made one, None) or ('', the message)."""
    text = " ".join(raw.split()) if isinstance(raw, str) else ""
    if not text:
        return "", SUBJECT_REQUIRED
    if len(text) > SUBJECT_MAX:
        return "", SUBJECT_TOO_LONG
    return text, None


def clean_body(raw: object) -> tuple[str, str | None]:
    """(the message, surrounding blank space trimmed, line breaks kept, None) or ('', the message)."""
    text = raw.strip().replace("\r\n", "\n") if isinstance(raw, str) else ""
    if not text:
        return "", BODY_REQUIRED
    if len(text) > BODY_MAX:
        return "", BODY_TOO_LONG
    return text, None


def preview(body: str, limit: int = PREVIEW_CHARS) -> str:
    """The start of a message on one line: what a notification and a list show."""
    line = " ".join(body.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def unread_label(count: int) -> str:
    """'3 unread' for a screen reader beside the header's badge ('' for none)."""
    return f"{count} unread" if count > 0 else ""


def recipients_label(count: int) -> str:
    """'This message goes to 1 participant.' / '... 12 participants.'"""
    return f"This message goes to {count:,} participant{'s' if count != 1 else ''}."


def stamp(moment: object) -> str:
    """'Nov 29, 2026, 03:30 UTC' for a message's time."""
    from datetime import UTC, datetime

    from portal.domain.table import format_date

    if not isinstance(moment, datetime):
        return ""
    when = moment.astimezone(UTC) if moment.tzinfo else moment
    return f"{format_date(when)}, {when:%H:%M} UTC"


def staff_sender(first_name: str | None, brand: str) -> str:
    """How a staff member signs to a participant: 'Sam from Participants Portal' (or '... team')."""
    name = (first_name or "").strip()
    return f"{name} from {brand}" if name else f"The {brand} team"
