"""The survey test on /test/{id}/rate: welcome, questions with branching, submission, thank-you.

Only the survey's own part is here: its welcome texts, Continue/Back along the branching route
and Submit. The timed session (timer, drafts, time-up, extension, submission) is TimedSession,
the answering of each question type QuestionFlow, the personal-info end step WorkerDetailsStep.
Answers are kept in local storage under '{testId}-survey-answers'.
"""

from __future__ import annotations

from typing import Any, ClassVar

import reflex as rx

from portal.domain.taking import kinds
from portal.domain.taking import survey_branching as branching
from portal.domain.taking import survey_view as view
from portal.domain.taking.survey_answers import SUMMARY, TEXT
from portal.services.taking.definitions import TestDefinition
from portal.states.browser import run_script, toast
from portal.states.taking.question_flow import QuestionFlow
from portal.states.taking.timed_session import END, THANK_YOU, TimedSession
from portal.states.taking.worker_details_step import WorkerDetailsStep


class SurveyState(QuestionFlow, WorkerDetailsStep, TimedSession, rx.State):
    """One participant's survey run. Answers are keyed by question key (the server draft's format)."""

    VIEW: ClassVar[str] = kinds.SURVEY_VIEW
    IN_PROGRESS: ClassVar[frozenset[str]] = frozenset({view.QUESTIONS, END})

    title: str = ""
    description: str = ""
    start_label: str = view.START_LABEL
    is_last: bool = False
    # The last question's Submit stays disabled until every required answer on the route is valid (spec).
    can_submit: bool = False

    _history: list[int] = []

    # --- the timed session's hooks -------------------------------------------------------------
    def _show_kind(self, definition: TestDefinition) -> None:
        self._show_questions(definition)
        self.title, self.description, self.start_label = view.welcome_texts(definition.welcome, definition.name)

    def _fresh(self, definition: TestDefinition) -> None:
        self._history, self.index = [], 0
        self.phase = view.WELCOME

    def _restore_kind(self, answers: dict[str, Any], position: dict[str, Any], definition: TestDefinition) -> None:
        self._keep_answers(answers, definition)
        total = len(definition.questions)
        index = position.get("index")
        self.index = index if isinstance(index, int) and not isinstance(index, bool) and 0 <= index < total else 0
        history = position.get("navigationHistory")
        valid = isinstance(history, list) and all(isinstance(i, int) and 0 <= i < total for i in history)
        self._history = list(history) if valid and history else [self.index]
        self.phase = view.QUESTIONS

    def _kind_position(self) -> dict[str, Any]:
        return {"index": self.index, "navigationHistory": list(self._read("_history"))}

    def _measure_parts(self, definition: TestDefinition) -> dict[str, str]:
        return {str(q.get("key")): str(q.get("key")) for q in definition.questions if q.get("type") in TEXT}

    def _url_step(self) -> str:
        if self.phase == view.QUESTIONS:
            return f"{view.QUESTIONS}/{self.index}"
        return self.phase if self.phase in (END, THANK_YOU) else ""

    def _payload(self, definition: TestDefinition) -> dict[str, Any]:
        return self._answers

    def _answer_errors(self, errors: dict[str, str], definition: TestDefinition) -> None:
        self.errors = {k.removeprefix("answers."): v for k, v in errors.items()}
        self.phase = view.QUESTIONS  # back to the questions, where the messages are
        self._refresh(definition)

    # --- the question flow's hooks -------------------------------------------------------------
    def _nav_values(self, definition: TestDefinition) -> dict[str, Any]:
        question = self._current_question(definition)
        answers = self._read("_answers")
        target = (
            branching.next_index(definition.questions, self.index, answers, definition.conditional)
            if question
            else None
        )
        is_last = target == branching.END
        can_submit = is_last and not branching.validate_submission(
            definition.questions, answers, definition.conditional
        )
        return {"is_last": is_last, "can_go_back": len(self._read("_history")) > 1, "can_submit": can_submit}

    def _changed(
        self, definition: TestDefinition, index: int, old: Any, answer: dict[str, Any], answers: dict[str, Any]
    ) -> dict[str, Any]:
        answers, self._history = branching.after_branch_change(
            definition.questions, index, old, answer, answers, self._history
        )
        return answers

    # --- the survey's steps --------------------------------------------------------------------
    @rx.event
    async def start_survey(self):
        """'Start survey': the server session and its deadline begin (or the running one resumes)."""
        if self.phase not in (view.WELCOME, view.QUESTIONS) or self.test_id <= 0:
            return
        return await self._start()

    @rx.event
    async def go_next(self):
        """'Continue' (QuestionFlow._ask_pending: never 'Answer is required' for an answer the page has)."""
        if self.phase != view.QUESTIONS:
            return
        return self._ask_pending(type(self).go_next_with) or await self._go_next()

    @rx.event
    async def go_next_with(self, pending: str):
        """'Continue' with the browser's pending answers (JSON): those newer than the state's are
        applied, then Continue goes on as usual."""
        if self.phase != view.QUESTIONS:
            return
        events = await self._take_pending(pending)
        return [*events, *(await self._go_next() or [])]

    async def _go_next(self) -> list | None:
        definition = await self._fresh_definition()
        if not self._check_current():
            return None
        key, _, _ = self._current_key_and_answer()
        target, history = branching.go_forward(
            definition.questions, self._read("_history"), self.index, self._read("_answers"), definition.conditional
        )
        if target is None:
            self.errors = {**self.errors, key: branching.NO_ROUTE}
            return None
        if target == branching.END:
            self._history = history
            self._spent(f"question:{key}")
            return await self._finish(definition)
        self._spent(f"question:{key}")
        self._history, self.index = history, int(target)
        self._refresh(definition)
        events = await self._save()
        return [self._url_script(), run_script("window.scrollTo(0, 0)"), *events]

    @rx.event
    async def go_back(self):
        if self.phase != view.QUESTIONS:
            return
        definition = await self._fresh_definition()
        previous, history = branching.go_back(self._history)
        if previous is None:
            return
        self._spent(f"question:{self._current_key_and_answer()[0]}")
        self.index, self._history = previous, history
        self._refresh(definition)
        events = await self._save()
        return [self._url_script(), run_script("window.scrollTo(0, 0)"), *events]

    @rx.event
    async def submit(self):
        """Submit on the last question: the personal-info step for a public respondent, else the server."""
        if self.phase != view.QUESTIONS or self.submitting:
            return
        definition = await self._fresh_definition()
        if not self._check_current():
            return
        self._spent(f"question:{self._current_key_and_answer()[0]}")
        self._history = branching.history_add(branching.history_truncate(self._history, self.index), self.index)
        self.submitting = True
        yield
        events = await self._finish(definition)
        self.submitting = False
        yield events

    async def _finish(self, definition: TestDefinition) -> list:
        """After the last question: the personal-info step when it has fields, else straight to the server."""
        errors = branching.validate_submission(definition.questions, self._answers, definition.conditional)
        if errors:
            self.errors = errors
            return [toast("error", SUMMARY)]
        if self.personal_fields and self.phase == view.QUESTIONS:
            return await self._to_details()
        return await self._send()

    # --- shown values --------------------------------------------------------------------------
    @rx.var(cache=True)
    def progress(self) -> str:
        return view.progress_label(self.index, self.question_count)
