"""Editing a test's definition document (docs/test-format.md) without JSON: pure functions the builder calls.

Each function takes the document and returns a new one (the argument is never changed), or raises
`EditRefused` for a path or a value the builder never sends (a forged event). Whether the result is a
valid test is not their business: `portal.domain.definition.validate_test_definition` says that, field
by field, and the builder shows its messages beside the fields.

Paths are the definition checks' own: 'survey.questions[3].options[1].label'.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any

from portal.domain.authoring import question_kinds
from portal.domain.question_definition import END_OF_SURVEY_PAGE, SINGLE_CHOICE
from portal.domain.reference_data import SCREENER_TYPES

Document = dict[str, Any]
Segment = str | int

MAX_TEXT = 20_000  # the longest text a field of the builder keeps
MAX_QUESTIONS = 200
MAX_ITEMS = 60


class EditRefused(ValueError):
    """A change the builder does not offer (an unknown path or value): nothing is changed."""


# What the builder edits of a test's definition; the rest (name, status, panel, payout, audience, frame of
# mind, welcome modal: the details page; selectedAreas: the area editor) is taken as saved.
BUILDER_FIELDS = (
    "survey",
    "questions",
    "preferenceTest",
    "screenerQuestion",
    "url",
    "screenshotUrl",
    "pricingUrl",
    "pricingScreenshotUrl",
)


def builder_part(document: Mapping[str, Any]) -> Document:
    """The builder's fields of a working document (the draft kept between visits)."""
    return {k: copy.deepcopy(document[k]) for k in BUILDER_FIELDS if k in document}


def merged(saved: Mapping[str, Any], draft: Mapping[str, Any]) -> Document:
    """The saved definition with the draft's builder fields in place of its own (a field the draft does not
    have is removed: the builder emptied it)."""
    doc = {k: copy.deepcopy(v) for k, v in saved.items() if k not in BUILDER_FIELDS}
    doc.update(builder_part(draft))
    return doc


def with_image(draft: Mapping[str, Any], field: str, url: str, concept_key: Any = None) -> Document:
    """The builder's working copy with an image uploaded on the Images tab in it, so that the builder shows the
    upload and saving the builder keeps it (a draft made before the upload would otherwise put its own, older
    address back). `field` is 'screenshotUrl', 'pricingScreenshotUrl' or 'preferenceTest.images' (then the
    concept whose key is `concept_key`; a concept the draft no longer has is left alone)."""
    doc = copy.deepcopy(dict(draft))
    if field in ("screenshotUrl", "pricingScreenshotUrl"):
        doc[field] = url
    elif field == "preferenceTest.images":
        preference = doc.get("preferenceTest")
        images = preference.get("images") if isinstance(preference, dict) else None
        for image in images if isinstance(images, list) else []:
            if isinstance(image, dict) and concept_key is not None and image.get("key") == concept_key:
                image["url"] = url
    else:
        raise EditRefused(f"not an image field: {field!r}")
    return doc


# --- paths ---------------------------------------------------------------------------------------

_SEGMENT = re.compile(r"([A-Za-z][A-Za-z-]*)((?:\[\d{1,4}\])*)")
_QLIST = r"(?:survey\.questions|questions\.(?:first-impression|post-test))"
_Q = _QLIST + r"\[\d+\]"
QUESTION_LISTS = re.compile(rf"^{_QLIST}$")
_ITEM_LISTS = re.compile(
    rf"^(?:{_Q}\.(?:options|statements|answers|scales)|screenerQuestion\.(?:answers|rows|columns)|preferenceTest\.images)$"
)
# The fields staff set, by path (question types are changed with `change_type`).
_FIELDS = re.compile(
    "^(?:"
    + "|".join(
        (
            r"(?:url|screenshotUrl|pricingUrl|pricingScreenshotUrl)",
            r"survey\.welcomePage\.(?:title|description|buttonLabel)",
            r"survey\.thankYouPage\.(?:title|description)",
            rf"{_Q}\.(?:key|text|description|hint|isRequired|page|embeddedLink|images|isRandomized|withOtherOption"
            r"|withChoiceLimit|withConditional|isLimited|numberType|allowMultipleAnswers)",
            rf"{_Q}\.choiceLimits\.(?:min|max)\.value",
            rf"{_Q}\.labels\.(?:low|high)",
            rf"{_Q}\.(?:options|statements|answers|scales)\[\d+\]\.(?:value|label)",
            rf"{_Q}\.options\[\d+\]\.conditional",
            r"screenerQuestion\.(?:question|allowMultiple)",
            r"screenerQuestion\.answers\[\d+\]\.(?:text|isCorrect)",
            r"screenerQuestion\.(?:rows|columns)\[\d+\]",
            r"preferenceTest\.(?:welcomePage|thankYouPage)\.(?:title|description)",
            r"preferenceTest\.(?:initialQuestion|customInitialQuestion|followUpQuestion|customFollowUpQuestion)",
            r"preferenceTest\.isLimited",
            r"preferenceTest\.images\[\d+\]\.(?:key|name|url)",
            r"preferenceTest\.textOptions\.(?:optionOne|optionTwo|optionThree)",
        )
    )
    + ")$"
)
_BOOLEANS = frozenset(
    {
        "isRequired",
        "isRandomized",
        "withOtherOption",
        "withChoiceLimit",
        "withConditional",
        "isLimited",
        "allowMultipleAnswers",
        "allowMultiple",
        "isCorrect",
    }
)
_ENTRY_LISTS = frozenset({"options", "statements", "answers", "scales", "images"})
# Booleans whose absence means true: written out when false.
_TRUE_BY_DEFAULT = frozenset({"isLimited"})


def split(path: str) -> list[Segment]:
    """'survey.questions[3].text' -> ['survey', 'questions', 3, 'text']."""
    out: list[Segment] = []
    for part in path.split("."):
        match = _SEGMENT.fullmatch(part)
        if match is None:
            raise EditRefused(f"not a field: {path!r}")
        out.append(match.group(1))
        out.extend(int(i) for i in re.findall(r"\[(\d+)\]", match.group(2)))
    return out


def get(document: Mapping[str, Any], path: str | list[Segment], default: Any = None) -> Any:
    """The value at `path` (default when any step is missing)."""
    node: Any = document
    for seg in split(path) if isinstance(path, str) else path:
        if isinstance(seg, int):
            if not isinstance(node, list) or seg >= len(node):
                return default
        elif not isinstance(node, dict) or seg not in node:
            return default
        node = node[seg]
    return node


def _parent(document: Document, segments: list[Segment], *, create: bool) -> Any:
    """The container holding the last segment; objects on the way are made when `create` (lists never)."""
    node: Any = document
    for seg, nxt in zip(segments[:-1], segments[1:], strict=True):
        if isinstance(seg, int):
            if not isinstance(node, list) or seg >= len(node):
                raise EditRefused("no such entry")
            node = node[seg]
            continue
        if not isinstance(node, dict):
            raise EditRefused("no such field")
        if node.get(seg) is None and create and not isinstance(nxt, int):
            node[seg] = {}
        node = node.get(seg)
    if node is None:
        raise EditRefused("no such field")
    return node


def _list(document: Document, path: str, *, create: bool = False) -> list[Any]:
    segments = split(path)
    parent = _parent(document, segments, create=True) if create else _parent(document, segments, create=False)
    name = segments[-1]
    if isinstance(name, int) or not isinstance(parent, dict):
        raise EditRefused("not a list")
    if parent.get(name) is None and create:
        parent[name] = []
    found = parent.get(name)
    if not isinstance(found, list):
        raise EditRefused("not a list")
    return found


# --- values ----------------------------------------------------------------------------------------


def _number(text: str, *, whole: bool) -> Any:
    """Typed text as a number; text that is not one is kept, so the checks say what is wrong with it."""
    cleaned = text.strip()
    if re.fullmatch(r"-?\d{1,9}", cleaned):
        return int(cleaned)
    if not whole and re.fullmatch(r"-?\d{1,9}\.\d{1,6}", cleaned):
        return float(cleaned)
    return cleaned


def _value_for(segments: list[Segment], value: Any) -> Any:
    """The value as the document spells it. Returns None for 'remove the field'."""
    name = segments[-1]
    parent = segments[-2] if len(segments) > 1 else ""
    if isinstance(name, int):  # a screener row or column: text, kept even when empty
        if not isinstance(value, str):
            raise EditRefused("must be text")
        return value[:MAX_TEXT]
    if name in _BOOLEANS:
        if not isinstance(value, bool):
            raise EditRefused("must be true or false")
        return value if value or name in _TRUE_BY_DEFAULT else None
    if not isinstance(value, str):
        raise EditRefused("must be text")
    value = value[:MAX_TEXT]
    if name == "images":  # a question's images: one address per line
        return [line.strip() for line in value.splitlines() if line.strip()] or None
    entry = len(segments) > 2 and segments[-3] in _ENTRY_LISTS  # an entry of a list keeps its shape
    if value.strip() == "" and (not entry or name == "conditional"):
        return None
    if name in ("page", "conditional") or parent in ("min", "max"):
        return _number(value, whole=True)
    if name == "value" and len(segments) > 3 and segments[-3] == "scales":
        return _number(value, whole=False)
    if name == "numberType" and value not in ("value", "percentage"):
        raise EditRefused("not a number type")
    return value


def set_field(document: Mapping[str, Any], path: str, value: Any) -> Document:
    """The document with the field at `path` set to `value` (text typed, or a checkbox's true/false);
    empty text removes an optional field. Turning branching off drops the options' branch targets."""
    if not isinstance(path, str) or not _FIELDS.match(path):
        raise EditRefused(f"not a field the builder edits: {path!r}")
    doc = copy.deepcopy(dict(document))
    segments = split(path)
    new = _value_for(segments, value)
    parent = _parent(doc, segments, create=new is not None)
    name = segments[-1]
    if isinstance(name, int):
        if not isinstance(parent, list) or name >= len(parent):
            raise EditRefused("no such entry")
        parent[name] = "" if new is None else new
        return doc
    if not isinstance(parent, dict):
        raise EditRefused("no such field")
    if new is None:
        parent.pop(name, None)
    else:
        parent[name] = new
    if name == "images":
        if new:
            parent["withImages"] = True
        else:
            parent.pop("withImages", None)
    if name == "withConditional" and not new:
        for option in parent.get("options") or []:
            if isinstance(option, dict):
                option.pop("conditional", None)
    return doc


# --- questions -------------------------------------------------------------------------------------


def _check_question_list(path: str) -> None:
    if not isinstance(path, str) or not QUESTION_LISTS.match(path):
        raise EditRefused(f"not a list of questions: {path!r}")


def all_keys(document: Mapping[str, Any]) -> set[str]:
    """Every question key of the test (keys are unique across the whole test)."""
    keys: set[str] = set()
    lists: list[Any] = [get(document, "survey.questions", [])]
    blocks = document.get("questions")
    if isinstance(blocks, dict):
        lists.extend(blocks.values())
    for area in document.get("selectedAreas") or []:
        if isinstance(area, dict):
            lists.append(area.get("questions"))
    for questions in lists:
        for q in questions if isinstance(questions, list) else []:
            if isinstance(q, dict) and isinstance(q.get("key"), str):
                keys.add(q["key"])
    return keys


def unique_key(taken: set[str], prefix: str = "q") -> str:
    n = len(taken) + 1
    while f"{prefix}-{n}" in taken:
        n += 1
    return f"{prefix}-{n}"


def add_question(document: Mapping[str, Any], list_path: str, question_type: str) -> Document:
    """A new question of `question_type` at the end of the list, with a key no other question of the test
    has; a survey question goes on the page of the question before it."""
    _check_question_list(list_path)
    kind = question_kinds.kind(question_type)
    if kind is None:
        raise EditRefused(f"not a question type: {question_type!r}")
    doc = copy.deepcopy(dict(document))
    questions = _list(doc, list_path, create=True)
    if len(questions) >= MAX_QUESTIONS:
        raise EditRefused(f"at most {MAX_QUESTIONS} questions")
    question = kind.new_question(unique_key(all_keys(doc)))
    if list_path == "survey.questions":
        before = questions[-1].get("page") if questions and isinstance(questions[-1], dict) else None
        question["page"] = before if isinstance(before, int) else 1
    questions.append(question)
    return doc


def _index(items: list[Any], index: Any) -> int:
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(items):
        raise EditRefused("no such entry")
    return index


def remove_question(document: Mapping[str, Any], list_path: str, index: int) -> Document:
    _check_question_list(list_path)
    doc = copy.deepcopy(dict(document))
    questions = _list(doc, list_path)
    del questions[_index(questions, index)]
    return doc


def _page(question: Any) -> int | None:
    page = question.get("page") if isinstance(question, dict) else None
    return page if isinstance(page, int) and not isinstance(page, bool) else None


def move_question(document: Mapping[str, Any], list_path: str, index: int, delta: int) -> Document:
    """The question moved one place up (delta -1) or down (+1). A survey question that crosses into the
    next or previous page takes that page, so pages stay in order."""
    _check_question_list(list_path)
    if delta not in (-1, 1):
        raise EditRefused("move one place up or down")
    doc = copy.deepcopy(dict(document))
    questions = _list(doc, list_path)
    i = _index(questions, index)
    j = i + delta
    if not 0 <= j < len(questions):
        return doc
    questions[i], questions[j] = questions[j], questions[i]
    moved = questions[j]
    if list_path == "survey.questions" and isinstance(moved, dict):
        before = _page(questions[j - 1]) if j > 0 else None
        after = _page(questions[j + 1]) if j + 1 < len(questions) else None
        page = _page(moved)
        if page is not None and before is not None and page < before:
            moved["page"] = before
        elif page is not None and after is not None and page > after:
            moved["page"] = after
    return doc


def change_type(document: Mapping[str, Any], question_path: str, new_type: str) -> Document:
    """The question at `question_path` made a question of `new_type` (question_kinds.with_type)."""
    if not isinstance(question_path, str) or not re.fullmatch(rf"{_Q}", question_path):
        raise EditRefused("not a question")
    if question_kinds.kind(new_type) is None:
        raise EditRefused(f"not a question type: {new_type!r}")
    doc = copy.deepcopy(dict(document))
    segments = split(question_path)
    parent = _parent(doc, segments, create=False)
    i = _index(parent, segments[-1])
    if not isinstance(parent[i], dict):
        raise EditRefused("not a question")
    parent[i] = question_kinds.with_type(parent[i], new_type)
    return doc


# --- entries of a list (options, statements, answers, scale points, concepts, screener rows) ----------


def _new_item(doc: Document, list_path: str, items: list[Any]) -> Any:
    name = split(list_path)[-1]
    if list_path.startswith("screenerQuestion."):
        return {"text": "", "isCorrect": False} if name == "answers" else ""
    if list_path == "preferenceTest.images":
        keys = {i.get("key") for i in items if isinstance(i, dict)}
        return {"key": unique_key({k for k in keys if isinstance(k, str)}, "concept"), "name": "", "url": ""}
    if name == "scales":
        numbers = [i.get("value") for i in items if isinstance(i, dict)]
        top = max((v for v in numbers if isinstance(v, int | float) and not isinstance(v, bool)), default=0)
        nxt = int(top) + 1
        return {"value": nxt, "label": str(nxt)}
    prefix = {"options": "option", "statements": "statement", "answers": "answer"}[str(name)]
    values = {i.get("value") for i in items if isinstance(i, dict)}
    return {"value": unique_key({v for v in values if isinstance(v, str)}, prefix), "label": ""}


def _check_item_list(path: str) -> None:
    if not isinstance(path, str) or not _ITEM_LISTS.match(path):
        raise EditRefused(f"not a list the builder edits: {path!r}")


def add_item(document: Mapping[str, Any], list_path: str) -> Document:
    """A new entry at the end of the list (a unique value or key; the next number of a scale)."""
    _check_item_list(list_path)
    doc = copy.deepcopy(dict(document))
    items = _list(doc, list_path, create=True)
    if len(items) >= MAX_ITEMS:
        raise EditRefused(f"at most {MAX_ITEMS} entries")
    items.append(_new_item(doc, list_path, items))
    if list_path == "screenerQuestion.rows":
        _correct_matrix(doc).append([])
    return doc


def _correct_matrix(doc: Document) -> list[Any]:
    screener = doc.setdefault("screenerQuestion", {})
    rows = screener.get("rows") or []
    matrix = screener.get("correctMatrix")
    if not isinstance(matrix, list):
        matrix = []
    matrix = [m if isinstance(m, list) else [] for m in matrix][: len(rows)]
    matrix += [[] for _ in range(len(rows) - len(matrix))]
    screener["correctMatrix"] = matrix
    return matrix


def remove_item(document: Mapping[str, Any], list_path: str, index: int) -> Document:
    """The entry removed; a screener row takes its correct answers with it, a screener column its marks."""
    _check_item_list(list_path)
    doc = copy.deepcopy(dict(document))
    items = _list(doc, list_path)
    i = _index(items, index)
    if list_path == "screenerQuestion.rows":
        matrix = _correct_matrix(doc)
        del matrix[i]
    elif list_path == "screenerQuestion.columns":
        doc["screenerQuestion"]["correctMatrix"] = [
            [c - 1 if c > i else c for c in row if c != i] for row in _correct_matrix(doc)
        ]
    del items[i]
    return doc


def move_item(document: Mapping[str, Any], list_path: str, index: int, delta: int) -> Document:
    """The entry moved one place up (-1) or down (+1); a screener row or column keeps its correct marks."""
    _check_item_list(list_path)
    if delta not in (-1, 1):
        raise EditRefused("move one place up or down")
    doc = copy.deepcopy(dict(document))
    items = _list(doc, list_path)
    i = _index(items, index)
    j = i + delta
    if not 0 <= j < len(items):
        return doc
    items[i], items[j] = items[j], items[i]
    if list_path == "screenerQuestion.rows":
        matrix = _correct_matrix(doc)
        matrix[i], matrix[j] = matrix[j], matrix[i]
    elif list_path == "screenerQuestion.columns":
        swap = {i: j, j: i}
        doc["screenerQuestion"]["correctMatrix"] = [sorted(swap.get(c, c) for c in row) for row in _correct_matrix(doc)]
    return doc


# --- the screener ----------------------------------------------------------------------------------

NEW_SCREENER: dict[str, Any] = {
    "type": "single",
    "question": "",
    "answers": [{"text": "", "isCorrect": True}, {"text": "", "isCorrect": False}],
}


def set_screener(document: Mapping[str, Any], on: bool) -> Document:
    """A screener added (a single-choice one to fill in) or removed."""
    doc = copy.deepcopy(dict(document))
    if on and not isinstance(doc.get("screenerQuestion"), dict):
        doc["screenerQuestion"] = copy.deepcopy(NEW_SCREENER)
    elif not on:
        doc.pop("screenerQuestion", None)
    return doc


def set_screener_type(document: Mapping[str, Any], screener_type: str) -> Document:
    """The screener made single, multiple or matrix; a matrix gets rows, columns and correct marks, a list
    its answers (what the other shape had is dropped: the import refuses nothing it keeps)."""
    if screener_type not in SCREENER_TYPES:
        raise EditRefused("not a screener type")
    doc = set_screener(document, True)
    screener = doc["screenerQuestion"]
    screener["type"] = screener_type
    if screener_type == "matrix":
        screener.pop("answers", None)
        screener.setdefault("rows", ["", ""])
        screener.setdefault("columns", ["", ""])
        _correct_matrix(doc)
    else:
        for name in ("rows", "columns", "correctMatrix", "allowMultiple"):
            screener.pop(name, None)
        screener.setdefault("answers", copy.deepcopy(NEW_SCREENER["answers"]))
    return doc


def toggle_correct(document: Mapping[str, Any], row: int, column: int) -> Document:
    """A matrix screener's answer (column) marked correct, or no longer, for a statement (row)."""
    doc = copy.deepcopy(dict(document))
    if not isinstance(doc.get("screenerQuestion"), dict):
        raise EditRefused("no screener")
    columns = doc["screenerQuestion"].get("columns") or []
    matrix = _correct_matrix(doc)
    r = _index(matrix, row)
    c = _index(columns, column)
    matrix[r] = sorted(set(matrix[r]) ^ {c})
    return doc


# --- the preference test ---------------------------------------------------------------------------

TEXT_OPTION_KEYS = ("optionOne", "optionTwo", "optionThree")


def set_preference_type(document: Mapping[str, Any], preference_type: str) -> Document:
    """Image concepts or text options: the other kind's concepts are dropped, two empty image concepts or
    three empty text options added."""
    if preference_type not in ("image", "text"):
        raise EditRefused("not a preference type")
    if document.get("productType") != "preference-test":
        raise EditRefused("not a preference test")
    doc = copy.deepcopy(dict(document))
    pref = doc.setdefault("preferenceTest", {})
    if not isinstance(pref, dict):
        raise EditRefused("no preference test")
    pref["preferenceType"] = preference_type
    if preference_type == "image":
        pref.pop("textOptions", None)
        if not pref.get("images"):
            pref["images"] = [{"key": "concept-1", "name": "", "url": ""}, {"key": "concept-2", "name": "", "url": ""}]
    else:
        pref.pop("images", None)
        if not isinstance(pref.get("textOptions"), dict):
            pref["textOptions"] = {}
    return doc


# --- branching -------------------------------------------------------------------------------------


def branch_targets(document: Mapping[str, Any], question_index: int) -> list[tuple[str, str]]:
    """Where an option of survey question `question_index` may send the participant: the later pages used by
    some question, and the end of the survey (page 999); '' is 'the next question' (no branch)."""
    questions = get(document, "survey.questions", [])
    if not isinstance(questions, list) or not 0 <= question_index < len(questions):
        return []
    own = _page(questions[question_index]) or 1
    pages = sorted({p for q in questions if (p := _page(q)) is not None and p > own})
    return [("", "Next question"), *((str(p), f"Page {p}") for p in pages), (str(END_OF_SURVEY_PAGE), "End of survey")]


def branches(question: Any) -> bool:
    return isinstance(question, dict) and question.get("type") in SINGLE_CHOICE
