"""What the test builder shows of a definition document: its questions, entries and fields as rows of text,
and each message of the definition checks beside the field it is about.

`build(document)` runs `validate_test_definition` once and returns everything the page draws; a problem
whose path is not a field on the page is listed in `other` ('path: message'), so none is hidden.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from portal.domain.authoring import question_kinds
from portal.domain.authoring.document import TEXT_OPTION_KEYS, branch_targets, get
from portal.domain.definition import validate_test_definition
from portal.domain.definition_checks import DefinitionError, join
from portal.domain.question_definition import END_OF_SURVEY_PAGE
from portal.domain.taking import kinds


@dataclass
class ItemRow:
    """One entry of a list: an option, statement, answer or scale point ({value, label}), a screener answer
    (label = its text, checked = correct) or row/column (label), a preference concept (value = key,
    label = name, url)."""

    path: str
    index: int
    dom_id: str = ""  # the path as an element id: 'survey-questions-3-options-1'
    value: str = ""
    label: str = ""
    url: str = ""
    target: str = ""  # a branching option's target page ('' none, '999' the end)
    checked: bool = False
    error: str = ""
    first: bool = False
    last: bool = False


# The messages a question row shows beside its fields (the row's `errors` always has every one).
QUESTION_FIELDS = (
    "question",
    "key",
    "type",
    "text",
    "description",
    "hint",
    "isRequired",
    "page",
    "embeddedLink",
    "images",
    "options",
    "withChoiceLimit",
    "choiceLimits",
    "withConditional",
    "numberType",
    "scales",
    "labels",
    "statements",
    "answers",
)


@dataclass
class QuestionRow:
    path: str
    list_path: str
    index: int
    dom_id: str
    key: str
    type: str
    type_label: str
    text: str = ""
    description: str = ""
    hint: str = ""
    embedded: str = ""
    images: str = ""  # one address per line
    page: str = ""
    number_type: str = "value"
    low: str = ""
    high: str = ""
    min: str = ""
    max: str = ""
    required: bool = False
    randomized: bool = False
    other: bool = False
    choice_limit: bool = False
    conditional: bool = False
    limited: bool = True
    allow_multiple: bool = False
    # The settings the question's kind has (question_kinds).
    answered: bool = True
    has_options: bool = False
    has_randomize: bool = False
    has_other: bool = False
    has_choice_limit: bool = False
    has_conditional: bool = False
    has_limited: bool = False
    has_number_type: bool = False
    has_scales: bool = False
    has_matrix: bool = False
    has_page: bool = False
    options: list[ItemRow] = field(default_factory=list)
    statements: list[ItemRow] = field(default_factory=list)
    answers: list[ItemRow] = field(default_factory=list)
    scales: list[ItemRow] = field(default_factory=list)
    targets: list[list[str]] = field(default_factory=list)  # [value, text] for each option's branch
    errors: dict[str, str] = field(default_factory=dict)
    first: bool = False
    last: bool = False


def problems_by_path(document: Any) -> dict[str, str]:
    """The first message of the definition checks for each path."""
    return _by_path(validate_test_definition(document))


def _by_path(errors: list[DefinitionError]) -> dict[str, str]:
    found: dict[str, str] = {}
    for error in errors:
        found.setdefault(error.path, error.message)
    return found


def dom_id(path: str) -> str:
    """A path as an element id ('survey.questions[3]' -> 'survey-questions-3')."""
    return path.replace(".", "-").replace("[", "-").replace("]", "")


def _text(value: Any) -> str:
    if value is None or isinstance(value, bool):
        return ""
    return value if isinstance(value, str) else str(value)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _message(text: str) -> str:
    return text[:1].upper() + text[1:] if text else ""


class _Claims:
    """The problems, handed out to the fields that show them; what is left over is listed apart."""

    def __init__(self, problems: dict[str, str]) -> None:
        self.problems = problems
        self.shown: set[str] = set()

    def take(self, *paths: str, prefix: str = "") -> str:
        """The first message at one of `paths` (or, with `prefix`, at any path below it)."""
        message = ""
        for path in paths:
            if path in self.problems:
                self.shown.add(path)
                message = message or _message(self.problems[path])
        if prefix:
            for path, text in self.problems.items():
                if path.startswith(prefix) and path not in self.shown:
                    self.shown.add(path)
                    message = message or _message(text)
        return message

    def other(self) -> list[str]:
        return [f"{p}: {m}" if p else m for p, m in self.problems.items() if p not in self.shown]


def _items(document: Any, claims: _Claims, list_path: str, targets: bool = False) -> list[ItemRow]:
    raw = get(document, list_path, [])
    entries = raw if isinstance(raw, list) else []
    rows = []
    for i, entry in enumerate(entries):
        path = join(list_path, i)
        if isinstance(entry, dict):
            row = ItemRow(
                path=path,
                index=i,
                value=_text(entry.get("value", entry.get("key"))),
                label=_text(entry.get("label", entry.get("name", entry.get("text")))),
                url=_text(entry.get("url")),
                target=_text(entry.get("conditional")) if targets else "",
                checked=entry.get("isCorrect") is True,
            )
        else:
            row = ItemRow(path=path, index=i, label=_text(entry))
        row.dom_id = dom_id(path)
        row.error = claims.take(path, prefix=path + ".")
        row.first, row.last = i == 0, i == len(entries) - 1
        rows.append(row)
    return rows


def question_rows(document: Any, list_path: str, claims: _Claims) -> list[QuestionRow]:
    raw = get(document, list_path, [])
    questions = raw if isinstance(raw, list) else []
    survey = list_path == "survey.questions"
    rows = []
    for i, q in enumerate(questions):
        path = join(list_path, i)
        q = q if isinstance(q, dict) else {}
        kind = question_kinds.kind(q.get("type")) or question_kinds.BY_TYPE["short-text"]
        limits: dict[str, Any] = _dict(q.get("choiceLimits"))
        labels: dict[str, Any] = _dict(q.get("labels"))
        images: list[Any] = q["images"] if isinstance(q.get("images"), list) else []
        row = QuestionRow(
            path=path,
            list_path=list_path,
            index=i,
            dom_id=dom_id(path),
            key=_text(q.get("key")),
            type=_text(q.get("type")),
            type_label=question_kinds.LABELS.get(_text(q.get("type")), _text(q.get("type"))),
            text=_text(q.get("text")),
            description=_text(q.get("description")),
            hint=_text(q.get("hint")),
            embedded=_text(q.get("embeddedLink")),
            images="\n".join(_text(im.get("url") if isinstance(im, dict) else im) for im in images),
            page=_text(q.get("page")),
            number_type=_text(q.get("numberType")) or "value",
            low=_text(labels.get("low")),
            high=_text(labels.get("high")),
            min=_text(_dict(limits.get("min")).get("value")),
            max=_text(_dict(limits.get("max")).get("value")),
            required=q.get("isRequired") is True,
            randomized=q.get("isRandomized") is True,
            other=q.get("withOtherOption") is True,
            choice_limit=q.get("withChoiceLimit") is True,
            conditional=q.get("withConditional") is True,
            limited=q.get("isLimited") is not False,
            allow_multiple=q.get("allowMultipleAnswers") is True,
            answered=kind.answered,
            has_options=kind.has("options"),
            has_randomize=kind.has("isRandomized"),
            has_other=kind.has("withOtherOption"),
            has_choice_limit=kind.has("withChoiceLimit"),
            has_conditional=survey and kind.has("withConditional"),
            has_limited=kind.has("isLimited"),
            has_number_type=kind.has("numberType"),
            has_scales=kind.has("scales"),
            has_matrix=kind.has("statements"),
            has_page=survey,
            first=i == 0,
            last=i == len(questions) - 1,
        )
        row.options = _items(document, claims, join(path, "options"), targets=row.conditional)
        row.statements = _items(document, claims, join(path, "statements"))
        row.answers = _items(document, claims, join(path, "answers"))
        row.scales = _items(document, claims, join(path, "scales"))
        if survey and row.conditional:
            row.targets = [[v, t] for v, t in branch_targets(document, i)]
        errors = {name: claims.take(join(path, name)) for name in QUESTION_FIELDS}
        errors["question"] = claims.take(path)
        errors["choiceLimits"] = claims.take(join(path, "choiceLimits"), prefix=join(path, "choiceLimits") + ".")
        errors["labels"] = claims.take(join(path, "labels"), prefix=join(path, "labels") + ".")
        errors["images"] = claims.take(join(path, "images"), prefix=join(path, "images") + "[")
        for name in ("isRandomized", "withOtherOption", "isLimited", "allowMultipleAnswers", "textElements"):
            errors["question"] = errors["question"] or claims.take(join(path, name), prefix=join(path, name) + "[")
        row.errors = errors
        rows.append(row)
    return rows


# The fields the builder shows by path, with no rows of their own (texts, addresses, switches).
SURVEY_FIELDS = (
    "survey.welcomePage.title",
    "survey.welcomePage.description",
    "survey.welcomePage.buttonLabel",
    "survey.thankYouPage.title",
    "survey.thankYouPage.description",
)
PAGE_FIELDS = ("url", "screenshotUrl")
PRICING_FIELDS = ("pricingUrl", "pricingScreenshotUrl")
VIDEO_FIELDS = ("videoTest.recorderUrl",)
PREFERENCE_FIELDS = (
    "preferenceTest.preferenceType",
    "preferenceTest.welcomePage.title",
    "preferenceTest.welcomePage.description",
    "preferenceTest.thankYouPage.title",
    "preferenceTest.thankYouPage.description",
    "preferenceTest.initialQuestion",
    "preferenceTest.customInitialQuestion",
    "preferenceTest.followUpQuestion",
    "preferenceTest.customFollowUpQuestion",
    *(f"preferenceTest.textOptions.{k}" for k in TEXT_OPTION_KEYS),
)
SCREENER_FIELDS = ("screenerQuestion.type", "screenerQuestion.question")
# Lists whose own message (too few entries) shows above them.
LIST_FIELDS = (
    "survey.questions",
    "questions.first-impression",
    "questions.post-test",
    "preferenceTest.images",
    "preferenceTest.textOptions",
    "screenerQuestion",
    "screenerQuestion.answers",
    "screenerQuestion.rows",
    "screenerQuestion.columns",
    "screenerQuestion.correctMatrix",
)
QUESTION_LISTS = ("survey.questions", "questions.first-impression", "questions.post-test")
ITEM_LISTS = ("screenerQuestion.answers", "screenerQuestion.rows", "screenerQuestion.columns", "preferenceTest.images")
BOOLEAN_FIELDS = ("preferenceTest.isLimited", "screenerQuestion.allowMultiple")


@dataclass
class BuilderView:
    kind: str  # survey | highlight | pricing | preference | video
    product_type: str
    fields: dict[str, str]  # path -> its text
    flags: dict[str, bool]  # path -> a switch
    errors: dict[str, str]  # path -> its message ('' when none), for every field and list above
    lists: dict[str, list[QuestionRow]]  # 'survey.questions', 'questions.first-impression', ...
    items: dict[str, list[ItemRow]]  # 'screenerQuestion.answers', 'preferenceTest.images', ...
    correct: list[list[bool]]  # a matrix screener's correct marks: [row][column]
    has_screener: bool
    other: list[str]  # 'path: message' of every problem shown by no field
    problem_count: int


def build(document: Any) -> BuilderView:
    """Everything the builder draws of `document`, with every message of the definition checks placed."""
    doc = document if isinstance(document, dict) else {}
    every = validate_test_definition(doc)
    problems = _by_path(every)
    claims = _Claims(problems)
    product_type = _text(doc.get("productType"))
    kind = kinds.kind_of(product_type).name if product_type else ""
    paths = (*SURVEY_FIELDS, *PAGE_FIELDS, *PRICING_FIELDS, *PREFERENCE_FIELDS, *SCREENER_FIELDS, *VIDEO_FIELDS)
    fields = {p: _text(get(doc, p)) for p in paths}
    flags = {p: get(doc, p) is True for p in BOOLEAN_FIELDS}
    flags["preferenceTest.isLimited"] = get(doc, "preferenceTest.isLimited") is True
    lists = {
        p: question_rows(doc, p, claims)
        for p in ("survey.questions", "questions.first-impression", "questions.post-test")
    }
    item_lists = (
        "screenerQuestion.answers",
        "screenerQuestion.rows",
        "screenerQuestion.columns",
        "preferenceTest.images",
    )
    items = {p: _items(doc, claims, p) for p in item_lists}
    errors = {p: claims.take(p) for p in (*paths, *BOOLEAN_FIELDS)}
    errors.update({p: claims.take(p) for p in LIST_FIELDS})
    errors["screenerQuestion.correctMatrix"] = claims.take(
        "screenerQuestion.correctMatrix", prefix="screenerQuestion.correctMatrix["
    )
    screener = doc.get("screenerQuestion") if isinstance(doc.get("screenerQuestion"), dict) else None
    correct: list[list[bool]] = []
    if screener is not None:
        columns = screener.get("columns") if isinstance(screener.get("columns"), list) else []
        matrix = screener.get("correctMatrix") if isinstance(screener.get("correctMatrix"), list) else []
        for r in range(len(screener.get("rows") or []) if isinstance(screener.get("rows"), list) else 0):
            marks = matrix[r] if r < len(matrix) and isinstance(matrix[r], list) else []
            correct.append([c in marks for c in range(len(columns))])
    return BuilderView(
        kind=kind,
        product_type=product_type,
        fields=fields,
        flags=flags,
        errors=errors,
        lists=lists,
        items=items,
        correct=correct,
        has_screener=screener is not None,
        other=claims.other(),
        problem_count=len(every),
    )


END_OF_SURVEY = str(END_OF_SURVEY_PAGE)
