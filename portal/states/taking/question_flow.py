"""Answering questions one at a time: every question type of the spec (section 5), shared by the
kinds that ask questions (survey, highlight, pricing).

The rules come from portal/domain (survey_answers, survey_view): the same function gives the live
message here and checks the submission on the server. A kind's state mixes this in after
TimedSession and supplies `_nav_values` (its Back/Next buttons) and, when answers steer the way
(survey branching), `_changed`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import reflex as rx

from portal.domain.taking import survey_view as view
from portal.domain.taking.survey_answers import (
    ANSWER_FIELDS,
    LIMITABLE_TEXT,
    MAX_OTHER_LENGTH,
    MAX_TEXT_LENGTH,
    SINGLE_CHOICE,
    TEXT,
    clean_answer,
    default_answer,
    is_empty,
    parse_number,
    validate_answer,
)
from portal.services.taking.definitions import TestDefinition
from portal.states.browser import toast
from portal.states.taking.timed_session import TimedSession, json_text

if TYPE_CHECKING:  # a kind's state mixes this in before TimedSession, whose vars and helpers it uses
    _Host = TimedSession
else:
    _Host = rx.State

QUESTIONS = view.QUESTIONS
UNREADABLE = "This answer could not be read. Please try again."
TOO_LONG = "This answer is too long."


class QuestionFlow(_Host, mixin=True):
    """The shown question (`index` into the definition's questions) and its display values.

    A tab holds the view of the one question it shows (`current`), not of all of them: the
    definition is the process's (TimedSession._fresh_definition), and every question's view in every
    tab's state cost objects to load, store, collect and send (issue 18: a tab's states in memory
    were two thirds question views, and the garbage collector's full passes grew with them).
    """

    current: dict[str, Any] = {}
    question_count: int = 0
    index: int = 0
    # What the current question shows, refreshed after every change.
    single_value: str = ""
    other_text: str = ""
    multi_values: list[str] = []
    text_value: str = ""
    number_text: str = ""
    rank_options: list[dict[str, str]] = []
    rank_started: bool = False
    rating_value: str = ""
    matrix_value: dict[str, list[str]] = {}
    word_count: int = 0
    can_go_back: bool = False
    # The shown question's answer passes its rules now (the highlight test's Next is enabled only then: the spec).
    current_valid: bool = False

    # --- hooks ---------------------------------------------------------------------------------
    def _nav_values(self, definition: TestDefinition) -> dict[str, Any]:
        """The kind's navigation values for the current question (e.g. is_last, next_label)."""
        return {}

    def _changed(
        self, definition: TestDefinition, index: int, old: Any, answer: dict[str, Any], answers: dict[str, Any]
    ) -> dict[str, Any]:
        """The answers after one changed (a survey branch resets the later ones)."""
        return answers

    # --- shared --------------------------------------------------------------------------------
    def _current_question(self, definition: TestDefinition) -> dict[str, Any]:
        return definition.questions[self.index] if 0 <= self.index < len(definition.questions) else {}

    def _answer_of(self, question: dict[str, Any]) -> dict[str, Any]:
        return self._read("_answers").get(question.get("key")) or default_answer(question)

    def _keep_answers(self, answers: dict[str, Any], definition: TestDefinition) -> None:
        """A draft's answers: only the test's own questions, each cleaned."""
        keys = {q.get("key") for q in definition.questions}
        self._answers = {k: clean_answer(v) for k, v in answers.items() if k in keys and isinstance(v, dict)}

    def _show_questions(self, definition: TestDefinition) -> None:
        """The test's questions are known: their number (the shown one comes with _refresh)."""
        self.question_count = len(definition.questions)

    def _refresh(self, definition: TestDefinition) -> None:
        """The current question's view and display values (what the inputs show); only changed ones are sent."""
        question = self._current_question(definition)
        shown = view.question_view(question, self.index, self._seed) if question else {}
        if self._read("current") != shown:
            self.current = shown
        values = view.display_values(question, self._answer_of(question), shown.get("options", []))
        values.update(self._nav_values(definition))
        key = str(question.get("key") or "") if question else ""
        values["current_valid"] = bool(question) and validate_answer(question, self._answers.get(key)) is None
        for name, value in values.items():
            if self._read(name) != value:
                setattr(self, name, value)

    def _current_key_and_answer(self) -> tuple[str, dict[str, Any], dict[str, Any]]:
        definition = self._definition()
        question = (
            definition.questions[self.index] if definition and 0 <= self.index < len(definition.questions) else {}
        )
        return str(question.get("key") or ""), question, dict(self._answer_of(question)) if question else {}

    def _check_current(self) -> bool:
        """The current answer passes its rules; else its message is shown."""
        key, question, _ = self._current_key_and_answer()
        message = validate_answer(question, self._answers.get(key)) if question else None
        if message:
            self.errors = {**self.errors, key: message}
        return not message

    async def _apply(self, key: Any, answer: Any, seq: int | None = None) -> list:
        """One answer changed (`seq`: the sequence number of a retried pending change, else a new one)."""
        if not isinstance(key, str) or (self.phase != QUESTIONS if seq is None else not self._in_progress()):
            return []
        definition = await self._fresh_definition()
        positions = {q.get("key"): i for i, q in enumerate(definition.questions)}
        if key not in positions or not isinstance(answer, dict) or not set(answer) <= ANSWER_FIELDS:
            return [toast("error", UNREADABLE)]
        index = positions[key]
        question = definition.questions[index]
        answer = clean_answer({**answer, "type": question.get("type")})
        if len(json_text(answer)) > MAX_TEXT_LENGTH + 2_000:
            return [toast("error", TOO_LONG)]
        current = self._read("_answers")
        old = current.get(key)
        if old == answer and seq is None:
            # e.g. a text typed and deleted again: nothing to save; the browser's copy learns that the
            # server holds what was typed (it keeps keystrokes as unsent until a reply holds them)
            return self._local_scripts()
        merged = {**current, key: answer}
        answers = self._changed(definition, index, old, answer, dict(merged))
        if answers != merged or seq is not None:
            self.epoch += 1  # the text boxes show what came from elsewhere
        # An answer a branch removed keeps its number: a retried older change to it stays superseded.
        changed = self._stamp(
            (k for k in sorted(set(answers) | set(current)) if answers.get(k) != current.get(k) or k == key), seq
        )
        self._answers = answers
        message = validate_answer(question, answer)
        shown = self._read("errors")
        live = question.get("type") not in TEXT or key in shown
        errors = {k: v for k, v in shown.items() if k != key}
        if message and live and not is_empty(question, answer):
            errors[key] = message
        elif message and key in shown:
            errors[key] = message
        if errors != shown:  # unchanged messages are not sent again (nor the shown one recomputed)
            self.errors = errors
        self._refresh(definition)
        return await self._save({k: v for k, v in changed.items() if k in answers})

    async def _retry_pending(self, key: str, answer: dict[str, Any], seq: int) -> list:
        definition = await self._fresh_definition()
        if not any(q.get("key") == key for q in definition.questions):
            # Not this test's question: another part's (the personal-info step), or nothing to apply.
            return await super()._retry_pending(key, answer, seq)
        return await self._apply(key, answer, seq)

    # --- Continue with the browser's pending answers ---------------------------------------------
    def _ask_pending(self, callback: Any) -> Any:
        """Continue, when the state holds no answer to the shown (required) question: the browser may still
        hold one that was never kept (its event's state write was refused), so it is asked for its
        pending answers (`callback` gets them) instead of saying 'Answer is required' at once. None
        when there is nothing to ask (a valid answer, or a preview, which keeps no local copy)."""
        key, question, _ = self._current_key_and_answer()
        answer = self._answers.get(key)
        # Only an empty answer ('Answer is required'): an invalid one is the page's own (it shows it).
        if not question or not is_empty(question, answer) or not validate_answer(question, answer):
            return None
        return self._ask_browser(callback)

    async def _question(self, key: Any) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """The question named by an event and a copy of its answer (None for an unknown key).

        Every answer event names its question: a debounced text event may arrive after Continue."""
        definition = await self._fresh_definition()
        if not isinstance(key, str):
            return None
        question = next((q for q in definition.questions if q.get("key") == key), None)
        return None if question is None else (question, dict(self._answer_of(question)))

    async def _edit(self, key: Any, change: Callable[[dict[str, Any], dict[str, Any]], bool]) -> list:
        """Change a copy of the named question's answer (`change` returns False to drop the event), then apply it."""
        found = await self._question(key)
        if found is None:
            return []
        question, answer = found
        if change(question, answer) is False:
            return []
        return await self._apply(key, answer)

    async def _paste(self, data: dict[str, Any]) -> list:
        key, length, at = data.get("key"), data.get("length"), data.get("at")
        if not isinstance(length, int) or isinstance(length, bool) or not 0 < length <= MAX_TEXT_LENGTH:
            return []
        stamp = at if isinstance(at, str) and len(at) <= 40 else ""

        def change(question: dict[str, Any], answer: dict[str, Any]) -> bool:
            answer["pasteMetadata"] = {"wasPasted": True, "pasteTimestamp": stamp, "pastedLength": length}
            return question.get("type") in TEXT

        return await self._edit(key, change)

    # --- answering -----------------------------------------------------------------------------
    @rx.event
    async def set_answer(self, key: str, answer: dict[str, Any]):
        """One answer object (what the other handlers build); validated like every answer."""
        return await self._apply(key, answer)

    @rx.event
    async def choose(self, key: str, value: str):
        def change(question: dict[str, Any], answer: dict[str, Any]) -> bool:
            if value == view.OTHER_VALUE:
                keep = answer.get("value") if answer.get("isOther") and isinstance(answer.get("value"), str) else ""
                answer.update(isOther=True, value=keep)
            else:
                answer.update(isOther=False, value=value)
            return isinstance(value, str)

        return await self._edit(key, change)

    @rx.event
    async def set_other_text(self, key: str, text: str):
        def change(question: dict[str, Any], answer: dict[str, Any]) -> bool:
            if not isinstance(text, str):
                return False
            field = "value" if question.get("type") in SINGLE_CHOICE else "otherText"
            answer.update({"isOther": True, field: text[: MAX_OTHER_LENGTH * 2]})
            return True

        return await self._edit(key, change)

    @rx.event
    async def toggle_option(self, key: str, value: str):
        def change(question: dict[str, Any], answer: dict[str, Any]) -> bool:
            if value == view.OTHER_VALUE:
                answer["isOther"] = not answer.get("isOther")
                answer.setdefault("otherText", "")
            elif isinstance(value, str):
                current = got if isinstance(got := answer.get("value"), list) else []
                answer["value"] = view.toggle(current, value)
            return isinstance(value, str)

        return await self._edit(key, change)

    @rx.event
    async def set_text(self, key: str, text: str, measured: Any = None):
        """A text answer (`measured`: the browser's typing and leaving measures, sent along; never required)."""
        await self._measured(measured)

        def change(question: dict[str, Any], answer: dict[str, Any]) -> bool:
            if not isinstance(text, str):
                return False
            answer["value"] = text[: MAX_TEXT_LENGTH + 1]
            if question.get("type") in LIMITABLE_TEXT:
                answer["isLimited"] = question.get("isLimited", True) is not False
            return True

        return await self._edit(key, change)

    @rx.event
    async def set_number(self, key: str, text: str):
        def change(question: dict[str, Any], answer: dict[str, Any]) -> bool:
            if not isinstance(text, str):
                return False
            typed = text.strip()[:40]
            number = parse_number(typed)
            if not typed:
                answer["value"] = None
            elif number is None:
                answer["value"] = typed  # kept as typed: 'Invalid number'
            else:
                answer["value"] = int(number) if number.is_integer() and abs(number) < 2**53 else number
            return True

        return await self._edit(key, change)

    async def _rank(self, key: Any, value: Any, offset: int) -> list:
        def change(question: dict[str, Any], answer: dict[str, Any]) -> bool:
            current = got if isinstance(got := answer.get("value"), list) else []
            shown = view.ordered_options(question, self._seed)
            answer["value"] = view.rank_move(shown, current, value, offset) if isinstance(value, str) else current
            return True

        return await self._edit(key, change)

    @rx.event
    async def rank_up(self, key: str, value: str):
        return await self._rank(key, value, -1)

    @rx.event
    async def rank_down(self, key: str, value: str):
        return await self._rank(key, value, 1)

    @rx.event
    async def keep_rank(self, key: str):
        """'Keep this order': the shown order becomes the ranking."""
        return await self._rank(key, "", 0)

    @rx.event
    async def rate(self, key: str, value: str):
        def change(question: dict[str, Any], answer: dict[str, Any]) -> bool:
            number = parse_number(value)
            answer["value"] = int(number) if number is not None and number.is_integer() else number
            return True

        return await self._edit(key, change)

    @rx.event
    async def pick_cell(self, key: str, statement: str, column: str):
        def change(question: dict[str, Any], answer: dict[str, Any]) -> bool:
            if not isinstance(statement, str) or not isinstance(column, str):
                return False
            current = got if isinstance(got := answer.get("value"), dict) else {}
            answer["value"] = view.matrix_pick(current, statement, column, bool(question.get("allowMultipleAnswers")))
            return True

        return await self._edit(key, change)

    # --- shown values --------------------------------------------------------------------------
    @rx.var(cache=True)
    def current_error(self) -> str:
        key = self.current.get("key")
        return self.errors.get(key, "") if key else ""

    @rx.var(cache=True)
    def other_chosen(self) -> bool:
        return self.single_value == view.OTHER_VALUE or view.OTHER_VALUE in self.multi_values

    @rx.var(cache=True)
    def text_key(self) -> str:
        return f"{self.current.get('key') or ''}-{self.epoch}"
