"""Editing a test's common fields at /admin/tests/{id}: the status changes staff may make, and the edit
form read into the test's definition document, so that the import's checks (test_definition) judge
an edit exactly as they judge an uploaded file. The live messages and the server's re-check both use
`check_form` below.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from datetime import UTC, datetime
from typing import Any

from portal.domain.definition import EXCLUSION_WINDOWS, validate_test_definition
from portal.domain.definition_checks import DefinitionError
from portal.domain.reference_data import PANELS, SESSION_LENGTHS, TEST_SENIORITY_KEYS, TEST_STATUSES
from portal.domain.staff.incentives import dollars_as_cents

STATUS_LABELS: dict[str, str] = {
    "draft": "Draft",
    "ready-to-launch": "Ready to launch",
    "scheduled": "Scheduled",
    "running": "Running",
    "stopped": "Stopped",
    "completed": "Completed",
    "removed": "Removed",
    "paused": "Paused by reports",
}
assert set(STATUS_LABELS) == set(TEST_STATUSES)

# Where a test may go from each status. Before launch anything but 'stopped' and 'completed'; once it
# has run it never goes back to draft or ready-to-launch: running <-> stopped, then completed, then removed.
# Two more rules (check_form): a test whose definition has problems stays a draft (or is removed), and
# 'scheduled' needs a time in the future (the launch job starts it then: portal/services/admin/launches.py).
TRANSITIONS: dict[str, tuple[str, ...]] = {
    "draft": ("ready-to-launch", "scheduled", "running", "removed"),
    "ready-to-launch": ("draft", "scheduled", "running", "removed"),
    "scheduled": ("draft", "ready-to-launch", "running", "removed"),
    "running": ("stopped", "completed"),
    "stopped": ("running", "completed", "removed"),
    "completed": ("removed",),
    "removed": (),
    # Paused by participants' reports (issue 38): only the reports page resumes or closes it (/admin/reports), so
    # that open sessions get their paused time back and reporters are paid.
    "paused": (),
}
assert set(TRANSITIONS) == set(TEST_STATUSES)


# The statuses a test whose definition still has problems may have (a new test is a draft until its
# content is complete).
INCOMPLETE_OK = ("draft", "removed")
NOT_COMPLETE = (
    "This test's definition has {count} (listed below): fix them before it becomes {status}; it can stay a draft "
    "until then."
)
# Stop and resume on the test's page: (from, to, button label).
STOP, RESUME = ("running", "stopped"), ("stopped", "running")


def next_statuses(current: str) -> tuple[str, ...]:
    """The statuses the status field offers: the current one first, then where it may go."""
    return (current, *TRANSITIONS.get(current, ()))


def status_problem(current: str, new: Any) -> str | None:
    """Why a test in `current` cannot be set to `new` (None: it can, or it stays)."""
    if new == current:
        return None
    if new not in TRANSITIONS:
        return "Choose one of the listed statuses."
    if new not in TRANSITIONS.get(current, ()):
        allowed = TRANSITIONS.get(current, ())
        where = " or ".join(STATUS_LABELS[s].lower() for s in allowed) if allowed else "nothing else"
        return f"A {STATUS_LABELS[current].lower()} test can become {where}, not {STATUS_LABELS[new].lower()}."
    return None


# --- the form ----------------------------------------------------------------------------------------

SESSION_LABELS: dict[int, str] = {3600: "60 minutes", 900: "15 minutes", 300: "5 minutes"}
assert set(SESSION_LABELS) == set(SESSION_LENGTHS)
PANEL_LABELS: dict[str, str] = {
    "b2b": "B2B panel",
    "custom": "Custom",
    "mturk": "Crowd work (MTurk)",
    "external": "External panel",
}
assert set(PANEL_LABELS) == set(PANELS)
WELCOME_PARTS = ("title", "body", "button")
# The participant quota (spec section 9): '' stands for unlimited in the definition (null), 'unlimited' in the form
# (a select's value cannot be empty).
UNLIMITED = "unlimited"
LIMIT_OPTIONS: tuple[tuple[str, str], ...] = (
    ("15", "15 (97% of problems)"),
    ("30", "30"),
    ("50", "50"),
    ("100", "100"),
    ("200", "200"),
    ("400", "400"),
    (UNLIMITED, "Unlimited"),
)
EXCLUSION_LABELS: dict[int, str] = {
    -1: "All: anyone who took a test before",
    0: "None",
    30: "30 days",
    60: "60 days",
    90: "90 days",
}
assert tuple(EXCLUSION_LABELS) == EXCLUSION_WINDOWS
# What the form says about the payout (the spec's "Payout 15 to 50 dollars" is the usual range, not a limit).
PAYOUT_HINT = "What someone earns who takes the test without an invite; usually $15 to $50, at most $1,000."

# The form's fields (all text): field -> the definition field it edits.
FORM_FIELDS: dict[str, str] = {
    "name": "name",
    "status": "status",
    "session": "sessionSeconds",
    "payout": "payoutCents",
    "limit": "participantLimit",
    "exclusion": "exclusionDays",
    **{f"seniority.{k}": "seniorityLimits" for k in TEST_SENIORITY_KEYS},
    "panel": "panel",
    "country": "audienceCountry",
    "qualifications": "qualifications",
    "frame": "frameOfMind",
    **{f"welcome.{p}": "welcomeModal" for p in WELCOME_PARTS},
}
NOT_A_SUM = "Enter an amount in dollars, e.g. 20 or 20.50."
NOT_A_NUMBER = "Enter a whole number, or leave it empty for no limit."
# When a scheduled test starts: a date and a time, in UTC (not part of the definition document).
SCHEDULE_FIELDS = ("scheduled.date", "scheduled.time")
FORM_KEYS = (*FORM_FIELDS, *SCHEDULE_FIELDS)
SCHEDULE_DATE_NEEDED = "Choose the date when the test starts."
SCHEDULE_TIME_NEEDED = "Choose the time (UTC) when the test starts."
SCHEDULE_BAD_DATE = "Enter a date as YYYY-MM-DD."
SCHEDULE_BAD_TIME = "Enter a time as HH:MM (24-hour clock, UTC)."
SCHEDULE_PAST = "Choose a time in the future (or choose Running to launch the test now)."


def _cents_text(cents: Any) -> str:
    return (
        f"{cents // 100}"
        if isinstance(cents, int) and cents % 100 == 0
        else f"{cents / 100:.2f}"
        if isinstance(cents, int)
        else ""
    )


def form_of(doc: Mapping[str, Any], scheduled_at: datetime | None = None) -> dict[str, str]:
    """The form's text for a test's definition document (document_of) and its scheduled start (UTC)."""
    limits = doc.get("seniorityLimits") or {}
    welcome = doc.get("welcomeModal") or {}
    when = scheduled_at.astimezone(UTC) if scheduled_at is not None and scheduled_at.tzinfo else scheduled_at
    return {
        "name": doc.get("name", ""),
        "status": doc.get("status", "draft"),
        "session": str(doc.get("sessionSeconds", 3600)),
        "payout": _cents_text(doc.get("payoutCents", 0)),
        "limit": UNLIMITED if doc.get("participantLimit") is None else str(doc["participantLimit"]),
        "exclusion": str(doc.get("exclusionDays", 0)),
        "scheduled.date": when.strftime("%Y-%m-%d") if when else "",
        "scheduled.time": when.strftime("%H:%M") if when else "",
        **{f"seniority.{k}": "" if limits.get(k) is None else str(limits[k]) for k in TEST_SENIORITY_KEYS},
        "panel": doc.get("panel", "b2b"),
        "country": doc.get("audienceCountry", "US"),
        "qualifications": "\n".join(doc.get("qualifications") or []),
        "frame": doc.get("frameOfMind") or "",
        **{f"welcome.{p}": welcome.get(p, "") for p in WELCOME_PARTS},
    }


def limit_options(current: str) -> list[tuple[str, str]]:
    """The quota's options: the spec's, and the test's own when a file set another number."""
    if current and current not in dict(LIMIT_OPTIONS):
        return [*LIMIT_OPTIONS[:-1], (current, f"{current} (set by an imported file)"), LIMIT_OPTIONS[-1]]
    return list(LIMIT_OPTIONS)


def exclusion_text(days: int) -> str:
    """'30 days', 'All', 'None' (the tests list and the invite page)."""
    return {-1: "All", 0: "None"}.get(days, f"{days} days")


def _whole(text: str) -> int | None:
    text = text.strip()
    if not text or text == UNLIMITED:
        return None
    if not text.isascii() or not text.isdigit() or len(text) > 9:
        raise ValueError(NOT_A_NUMBER)
    return int(text)


def _put(doc: dict[str, Any], key: str, value: Any) -> None:
    if value is None or value == {} or value == [] or value == "":
        doc.pop(key, None)
    else:
        doc[key] = value


def document_with(doc: Mapping[str, Any], form: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """The definition document with the form's values in place of the common fields, and the form's own
    problems (text that is not a number, a sum or JSON) by form field. Unknown form keys are ignored."""
    text = {key: (got if isinstance(got := form.get(key), str) else "") for key in FORM_FIELDS}
    out = dict(doc)
    problems: dict[str, str] = {}
    out["name"] = text["name"]
    out["status"] = text["status"]
    out["sessionSeconds"] = (
        int(text["session"]) if text["session"].isascii() and text["session"].isdigit() else text["session"]
    )
    try:
        cents = dollars_as_cents(text["payout"])
        _put(out, "payoutCents", cents)
    except ValueError:
        problems["payout"] = NOT_A_SUM
    try:
        _put(out, "participantLimit", _whole(text["limit"]))
    except ValueError as e:
        problems["limit"] = str(e)
    exclusion = text["exclusion"].strip()
    digits = exclusion.removeprefix("-")
    days: int | str = int(exclusion) if digits.isascii() and digits.isdigit() and len(digits) < 6 else exclusion
    _put(out, "exclusionDays", days or None)  # 0 (none) is the default, left out like the export leaves it
    limits: dict[str, int] = {}
    for key in TEST_SENIORITY_KEYS:
        try:
            value = _whole(text[f"seniority.{key}"])
        except ValueError as e:
            problems[f"seniority.{key}"] = str(e)
            continue
        if value is not None:
            limits[key] = value
    _put(out, "seniorityLimits", limits)
    out["panel"] = text["panel"]
    out["audienceCountry"] = text["country"].strip().upper()
    _put(out, "qualifications", [q.strip() for q in text["qualifications"].split("\n") if q.strip()])
    _put(out, "frameOfMind", text["frame"].strip())
    _put(out, "welcomeModal", {p: text[f"welcome.{p}"].strip() for p in WELCOME_PARTS if text[f"welcome.{p}"].strip()})
    return out, problems


def form_field_of(path: str) -> str:
    """The form field showing a definition error at `path` ('' when it is not a common field)."""
    head = path.split(".", 1)[0].split("[", 1)[0]
    if head == "seniorityLimits" and "." in path:
        key = path.split(".", 1)[1].split(".", 1)[0]
        return f"seniority.{key}" if key in TEST_SENIORITY_KEYS else "seniority.senior"
    if head == "welcomeModal" and "." in path:
        part = path.split(".", 1)[1]
        return f"welcome.{part}" if part in WELCOME_PARTS else "welcome.title"
    if head == "welcomeModal":
        return "welcome.title"
    for field, definition_field in FORM_FIELDS.items():
        if definition_field == head and not field.startswith(("seniority.", "welcome.")):
            return field
    return ""


def schedule_of(date_text: Any, time_text: Any) -> tuple[datetime | None, dict[str, str]]:
    """The start of a scheduled test from the form's date (YYYY-MM-DD) and time (HH:MM), both UTC; the
    problems by form field when they are missing or not a date or a time."""
    date = date_text.strip() if isinstance(date_text, str) else ""
    time = time_text.strip() if isinstance(time_text, str) else ""
    problems: dict[str, str] = {}
    if not date:
        problems["scheduled.date"] = SCHEDULE_DATE_NEEDED
    if not time:
        problems["scheduled.time"] = SCHEDULE_TIME_NEEDED
    day = clock = None
    if date:
        try:
            day = datetime.strptime(date, "%Y-%m-%d") if date.isascii() and len(date) == 10 else None
        except ValueError:
            day = None
        if day is None:
            problems["scheduled.date"] = SCHEDULE_BAD_DATE
    if time:
        try:
            clock = datetime.strptime(time[:5], "%H:%M") if time.isascii() and len(time) in (5, 8) else None
        except ValueError:
            clock = None
        if clock is None:
            problems["scheduled.time"] = SCHEDULE_BAD_TIME
    if problems or day is None or clock is None:
        return None, problems
    return day.replace(hour=clock.hour, minute=clock.minute, tzinfo=UTC), {}


def _plural(n: int, one: str, many: str) -> str:
    return f"1 {one}" if n == 1 else f"{n} {many}"


@dataclass(frozen=True)
class FormCheck:
    document: dict[str, Any]
    problems: dict[str, str]  # form field -> the first message ('' key: problems outside the form)
    listing: list[str]  # every problem of the form's fields, with its path
    # The definition's problems outside the form (its questions, pages, areas: the builder's part). A draft
    # is saved with them; every other status waits until they are fixed.
    content: list[str] = dataclass_field(default_factory=list)
    scheduled_at: datetime | None = None  # the start of a scheduled test (UTC)

    @property
    def ok(self) -> bool:
        return not self.problems


def check_form(
    doc: Mapping[str, Any],
    form: Mapping[str, Any],
    current_status: str,
    *,
    now: datetime | None = None,
    scheduled_before: datetime | None = None,
) -> FormCheck:
    """The edited document and every problem with it: the form's own, the status change (the path rule, a
    definition with problems stays a draft, a schedule in the future), and the import's checks of the whole
    document. Problems outside the form (`content`) hold back every status but draft and removed."""
    document, problems = document_with(doc, form)
    listing = [f"{FORM_FIELDS[f]}: {m}" for f, m in problems.items()]
    new_status = document.get("status")
    status = status_problem(current_status, new_status)
    if status:
        problems.setdefault("status", status)
        listing.append(f"status: {status}")
    content: list[str] = []
    errors: list[DefinitionError] = validate_test_definition(document)
    for error in errors:
        form_field = form_field_of(error.path)
        if not form_field:
            content.append(str(error))
            continue
        if form_field not in problems:
            problems[form_field] = error.message
        listing.append(str(error))
    if content and new_status not in INCOMPLETE_OK and "status" not in problems:
        label = STATUS_LABELS.get(str(new_status), str(new_status)).lower()
        problems["status"] = NOT_COMPLETE.format(count=_plural(len(content), "problem", "problems"), status=label)
    scheduled_at = None
    if new_status == "scheduled":
        scheduled_at, schedule_problems = schedule_of(form.get("scheduled.date"), form.get("scheduled.time"))
        moved = current_status != "scheduled" or scheduled_at != scheduled_before
        if scheduled_at is not None and moved and scheduled_at <= (now or datetime.now(UTC)):
            schedule_problems = {"scheduled.time": SCHEDULE_PAST}
        for key, message in schedule_problems.items():
            problems.setdefault(key, message)
            listing.append(f"scheduledAt: {message}")
    return FormCheck(document=document, problems=problems, listing=listing, content=content, scheduled_at=scheduled_at)


def quotas_text(limit: int | None, seniority: Mapping[str, int] | None) -> str:
    """'50 people · senior 10, middle 20' for the tests list ('No limit' when there is none)."""
    parts = [f"{limit} people" if limit is not None else "No limit"]
    levels = [f"{k} {v}" for k, v in (seniority or {}).items() if isinstance(v, int)]
    if levels:
        parts.append(", ".join(levels))
    return " · ".join(parts)
