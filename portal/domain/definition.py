"""The test definition: the JSON document used to import a test (see docs/test-format.md).

`parse_test_definition(data)` validates a parsed JSON object and returns the
`Test` column values, or raises `TestDefinitionError` listing every problem with
the path of the field at fault, e.g.
`survey.questions[3].options: a single-choice question needs at least 2 options`.

The kind of test follows from `productType`:
survey (survey view), highlight (landing page and the standard view), pricing
(highlight with a pricing page), preference and video.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from portal.domain import geography
from portal.domain.definition_checks import Checker, DefinitionError, join
from portal.domain.reference_data import (
    PANELS,
    PRODUCT_TYPES,
    SCREENER_TYPES,
    SESSION_LENGTHS,
    TEST_SENIORITY_KEYS,
    TEST_STATUSES,
)
from portal.domain.taking import kinds

IMPORTABLE_STATUSES: tuple[str, ...] = tuple(s for s in TEST_STATUSES if s != "paused")

# The payout's range (docs/decisions.md, 'Test settings'): the spec's "Payout 15 to 50 dollars" is the usual
# range, shown as a hint; the limit is $1,000 (the incentive table pays up to $500 for a live interview).
MAX_PAYOUT_CENTS = 100_000
PAYOUT_TOO_HIGH = f"The payout can be at most ${MAX_PAYOUT_CENTS // 100:,}."
PAYOUT_NEGATIVE = "The payout cannot be negative."
PAYOUT_NOT_CENTS = "The payout must be whole cents, e.g. 2000 for $20."
# The largest participant limit: what the edit form takes (9 digits), and well within the database's integer column.
MAX_PARTICIPANT_LIMIT = 999_999_999
# The exclusion window (spec section 9): -1 all (anyone who ever took a test), 0 none, else days.
EXCLUSION_WINDOWS: tuple[int, ...] = (-1, 0, 30, 60, 90)

COMMON_FIELDS = (
    "name",
    "status",
    "panel",
    "productType",
    "audienceCountry",
    "sessionSeconds",
    "payoutCents",
    "participantLimit",
    "exclusionDays",
    "seniorityLimits",
    "isFreemium",
    "frameOfMind",
    "welcomeModal",
    "qualifications",
    "screenerQuestion",
    "isSurveysConditionalEnabled",
    "url",
    "screenshotUrl",
)
KIND_FIELDS: dict[str, tuple[str, ...]] = {name: k.fields for name, k in kinds.KINDS.items()}
ALL_FIELDS = frozenset(COMMON_FIELDS) | kinds.all_fields()


def kind_of(product_type: str) -> str:
    """The name of the test kind (which view takes the test) for a product type."""
    return kinds.kind_of(product_type).name


def review_kind(product_type: str) -> str:
    """The `review.kind` of a submission for this product type: survey | highlight | preference | video."""
    return kinds.kind_of(product_type).review_kind


class TestDefinitionError(ValueError):
    """An invalid test definition. `errors` name each field at fault; str() lists them."""

    __test__ = False  # not a pytest test class

    def __init__(self, errors: list[DefinitionError]):
        self.errors = list(errors)
        super().__init__(self.message)

    @property
    def message(self) -> str:
        if len(self.errors) == 1:
            return str(self.errors[0])
        lines = [f"{len(self.errors)} problems in the test definition:"]
        return "\n".join([*lines, *(f"  - {e}" for e in self.errors)])


@dataclass(frozen=True)
class TestDefinition:
    """A valid definition: the kind, the `Test` column values and the qualification names."""

    __test__ = False

    kind: str
    columns: dict[str, Any]
    qualifications: list[str] = field(default_factory=list)


def validate_test_definition(data: Any) -> list[DefinitionError]:
    """Every problem in `data`; an empty list means it can be imported."""
    ck = Checker()
    _read(ck, data)
    return ck.errors


def first_problems(data: Any, keep: int) -> tuple[list[DefinitionError], int]:
    """The first `keep` problems in `data` and how many there are in all (0: it can be imported)."""
    ck = Checker(keep=keep)
    _read(ck, data)
    return ck.errors, ck.total


def read_test_definition(data: Any) -> tuple[TestDefinition | None, list[DefinitionError]]:
    """What can be read of `data` and every problem in it: a draft's settings are read (and saved) while its
    content is not complete yet (None when `data` is not an object or has no valid product type)."""
    ck = Checker()
    result = _read(ck, data)
    return result, ck.errors


def parse_test_definition(data: Any) -> TestDefinition:
    ck = Checker()
    result = _read(ck, data)
    if ck.errors or result is None:
        raise TestDefinitionError(ck.errors or [DefinitionError("", "the test definition is empty")])
    return result


# --- reading ----------------------------------------------------------------------


def _read(ck: Checker, data: Any) -> TestDefinition | None:
    if not isinstance(data, dict):
        ck.add("", "a test definition must be a JSON object")
        return None
    doc = ck.obj(data, "", ALL_FIELDS) or {}
    product_type = ck.choice(doc, "productType", "", PRODUCT_TYPES, required=True)
    kind = kind_of(product_type) if product_type else None
    columns = _common(ck, doc, kind)
    columns["product_type"] = product_type
    qualifications = _qualifications(ck, doc)
    columns["screener_question"] = _screener(ck, doc.get("screenerQuestion"), "screenerQuestion")
    if kind is None:
        return None
    for name in sorted(ALL_FIELDS - set(COMMON_FIELDS)):
        if name in doc and name not in KIND_FIELDS[kind]:
            ck.add(name, f"does not apply to a {product_type} test (only {_kinds_with(name)} tests)")
    seen_keys: dict[str, str] = {}
    kinds.by_name(kind).read(ck, doc, product_type=product_type, seen_keys=seen_keys, columns=columns)
    return TestDefinition(kind=kind, columns=columns, qualifications=qualifications)


def _kinds_with(name: str) -> str:
    return kinds.kinds_with(name)


def _common(ck: Checker, doc: dict[str, Any], kind: str | None) -> dict[str, Any]:
    page_required = kind is not None and kinds.by_name(kind).shows_page
    name = ck.string(doc, "name", "", required=True, max_length=200)
    country = doc.get("audienceCountry", geography.DEFAULT_COUNTRY)
    if not geography.is_country(country):
        ck.add("audienceCountry", f"must be an ISO 3166 alpha-2 country code such as 'US', got {country!r}")
    welcome = ck.optional_obj(doc, "welcomeModal", "", ("title", "body", "button"))
    ck.texts(welcome, "welcomeModal", ("title", "body", "button"))
    return {
        "name": name.strip() if name else name,
        # 'paused' is the reports' own (portal/domain/problem_reports.py): a definition cannot set it.
        "status": ck.choice(doc, "status", "", IMPORTABLE_STATUSES, default="draft"),
        "panel": ck.choice(doc, "panel", "", PANELS, default="b2b"),
        "audience_country": country if geography.is_country(country) else geography.DEFAULT_COUNTRY,
        "session_seconds": ck.choice(doc, "sessionSeconds", "", SESSION_LENGTHS, default=3600),
        "payout_cents": _payout(ck, doc),
        "participant_limit": ck.integer(doc, "participantLimit", "", minimum=1, maximum=MAX_PARTICIPANT_LIMIT),
        "exclusion_days": ck.choice(doc, "exclusionDays", "", EXCLUSION_WINDOWS, default=0),
        "seniority_limits": _seniority_limits(ck, doc),
        "is_freemium": ck.boolean(doc, "isFreemium", ""),
        "frame_of_mind": ck.string(doc, "frameOfMind", "", max_length=5000),
        "welcome_modal": dict(welcome),
        "is_surveys_conditional_enabled": ck.boolean(doc, "isSurveysConditionalEnabled", "", default=True),
        "url": ck.url(doc, "url", "", required=page_required),
        "screenshot_url": ck.url(doc, "screenshotUrl", "", required=page_required, allow_path=True),
        "pricing_url": None,
        "pricing_screenshot_url": None,
        "survey": {},
        "questions": {},
        "selected_areas": [],
        "preference_test": {},
        "video_recorder_url": None,
    }


def _payout(ck: Checker, doc: dict[str, Any]) -> int:
    """The payout in cents; its messages speak dollars (the form shows them under a field in dollars)."""
    value = doc.get("payoutCents")
    if value is None:
        return 2000
    if isinstance(value, bool) or not isinstance(value, int):
        ck.add("payoutCents", PAYOUT_NOT_CENTS)
        return 2000
    if value < 0:
        ck.add("payoutCents", PAYOUT_NEGATIVE)
    elif value > MAX_PAYOUT_CENTS:
        ck.add("payoutCents", PAYOUT_TOO_HIGH)
    return value


def _seniority_limits(ck: Checker, doc: dict[str, Any]) -> dict[str, int]:
    limits = ck.optional_obj(doc, "seniorityLimits", "", TEST_SENIORITY_KEYS)
    result = {}
    for key in TEST_SENIORITY_KEYS:
        value = ck.integer(limits, key, "seniorityLimits", minimum=0)
        if value is not None:
            result[key] = value
    return result


def _qualifications(ck: Checker, doc: dict[str, Any]) -> list[str]:
    names = ck.array(doc, "qualifications", "", what="qualifications")
    good = []
    for i, name in enumerate(names):
        if not isinstance(name, str) or not name.strip():
            ck.add(join("qualifications", i), "must be a qualification name")
        else:
            good.append(name.strip())
    ck.unique(((join("qualifications", i), n) for i, n in enumerate(good)), "qualification")
    return good


def _screener(ck: Checker, raw: Any, path: str) -> dict[str, Any] | None:
    if raw is None:
        return None
    allowed = ("type", "question", "answers", "rows", "columns", "allowMultiple", "correctMatrix")
    screener = ck.obj(raw, path, allowed)
    if screener is None:
        return None
    kind = ck.choice(screener, "type", path, SCREENER_TYPES, required=True)
    ck.string(screener, "question", path, required=True, max_length=2000)
    ck.boolean(screener, "allowMultiple", path)
    if kind in ("single", "multiple"):
        answers = ck.array(screener, "answers", path, min_items=2, what="answers")
        correct = 0
        for i, answer in enumerate(answers):
            entry = ck.obj(answer, join(join(path, "answers"), i), ("text", "isCorrect", "_matrixData"))
            if entry is not None:
                ck.string(entry, "text", join(join(path, "answers"), i), required=True)
                correct += ck.boolean(entry, "isCorrect", join(join(path, "answers"), i))
        if answers and not correct:
            ck.add(join(path, "answers"), "at least one answer must be marked isCorrect: true")
    elif kind == "matrix":
        _screener_matrix(ck, screener, path)
    return dict(screener)


def _screener_matrix(ck: Checker, screener: dict[str, Any], path: str) -> None:
    rows = ck.array(screener, "rows", path, min_items=1, what="rows (statements)")
    columns = ck.array(screener, "columns", path, min_items=2, what="columns (answers)")
    for name, items in (("rows", rows), ("columns", columns)):
        for i, item in enumerate(items):
            if not isinstance(item, str) or not item.strip():
                ck.add(join(join(path, name), i), "must be non-empty text")
    matrix = ck.array(screener, "correctMatrix", path, min_items=1, what="rows of correct answers")
    if matrix and len(matrix) != len(rows):
        ck.add(join(path, "correctMatrix"), f"needs one entry per row ({len(rows)}), got {len(matrix)}")
    for r, chosen in enumerate(matrix):
        rpath = join(join(path, "correctMatrix"), r)
        if not isinstance(chosen, list) or not chosen:
            ck.add(rpath, "must list at least one correct column index (zero-based)")
            continue
        for c in chosen:
            if not isinstance(c, int) or isinstance(c, bool) or not 0 <= c < len(columns):
                ck.add(rpath, f"column index {c!r} is out of range (0-{len(columns) - 1})")
