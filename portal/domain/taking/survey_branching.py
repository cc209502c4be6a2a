"""Survey branching and the submission check (test-taking spec, sections 4 and 5).

Answers are keyed by question key (the server draft's format). A single-choice question
with `withConditional` sends the participant, for an option with a `conditional` page, to
the first question of that page, or to the end when the page is 999. An answer without
a target gives no forward route. The branch target is always read from the test
definition, never from the answer object the browser sends.

Navigation history is the path of question indexes shown, the current one last.
"""

from __future__ import annotations

from typing import Any, Final

from portal.domain.taking.survey_answers import SINGLE_CHOICE, default_answer, is_empty, validate_answer

END_OF_SURVEY_PAGE = 999
END: Final = "end"  # next_index result: the survey's end step
NO_ROUTE = "Please choose an answer that leads to a next question"
UNKNOWN_QUESTION = "This question is not part of the survey"

Target = int | str | None  # a question index, END, or None (no forward route)


def pages(questions: list[dict[str, Any]]) -> list[int]:
    """Each question's page; a question without one is on the previous question's page (1 first)."""
    result: list[int] = []
    page = 1
    for question in questions:
        raw = question.get("page")
        if isinstance(raw, int) and not isinstance(raw, bool):
            page = raw
        result.append(page)
    return result


def is_branching(question: dict[str, Any]) -> bool:
    return bool(question.get("withConditional")) and question.get("type") in SINGLE_CHOICE


def branch_target(question: dict[str, Any], answer: Any) -> int | None:
    """The target page of the chosen option of a branching question, None without one."""
    if not is_branching(question) or not isinstance(answer, dict) or answer.get("isOther"):
        return None
    for option in question.get("options") or []:
        if isinstance(option, dict) and option.get("value") == answer.get("value"):
            target = option.get("conditional")
            return target if isinstance(target, int) and not isinstance(target, bool) else None
    return None


def first_of_page(questions: list[dict[str, Any]], page: int) -> int | str:
    """Index of the first question on `page` (or the next page after it); END for 999 or past the last."""
    if page == END_OF_SURVEY_PAGE:
        return END
    for index, question_page in enumerate(pages(questions)):
        if question_page >= page:
            return index
    return END


def next_index(
    questions: list[dict[str, Any]],
    index: int,
    answers: dict[str, Any],
    conditional_enabled: bool = True,
) -> Target:
    """Where Continue goes from question `index`: an index, END, or None (no forward route)."""
    question = questions[index]
    if conditional_enabled and is_branching(question):
        target = branch_target(question, answers.get(question.get("key", "")))
        return None if target is None else first_of_page(questions, target)
    return index + 1 if index + 1 < len(questions) else END


def history_add(history: list[int], index: int) -> list[int]:
    """Append `index`; a new entry equal to the last is skipped."""
    if history and history[-1] == index:
        return list(history)
    return [*history, index]


def history_truncate(history: list[int], index: int) -> list[int]:
    """Keep the history up to and including the first visit of `index` (everything when absent)."""
    if index in history:
        return history[: history.index(index) + 1]
    return list(history)


def go_forward(
    questions: list[dict[str, Any]],
    history: list[int],
    index: int,
    answers: dict[str, Any],
    conditional_enabled: bool = True,
) -> tuple[Target, list[int]]:
    """Continue from `index`: (where to go, new history). Going forward from a question seen
    before (after Back) truncates the history there, then adds the next index."""
    target = next_index(questions, index, answers, conditional_enabled)
    base = history_add(history_truncate(history, index), index)
    if target is None or target == END:
        return target, base
    assert isinstance(target, int)
    return target, history_add(base, target)


def go_back(history: list[int]) -> tuple[int | None, list[int]]:
    """Back follows history: (the previous question, new history); (None, history) on the first one."""
    if len(history) < 2:
        return None, list(history)
    trimmed = history[:-1]
    return trimmed[-1], trimmed


def after_branch_change(
    questions: list[dict[str, Any]],
    index: int,
    old: Any,
    new: Any,
    answers: dict[str, Any],
    history: list[int],
) -> tuple[dict[str, Any], list[int]]:
    """A branching question's answer changed from `old` to `new`: when its target changes,
    every later answer goes back to its default and the history is trimmed after `index`.
    `answers` should already hold `new`; returns (answers, history), the inputs are not changed."""
    question = questions[index]
    result = dict(answers)
    if not is_branching(question) or branch_target(question, old) == branch_target(question, new):
        return result, list(history)
    for later in questions[index + 1 :]:
        key = later.get("key")
        if key in result:
            result[key] = default_answer(later)
    if index in history:
        return result, history_truncate(history, index)
    return result, [i for i in history if i < index]  # the question was not reached through this history


def end_branch_index(questions: list[dict[str, Any]], answers: dict[str, Any]) -> int | None:
    """Index of the earliest question whose answer ends the survey (page 999), if any."""
    for index, question in enumerate(questions):
        if branch_target(question, answers.get(question.get("key", ""))) == END_OF_SURVEY_PAGE:
            return index
    return None


def answers_for_submission(
    questions: list[dict[str, Any]],
    answers: dict[str, Any],
    conditional_enabled: bool,
) -> dict[str, Any]:
    """The answers to store: only known questions (no descriptions); with branching on,
    the answers after the earliest end-survey branch are dropped."""
    cut = end_branch_index(questions, answers) if conditional_enabled else None
    kept = questions if cut is None else questions[: cut + 1]
    return {q["key"]: answers[q["key"]] for q in kept if q.get("type") != "description" and q.get("key") in answers}


def route(
    questions: list[dict[str, Any]], answers: dict[str, Any], conditional_enabled: bool
) -> tuple[list[int], bool]:
    """The question indexes the answers lead through from the first one, and whether it reaches the end."""
    path: list[int] = []
    index: Target = 0 if questions else END
    while isinstance(index, int) and index not in path:
        path.append(index)
        index = next_index(questions, index, answers, conditional_enabled)
    return path, index == END


def validate_submission(
    questions: list[dict[str, Any]],
    answers: dict[str, Any],
    conditional_enabled: bool,
) -> dict[str, str]:
    """Question key -> message for everything that stops a submission (empty when it may go).

    Every question on the route the answers take must pass its rules (required ones
    answered); a question a branch skipped is not required, but an answer it carries must
    still be valid. An answer to a key that is no question is refused."""
    errors: dict[str, str] = {}
    known = {q.get("key") for q in questions}
    for key in answers:
        if key not in known:
            errors[str(key)] = UNKNOWN_QUESTION
    path, reaches_end = route(questions, answers, conditional_enabled)
    on_route = set(path)
    for index, question in enumerate(questions):
        key = question.get("key", "")
        answer = answers.get(key)
        if index not in on_route:
            if not is_empty(question, answer):
                message = validate_answer({**question, "isRequired": False}, answer)
                if message:
                    errors[key] = message
            continue
        message = validate_answer(question, answer)
        if message:
            errors[key] = message
    if not reaches_end and path:
        stuck = questions[path[-1]].get("key", "")
        errors.setdefault(stuck, NO_ROUTE)
    return errors
