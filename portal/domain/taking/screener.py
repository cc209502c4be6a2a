"""The screener: the question asked before a test, what the browser may see of it, and judging it.

Pure rules, no database. The stored screener (`Test.screener_question`, validated on import by
`test_definition._screener`) holds the correct answers; `public_screener()` is the only form
that leaves the server. The three kinds are the stored type names:

- 'single'   one answer (radio buttons);
- 'multiple' one or more answers (checkboxes);
- 'matrix'   rows are statements, columns answers; one answer per row (radio buttons), or
             several when `allowMultiple` is set (checkboxes).

A *selection* is always a dense mapping `{row index as text: [chosen answer indexes]}`, every row
present, indexes zero-based and sorted; an empty list means the row is unanswered. A single or
multiple choice screener has one row, '0'. Raw input from the browser (`parse_selection`) is:
single -> one index; multiple -> a list of distinct indexes; matrix -> {statement index (text
or number): [answer indexes]} (the spec's "type plus selections").

Judging (`judge`), a choice the spec leaves open (docs/decisions.md, "Screener (issue 5)"):
a complete selection passes when every chosen answer is marked correct. For 'single' that is
"the chosen answer is correct"; for 'multiple' the participant may choose any non-empty subset
of the correct answers (a buyer who uses only one of two qualifying tools qualifies) but no
answer that is not correct; for 'matrix' each row's chosen columns must all be in that row's
`correctMatrix` entry.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from portal.domain.ids import whole_number
from portal.domain.reference_data import SCREENER_TYPES

SINGLE, MULTIPLE, MATRIX = SCREENER_TYPES  # 'single', 'multiple', 'matrix'

HEADING = "Screening question"
INTRO = (
    "Before starting taking the test, we need you to answer some questions so we can know you are "
    "the right fit for the test."
)
# The spec's text ends in '...' (it is cut there); the portal says the rest (issue 40: not a literal '...').
FAILED = (
    "Thank you for taking the time to complete the questionnaire. At this time, we have found that "
    "your response does not match the requirements for this test. We appreciate your interest, and we will "
    "invite you to other tests that fit your profile."
)
BACK_HOME = "Back to your tests"
SCROLL_HINT = "Scroll horizontally to see all options"
CONFIRM = "Confirm"
ERROR_PREFIX = "Error in screener verification: "

Selection = dict[str, list[int]]


def verification_error(detail: str) -> str:
    """The spec's screener failure message: 'Error in screener verification: <detail>'."""
    return ERROR_PREFIX + detail


def applies(*, has_screener: bool, signed_in: bool) -> bool:
    """Whether to screen: only signed-in participants are screened (their response is kept per
    account, 'account:<id>'); a signed-out respondent of a public test has no key to keep a
    response under and is not screened (docs/decisions.md)."""
    return bool(has_screener and signed_in)


# --- reading the stored screener ----------------------------------------------------------------


def _texts(value: Any, what: str, *, minimum: int) -> list[str]:
    if not isinstance(value, list) or len(value) < minimum:
        raise ValueError(f"the screener needs at least {minimum} {what}")
    if not all(isinstance(item, str) and item.strip() for item in value):
        raise ValueError(f"every screener {what[:-1] if what.endswith('s') else what} must be text")
    return list(value)


def _answers(screener: Mapping[str, Any]) -> list[dict[str, Any]]:
    answers = screener.get("answers")
    if not isinstance(answers, list) or len(answers) < 2:
        raise ValueError("the screener needs at least 2 answers")
    for answer in answers:
        if not isinstance(answer, Mapping) or not isinstance(answer.get("text"), str) or not answer["text"].strip():
            raise ValueError("every screener answer needs a text")
    return answers


def _kind(screener: Any) -> str:
    if not isinstance(screener, Mapping):
        raise ValueError("the screener must be an object")
    kind = screener.get("type")
    if not isinstance(kind, str) or kind not in SCREENER_TYPES:
        raise ValueError(f"unknown screener type {kind!r}")
    return kind


def _correct_matrix(screener: Mapping[str, Any], rows: int, columns: int) -> list[set[int]]:
    matrix = screener.get("correctMatrix")
    if not isinstance(matrix, list) or len(matrix) != rows:
        raise ValueError("the screener's correctMatrix needs one entry per row")
    result = []
    for entry in matrix:
        if not isinstance(entry, list) or not all(
            isinstance(c, int) and not isinstance(c, bool) and 0 <= c < columns for c in entry
        ):
            raise ValueError("the screener's correctMatrix holds column indexes in range")
        result.append(set(entry))
    return result


def public_screener(screener: Mapping[str, Any]) -> dict[str, Any]:
    """What the browser may see: no isCorrect, no correctMatrix, no _matrixData.

    {type, question, answers: [{index, text}], rows: [text], columns: [text], allowMultiple}.
    answers is empty for a matrix; rows and columns are empty for single and multiple.
    allowMultiple: False for single, True for multiple, the stored flag for a matrix.
    Raises ValueError for a screener that is not well formed.
    """
    kind = _kind(screener)
    question = screener.get("question")
    if not isinstance(question, str) or not question.strip():
        raise ValueError("the screener needs a question")
    if kind == MATRIX:
        rows = _texts(screener.get("rows"), "rows", minimum=1)
        columns = _texts(screener.get("columns"), "columns", minimum=2)
        _correct_matrix(screener, len(rows), len(columns))
        return {
            "type": kind,
            "question": question,
            "answers": [],
            "rows": rows,
            "columns": columns,
            "allowMultiple": screener.get("allowMultiple") is True,
        }
    answers = [{"index": i, "text": a["text"]} for i, a in enumerate(_answers(screener))]
    return {
        "type": kind,
        "question": question,
        "answers": answers,
        "rows": [],
        "columns": [],
        "allowMultiple": kind == MULTIPLE,
    }


def _shape(screener: Mapping[str, Any]) -> tuple[str, int, int, bool]:
    """(kind, number of rows, number of answers per row, several per row) of a stored or public screener."""
    kind = _kind(screener)
    if kind == MATRIX:
        rows = got if isinstance(got := screener.get("rows"), list) else []
        columns = got if isinstance(got := screener.get("columns"), list) else []
        return kind, len(rows), len(columns), screener.get("allowMultiple") is True
    answers = got if isinstance(got := screener.get("answers"), list) else []
    return kind, 1, len(answers), kind == MULTIPLE


def empty_selection(screener: Mapping[str, Any]) -> Selection:
    """Nothing chosen yet: every row present with an empty list."""
    _kind_, rows, _answers_, _several = _shape(screener)
    return {str(r): [] for r in range(rows)}


# --- choosing, confirming --------------------------------------------------------------------------


def choose(
    screener: Mapping[str, Any], selection: Mapping[str, list[int]], row: Any, index: Any, checked: Any = True
) -> Selection:
    """The selection after a click on answer `index` of `row` (row 0 for single and multiple).

    Radio kinds (single, matrix without allowMultiple): the row's answer becomes `index`
    (`checked` False is ignored: a radio button cannot be unticked). Checkbox kinds: `index` is
    added when `checked` is True and removed when False. Raises ValueError for an index out of
    range or a `checked` that is not a boolean. `selection` is not changed.
    """
    _kind_, rows, answers, several = _shape(screener)
    r, i = whole_number(row), whole_number(index)
    if r is None or not r < rows or i is None or not i < answers:
        raise ValueError("no such answer")
    if not isinstance(checked, bool):
        raise ValueError("checked must be true or false")
    result = {str(n): sorted(set(selection.get(str(n)) or [])) for n in range(rows)}
    key = str(r)
    if not several:
        if checked:
            result[key] = [i]
    elif checked:
        result[key] = sorted({*result[key], i})
    else:
        result[key] = [c for c in result[key] if c != i]
    return result


def can_confirm(screener: Mapping[str, Any], selection: Mapping[str, Any]) -> bool:
    """Confirm is enabled once an answer is chosen; a matrix needs every statement answered.

    Works on the public or the stored screener (only type, rows, columns and answers are read).
    """
    try:
        _kind_, rows, _answers_, _several = _shape(screener)
    except ValueError:
        return False
    if not isinstance(selection, Mapping) or rows < 1:
        return False
    return all(isinstance(selection.get(str(r)), list) and selection[str(r)] for r in range(rows))


def as_submission(screener: Mapping[str, Any], selection: Mapping[str, list[int]]) -> Any:
    """The raw form `parse_selection` reads, from a selection: single -> the index (None when
    unanswered), multiple -> the list, matrix -> {row: [indexes]}."""
    kind = _kind(screener)
    if kind == MATRIX:
        return {key: list(value) for key, value in selection.items()}
    chosen = list(selection.get("0") or [])
    if kind == SINGLE:
        return chosen[0] if chosen else None
    return chosen


# --- untrusted input -------------------------------------------------------------------------------


def _index(value: Any, size: int, what: str) -> int:
    number = whole_number(value)
    if number is None:
        raise ValueError(f"{what} must be a whole number")
    if not number < size:
        raise ValueError(f"{what} {number} is out of range (0-{size - 1})")
    return number


def _indexes(value: Any, size: int, what: str) -> list[int]:
    if not isinstance(value, list):
        raise ValueError(f"{what} must be a list of answer indexes")
    if len(value) > size:
        raise ValueError(f"{what} has more answers than there are")
    chosen = [_index(v, size, "answer index") for v in value]
    if len(set(chosen)) != len(chosen):
        raise ValueError(f"{what} lists an answer twice")
    return sorted(chosen)


def parse_selection(screener: Mapping[str, Any], raw: Any) -> Selection:
    """A selection from browser-sent `raw`, or ValueError.

    single: one index (a number or a text of ASCII digits); multiple: a list of distinct indexes;
    matrix: {statement index (text or number): [answer indexes]}, one per row unless
    allowMultiple, each statement once. Every index is bounds-checked; booleans, fractions,
    negative numbers and non-ASCII digits such as '²' are refused. Unanswered rows are empty
    (whether the selection is complete is `can_confirm`'s question).
    """
    kind, rows, answers, several = _shape(screener)
    selection: Selection = {str(r): [] for r in range(rows)}
    if kind == SINGLE:
        if raw is None:
            return selection
        selection["0"] = [_index(raw, answers, "answer index")]
        return selection
    if kind == MULTIPLE:
        selection["0"] = _indexes(raw, answers, "answers")
        return selection
    if not isinstance(raw, Mapping):
        raise ValueError("a matrix answer maps statement indexes to answer indexes")
    if len(raw) > rows:
        raise ValueError("a matrix answer has more statements than there are")
    seen: set[int] = set()
    for key, value in raw.items():
        row = _index(key, rows, "statement index")
        if row in seen:
            raise ValueError(f"statement index {row} is given twice")
        seen.add(row)
        chosen = _indexes(value, answers, f"statement {row}")
        if len(chosen) > 1 and not several:
            raise ValueError(f"statement {row} takes one answer")
        selection[str(row)] = chosen
    return selection


def stored_answers(screener: Mapping[str, Any], selection: Mapping[str, list[int]]) -> dict[str, Any]:
    """The JSON kept in `ScreenerResponse.selected_answers`: {type, answers: [indexes]} for single
    and multiple, {type: 'matrix', selections: {row: [indexes]}} for a matrix (the spec's shape)."""
    kind = _kind(screener)
    if kind == MATRIX:
        return {"type": kind, "selections": {key: list(value) for key, value in selection.items()}}
    return {"type": kind, "answers": list(selection.get("0") or [])}


def judge(screener: Mapping[str, Any], selection: Mapping[str, list[int]]) -> bool:
    """Whether a selection passes the stored screener (with its correct answers).

    An incomplete selection fails. Otherwise every chosen answer must be marked correct:
    single -> the chosen answer is correct; multiple -> a non-empty subset of the correct answers;
    matrix -> in each row, every chosen column is listed in that row's correctMatrix entry.
    """
    if not can_confirm(screener, selection):
        return False
    kind = _kind(screener)
    if kind == MATRIX:
        rows = _texts(screener.get("rows"), "rows", minimum=1)
        columns = _texts(screener.get("columns"), "columns", minimum=2)
        correct = _correct_matrix(screener, len(rows), len(columns))
        several = screener.get("allowMultiple") is True
        if not several and any(len(selection[str(r)]) != 1 for r in range(len(rows))):
            return False
        return all(set(selection[str(r)]) <= correct[r] for r in range(len(rows)))
    answers = _answers(screener)
    good = {i for i, a in enumerate(answers) if a.get("isCorrect") is True}
    chosen = set(selection["0"])
    if kind == SINGLE and len(chosen) != 1:
        return False
    return bool(chosen) and chosen <= good
