"""Validation of survey and highlight questions in a test definition, including branching.

Branching (survey questions only): a single-choice question with
`withConditional: true` may give an option `conditional: <page>`; choosing it
sends the participant to the first question of that page, or to the end of the
survey when the page is 999. Targets must exist and lie after the question.
"""

from __future__ import annotations

from typing import Any

from portal.domain.definition_checks import Checker, count, is_empty, is_int, is_number, is_web_url_or_path, join
from portal.domain.reference_data import QUESTION_TYPES
from portal.domain.video_links import NOT_A_VIDEO_SITE, is_allowed

END_OF_SURVEY_PAGE = 999
MAX_OPTIONS = 50
NUMBER_TYPES = ("value", "percentage")

SINGLE_CHOICE = frozenset({"single-choice", "editable-single-choice"})
MULTI_CHOICE = frozenset({"multi-choice", "editable-multi-choice"})
EDITABLE = frozenset({"editable-single-choice", "editable-multi-choice", "editable-open-ended"})

COMMON_FIELDS = frozenset(
    {"key", "type", "text", "description", "embeddedLink", "images", "withImages", "isRequired", "page", "hint"}
)
_CHOICE = {"options", "isRandomized", "withOtherOption"}
TYPE_FIELDS: dict[str, frozenset[str]] = {
    "single-choice": frozenset(_CHOICE | {"withConditional"}),
    "editable-single-choice": frozenset(_CHOICE | {"withConditional", "textElements"}),
    "multi-choice": frozenset(_CHOICE | {"withChoiceLimit", "choiceLimits"}),
    "editable-multi-choice": frozenset(_CHOICE | {"withChoiceLimit", "choiceLimits", "textElements"}),
    "short-text": frozenset(),
    "long-text": frozenset({"isLimited"}),
    "editable-open-ended": frozenset({"isLimited", "textElements"}),
    "number": frozenset({"numberType"}),
    "rank": frozenset({"options", "isRandomized"}),
    "rating": frozenset({"scales", "labels"}),
    "description": frozenset(),
    "matrix": frozenset({"statements", "answers", "allowMultipleAnswers", "isRandomized"}),
}
ALL_FIELDS = COMMON_FIELDS.union(*TYPE_FIELDS.values())
assert set(TYPE_FIELDS) == set(QUESTION_TYPES)


def check_questions(
    ck: Checker,
    questions: list[Any],
    path: str,
    *,
    branching: bool,
    seen_keys: dict[str, str],
) -> None:
    """Validate a list of questions at `path`. `seen_keys` (key -> path) spans the whole test."""
    branches: list[tuple[str, int, int]] = []  # (path, source page, target page)
    pages: set[int] = set()
    last_page = 1
    for index, raw in enumerate(questions):
        qpath = join(path, index)
        question = ck.obj(raw, qpath, ALL_FIELDS)
        if question is None:
            continue
        _check_key(ck, question, qpath, seen_keys)
        qtype = ck.choice(question, "type", qpath, QUESTION_TYPES, required=True)
        if qtype is None:
            continue
        _check_not_applicable(ck, question, qpath, qtype)
        _check_common(ck, question, qpath, qtype)
        page = _check_page(ck, question, qpath, branching=branching, last_page=last_page)
        if page is not None:
            pages.add(page)
            last_page = max(last_page, page)
        _check_by_type(ck, question, qpath, qtype)
        branches += _branches(ck, question, qpath, qtype, branching=branching, page=page or last_page)
    for branch_path, source, target in branches:
        if target == END_OF_SURVEY_PAGE:
            continue
        if target not in pages:
            known = ", ".join(str(p) for p in sorted(pages))
            ck.add(
                branch_path,
                f"branch target page {target} does not exist (pages: {known}; {END_OF_SURVEY_PAGE} ends the survey)",
            )
        elif target <= source:
            ck.add(branch_path, f"branch target page {target} must come after the question's page {source}")


def count_answerable(questions: list[Any]) -> int:
    return sum(1 for q in questions if isinstance(q, dict) and q.get("type") != "description")


# --- pieces ---------------------------------------------------------------------


def _check_key(ck: Checker, question: dict[str, Any], qpath: str, seen_keys: dict[str, str]) -> None:
    key = ck.string(question, "key", qpath, required=True, max_length=100)
    if key is None:
        return
    if key in seen_keys:
        ck.add(join(qpath, "key"), f"duplicate question key {key!r} (also used at {seen_keys[key]})")
    else:
        seen_keys[key] = qpath


def _check_not_applicable(ck: Checker, question: dict[str, Any], qpath: str, qtype: str) -> None:
    allowed = COMMON_FIELDS | TYPE_FIELDS[qtype]
    for field, value in question.items():
        if field in ALL_FIELDS and field not in allowed and not is_empty(value):
            ck.add(join(qpath, field), f"does not apply to a {qtype} question")


def _check_common(ck: Checker, question: dict[str, Any], qpath: str, qtype: str) -> None:
    elements = _text_elements(ck, question, qpath) if qtype in EDITABLE else []
    ck.string(question, "text", qpath, required=not elements, max_length=5000)
    ck.texts(question, qpath, ("description", "hint"))
    if question.get("embeddedLink") not in (None, ""):
        link = ck.url(question, "embeddedLink", qpath)
        if link is not None and not is_allowed(link):
            ck.add(join(qpath, "embeddedLink"), NOT_A_VIDEO_SITE)
    for i, image in enumerate(ck.array(question, "images", qpath, what="images")):
        url = image.get("url") if isinstance(image, dict) else image
        if not is_web_url_or_path(url):
            ck.add(join(join(qpath, "images"), i), "must be an image URL (or an object with a 'url')")
    ck.boolean(question, "withImages", qpath)
    required = ck.boolean(question, "isRequired", qpath)
    if qtype == "description" and required:
        ck.add(join(qpath, "isRequired"), "a description has no answer and cannot be required")


def _text_elements(ck: Checker, question: dict[str, Any], qpath: str) -> list[Any]:
    elements = ck.array(question, "textElements", qpath, what="text elements")
    for i, element in enumerate(elements):
        value = element.get("value") if isinstance(element, dict) else element
        if not isinstance(value, str):
            ck.add(join(join(qpath, "textElements"), i), "must be text or an object with a text 'value'")
    return elements


def _check_page(ck: Checker, question: dict[str, Any], qpath: str, *, branching: bool, last_page: int) -> int | None:
    if not branching:
        if "page" in question and not is_empty(question["page"]):
            ck.add(join(qpath, "page"), "pages are only used by survey questions")
        return None
    page = ck.integer(question, "page", qpath, default=last_page, minimum=1, maximum=END_OF_SURVEY_PAGE - 1)
    if page is not None and page < last_page:
        ck.add(join(qpath, "page"), f"page {page} comes after page {last_page}; questions must be in page order")
    return page


def _check_by_type(ck: Checker, question: dict[str, Any], qpath: str, qtype: str) -> None:
    if qtype in SINGLE_CHOICE or qtype in MULTI_CHOICE or qtype == "rank":
        options = _value_labels(
            ck, question, "options", qpath, qtype=qtype, what="options", minimum=2, extra={"conditional"}
        )
        ck.boolean(question, "isRandomized", qpath)
        with_other = ck.boolean(question, "withOtherOption", qpath)
        if qtype in MULTI_CHOICE:
            _check_choice_limit(ck, question, qpath, available=len(options) + (1 if with_other else 0))
    elif qtype in ("long-text", "editable-open-ended"):
        ck.boolean(question, "isLimited", qpath, default=True)
    elif qtype == "number":
        ck.choice(question, "numberType", qpath, NUMBER_TYPES, default="value")
    elif qtype == "rating":
        _value_labels(ck, question, "scales", qpath, qtype=qtype, what="scale points", minimum=2, numeric=True)
        labels = ck.optional_obj(question, "labels", qpath, ("low", "high"))
        ck.texts(labels, join(qpath, "labels"), ("low", "high"))
    elif qtype == "matrix":
        _value_labels(ck, question, "statements", qpath, qtype=qtype, what="statements", minimum=1)
        _value_labels(ck, question, "answers", qpath, qtype=qtype, what="answers", minimum=2)
        ck.boolean(question, "allowMultipleAnswers", qpath)
        ck.boolean(question, "isRandomized", qpath)


def _value_labels(
    ck: Checker,
    question: dict[str, Any],
    field: str,
    qpath: str,
    *,
    qtype: str,
    what: str,
    minimum: int,
    numeric: bool = False,
    extra: set[str] | None = None,
) -> list[dict[str, Any]]:
    """A list of {value, label} with unique values; the count rule names the question type."""
    fpath = join(qpath, field)
    raw = question.get(field)
    if raw is not None and not isinstance(raw, list):
        ck.add(fpath, "must be a list")
        return []
    items = raw or []
    if len(items) < minimum:
        article = "an" if qtype[0] in "aeiou" else "a"
        ck.add(fpath, f"{article} {qtype} question needs at least {count(minimum, what)}")
    if len(items) > MAX_OPTIONS:
        ck.add(fpath, f"can have at most {MAX_OPTIONS} {what}")
    good: list[dict[str, Any]] = []
    seen: list[tuple[str, Any]] = []
    for i, item in enumerate(items):
        ipath = join(fpath, i)
        entry = ck.obj(item, ipath, {"value", "label", *(extra or set())})
        if entry is None:
            continue
        value = entry.get("value")
        if numeric and not is_number(value):
            ck.add(join(ipath, "value"), "must be a number")
        elif not numeric and not (isinstance(value, str) and value.strip()):
            ck.add(join(ipath, "value"), "is required (non-empty text)")
        ck.string(entry, "label", ipath, required=True, max_length=1000)
        seen.append((join(ipath, "value"), value))
        good.append(entry)
    ck.unique(seen, "value")
    return good


def _check_choice_limit(ck: Checker, question: dict[str, Any], qpath: str, *, available: int) -> None:
    enabled = ck.boolean(question, "withChoiceLimit", qpath)
    limits = ck.optional_obj(question, "choiceLimits", qpath, ("min", "max"))
    lpath = join(qpath, "choiceLimits")
    if not enabled:
        return
    bounds: dict[str, int] = {}
    for bound in ("min", "max"):
        if limits.get(bound) is None:
            continue
        inner = ck.obj(limits[bound], join(lpath, bound), ("value",))
        if inner is None:
            continue
        value = ck.integer(inner, "value", join(lpath, bound), minimum=1, maximum=available, required=True)
        if value is not None:
            bounds[bound] = value
    if "min" not in limits and "max" not in limits:
        ck.add(lpath, "withChoiceLimit needs choiceLimits.min.value and/or choiceLimits.max.value")
    elif "min" in bounds and "max" in bounds and bounds["min"] > bounds["max"]:
        ck.add(lpath, f"min ({bounds['min']}) must not exceed max ({bounds['max']})")


def _branches(
    ck: Checker,
    question: dict[str, Any],
    qpath: str,
    qtype: str,
    *,
    branching: bool,
    page: int,
) -> list[tuple[str, int, int]]:
    conditional = ck.boolean(question, "withConditional", qpath) if qtype in SINGLE_CHOICE else False
    if conditional and not branching:
        ck.add(join(qpath, "withConditional"), "branching is only available in surveys")
    found: list[tuple[str, int, int]] = []
    options = got if isinstance(got := question.get("options"), list) else []
    for i, option in enumerate(options):
        if not isinstance(option, dict) or option.get("conditional") is None:
            continue
        cpath = join(join(join(qpath, "options"), i), "conditional")
        target = option["conditional"]
        if qtype not in SINGLE_CHOICE:
            ck.add(cpath, f"only single-choice questions can branch, not {qtype}")
        elif not conditional:
            ck.add(cpath, "set withConditional: true on the question to use branch targets")
        elif not is_int(target) or target < 1:
            ck.add(cpath, f"must be a page number (or {END_OF_SURVEY_PAGE} for the end of the survey)")
        else:
            found.append((cpath, page, target))
    return found
