"""Editing a test's common fields at /admin/tests/{id}: the status changes staff may make, and the edit
form read into the test's definition document, so that the import's checks (test_definition) judge
an edit exactly as they judge an uploaded file. The live messages and the server's re-check both use
`check_form` below.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from portal.domain.definition import validate_test_definition
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
}
assert set(STATUS_LABELS) == set(TEST_STATUSES)

# Where a test may go from each status. Before launch anything but 'stopped' and 'completed'; once it
# has run it never goes back to draft or ready-to-launch: running <-> stopped, then completed, then removed.
TRANSITIONS: dict[str, tuple[str, ...]] = {
    "draft": ("ready-to-launch", "scheduled", "running", "removed"),
    "ready-to-launch": ("draft", "scheduled", "running", "removed"),
    "scheduled": ("draft", "ready-to-launch", "running", "removed"),
    "running": ("stopped", "completed"),
    "stopped": ("running", "completed", "removed"),
    "completed": ("removed",),
    "removed": (),
}
assert set(TRANSITIONS) == set(TEST_STATUSES)


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

# The form's fields (all text): field -> the definition field it edits.
FORM_FIELDS: dict[str, str] = {
    "name": "name",
    "status": "status",
    "session": "sessionSeconds",
    "payout": "payoutCents",
    "limit": "participantLimit",
    **{f"seniority.{k}": "seniorityLimits" for k in TEST_SENIORITY_KEYS},
    "panel": "panel",
    "country": "audienceCountry",
    "qualifications": "qualifications",
    "frame": "frameOfMind",
    **{f"welcome.{p}": "welcomeModal" for p in WELCOME_PARTS},
}
NOT_A_SUM = "Enter an amount in dollars, e.g. 20 or 20.50."
NOT_A_NUMBER = "Enter a whole number, or leave it empty for no limit."


def _cents_text(cents: Any) -> str:
    return (
        f"{cents // 100}"
        if isinstance(cents, int) and cents % 100 == 0
        else f"{cents / 100:.2f}"
        if isinstance(cents, int)
        else ""
    )


def form_of(doc: Mapping[str, Any]) -> dict[str, str]:
    """The form's text for a test's definition document (document_of)."""
    limits = doc.get("seniorityLimits") or {}
    welcome = doc.get("welcomeModal") or {}
    return {
        "name": doc.get("name", ""),
        "status": doc.get("status", "draft"),
        "session": str(doc.get("sessionSeconds", 3600)),
        "payout": _cents_text(doc.get("payoutCents", 0)),
        "limit": "" if doc.get("participantLimit") is None else str(doc["participantLimit"]),
        **{f"seniority.{k}": "" if limits.get(k) is None else str(limits[k]) for k in TEST_SENIORITY_KEYS},
        "panel": doc.get("panel", "b2b"),
        "country": doc.get("audienceCountry", "US"),
        "qualifications": "\n".join(doc.get("qualifications") or []),
        "frame": doc.get("frameOfMind") or "",
        **{f"welcome.{p}": welcome.get(p, "") for p in WELCOME_PARTS},
    }


def _whole(text: str) -> int | None:
    text = text.strip()
    if not text:
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


@dataclass(frozen=True)
class FormCheck:
    document: dict[str, Any]
    problems: dict[str, str]  # form field -> the first message ('' key: problems outside the form)
    listing: list[str]  # every problem, with its path

    @property
    def ok(self) -> bool:
        return not self.problems


def check_form(doc: Mapping[str, Any], form: Mapping[str, Any], current_status: str) -> FormCheck:
    """The edited document and every problem with it: the form's own, the status change, and the
    import's checks of the whole document (a message for a field not in the form is listed under '')."""
    document, problems = document_with(doc, form)
    listing = [f"{FORM_FIELDS[f]}: {m}" for f, m in problems.items()]
    status = status_problem(current_status, document.get("status"))
    if status:
        problems.setdefault("status", status)
        listing.append(f"status: {status}")
    errors: list[DefinitionError] = validate_test_definition(document)
    for error in errors:
        field = form_field_of(error.path)
        if field in problems and field not in ("",):
            continue
        problems.setdefault(field, error.message if field else str(error))
        listing.append(str(error))
    return FormCheck(document=document, problems=problems, listing=listing)


def quotas_text(limit: int | None, seniority: Mapping[str, int] | None) -> str:
    """'50 people · senior 10, middle 20' for the tests list ('No limit' when there is none)."""
    parts = [f"{limit} people" if limit is not None else "No limit"]
    levels = [f"{k} {v}" for k, v in (seniority or {}).items() if isinstance(v, int)]
    if levels:
        parts.append(", ".join(levels))
    return " · ".join(parts)
