"""Preference tests on /test/{id}/rate: welcome, choose a concept (image or text), the follow-up
answer, confirm (personal info for public respondents, then submit), thank-you.

The rules are in portal/domain/kinds/preference.py; the timed session (timer, drafts, time-up,
extension, submission) is TimedSession and the personal info WorkerDetailsStep. The choice and
the answer are kept in the server draft and in local storage under '{testId}-preference-answer'.
The image order is drawn once per participant and test from their key (the same on every load)
and the server stores its own copy with the review.
"""

from __future__ import annotations

from typing import Any, ClassVar

import reflex as rx

from portal.domain import kinds
from portal.domain.kinds import preference as rules
from portal.domain.kinds.base import order_seed
from portal.domain.survey_answers import MAX_TEXT_LENGTH, paste_metadata_ok, word_count
from portal.services.test_definitions import TestDefinition
from portal.states.timed_session import END, THANK_YOU, TimedSession
from portal.states.worker_details_step import WorkerDetailsStep

WELCOME, CHOOSE, ANSWER = "welcome", "choose", "answer"


class PreferenceState(WorkerDetailsStep, TimedSession, rx.State):
    VIEW: ClassVar[str] = kinds.PREFERENCE_VIEW
    STORE_SUFFIX: ClassVar[str] = "-preference-answer"
    IN_PROGRESS: ClassVar[frozenset[str]] = frozenset({CHOOSE, ANSWER, END})
    FAILED_MESSAGE: ClassVar[str] = rules.FAILED

    title: str = ""
    description: str = ""
    prompt: str = ""
    is_image: bool = False
    is_limited: bool = False
    # The concepts as shown: {key, label, url, letter}.
    concepts: list[dict[str, str]] = []
    selected: str = ""
    follow_up: str = ""
    answer_text: str = ""
    word_count: int = 0
    choose_error: str = ""
    answer_error: str = ""
    font_size: str = rules.DEFAULT_FONT_SIZE
    # The detailed view of an image concept.
    detail_open: bool = False
    detail_index: int = 0
    zoomed: bool = False

    # --- the timed session's hooks -------------------------------------------------------------
    def _show_kind(self, definition: TestDefinition) -> None:
        content = definition.content
        self.title = str(definition.welcome.get("title") or definition.name)
        self.description = str(definition.welcome.get("description") or "")
        self.prompt = rules.prompt(content)
        self.is_image = rules.is_image(content)
        self.is_limited = rules.is_limited(content)
        self.concepts = rules.shown(content, order_seed(self._key, definition.test_id))
        self.detail_open, self.zoomed = False, False
        self.choose_error, self.answer_error = "", ""

    def _fresh(self, definition: TestDefinition) -> None:
        self.selected, self.answer_text, self.word_count = "", "", 0
        self.phase = WELCOME

    def _restore_kind(self, answers: dict[str, Any], position: dict[str, Any], definition: TestDefinition) -> None:
        keys = {c["key"] for c in self.concepts}
        chosen = answers.get("selectedConcept")
        text = answers.get("answer")
        text = text.get("value") if isinstance(text, dict) else text  # a keystroke kept by the browser
        self._answers = {
            "selectedConcept": chosen if chosen in keys else "",
            "answer": text[: MAX_TEXT_LENGTH + 1] if isinstance(text, str) else "",
        }
        if paste_metadata_ok(answers.get("pasteMetadata")):
            self._answers["pasteMetadata"] = answers["pasteMetadata"]
        step = position.get("step")
        self.phase = step if step in (ANSWER, END) and self._answers["selectedConcept"] else CHOOSE
        size = position.get("fontSize")
        self.font_size = size if size in rules.FONT_SIZES else rules.DEFAULT_FONT_SIZE
        self._show_answer(definition)

    def _kind_position(self) -> dict[str, Any]:
        return {"fontSize": self.font_size}

    def _url_step(self) -> str:
        return self.phase if self.phase in (CHOOSE, ANSWER, END, THANK_YOU) else ""

    def _payload(self, definition: TestDefinition) -> dict[str, Any]:
        return {
            "preferenceTestAnswers": {**self._answers, "isLimited": self.is_limited},
            "optionsOrder": [c["key"] for c in self.concepts] if self.is_image else [],
        }

    def _answer_errors(self, errors: dict[str, str], definition: TestDefinition) -> None:
        self.choose_error = errors.get("answers.preferenceTestAnswers.selectedConcept", "")
        self.answer_error = errors.get("answers.preferenceTestAnswers.answer", "")
        self.phase = CHOOSE if self.choose_error else ANSWER

    def _refresh(self, definition: TestDefinition) -> None:
        self._show_answer(definition)

    def _back_from_details(self) -> None:
        self.phase = CHOOSE  # the confirm step's Cancel goes back to choosing

    def _show_answer(self, definition: TestDefinition) -> None:
        self.selected = str(self._answers.get("selectedConcept") or "")
        self.answer_text = str(self._answers.get("answer") or "")
        self.word_count = word_count(self.answer_text)
        chosen = next((c for c in self.concepts if c["key"] == self.selected), None)
        self.follow_up = rules.follow_up(definition.content, chosen["letter"]) if chosen else ""

    async def _paste(self, data: dict[str, Any]) -> list:
        length, at = data.get("length"), data.get("at")
        if self.phase != ANSWER or not isinstance(length, int) or isinstance(length, bool) or not 0 < length <= MAX_TEXT_LENGTH:
            return []
        stamp = at if isinstance(at, str) and len(at) <= 40 else ""
        self._answers = {**self._answers, "pasteMetadata": {"wasPasted": True, "pasteTimestamp": stamp, "pastedLength": length}}
        return await self._save()

    # --- the steps -----------------------------------------------------------------------------
    @rx.event
    async def start_test(self):
        """The welcome page's button: the server session and its deadline begin (or resume)."""
        if self.phase not in (WELCOME, CHOOSE) or self.test_id <= 0:
            return
        return await self._start()

    async def _choose(self, key: Any) -> list:
        if self.phase != CHOOSE or not isinstance(key, str) or key not in {c["key"] for c in self.concepts}:
            return []
        if key != self._answers.get("selectedConcept"):
            self._answers = {"selectedConcept": key, "answer": ""}  # a new concept clears the typed answer
            self.epoch += 1
        self.choose_error = ""
        self._show_answer(await self._fresh_definition())
        return await self._save()

    @rx.event
    async def choose(self, key: str):
        return await self._choose(key)

    @rx.event
    async def to_answer(self):
        """Continue from the concepts: only with one chosen."""
        if self.phase != CHOOSE:
            return
        if not self.selected:
            self.choose_error = rules.NOT_AN_OPTION
            return
        self.phase = ANSWER
        self.answer_error = ""
        events = await self._save()
        return [self._url_script(), rx.call_script("window.scrollTo(0, 0)"), *events]

    @rx.event
    async def back_to_choose(self):
        if self.phase != ANSWER:
            return
        self.phase = CHOOSE
        events = await self._save()
        return [self._url_script(), *events]

    @rx.event
    async def set_answer_text(self, concept: str, text: str, epoch: Any = None):
        """The typed answer, named with the concept and the choice (epoch) it was typed for: a debounced
        edit that arrives after the participant went back and chose again, another concept or the same
        one anew (which cleared the answer), is dropped, not given to the new choice."""
        if self.phase != ANSWER or not isinstance(text, str) or concept != self._answers.get("selectedConcept"):
            return
        if epoch is not None and epoch != self.epoch:
            return
        self._answers = {**self._answers, "answer": text[: MAX_TEXT_LENGTH + 1]}
        self.answer_text = self._answers["answer"]
        self.word_count = word_count(self.answer_text)
        if self.answer_error:
            self.answer_error = rules.answer_message(self.answer_text, self.is_limited) or ""
        return await self._save()

    @rx.event
    async def to_confirm(self):
        """Next from the answer: only when it passes its rule (the same one the server applies)."""
        if self.phase != ANSWER:
            return
        message = rules.answer_message(self._answers.get("answer"), self.is_limited)
        self.answer_error = message or ""
        if message:
            return
        return await self._to_details()

    @rx.event
    async def set_font_size(self, size: str | list[str]):
        """The text size switch; kept with the draft, so a reload shows the same size."""
        if isinstance(size, str) and size in rules.FONT_SIZES and size != self.font_size:
            self.font_size = size
            if self._in_progress():
                return await self._save()

    # --- the detailed view ---------------------------------------------------------------------
    @rx.event
    def open_detail(self, index: int):
        if self.phase == CHOOSE and isinstance(index, int) and 0 <= index < len(self.concepts):
            self.detail_index, self.detail_open, self.zoomed = index, True, False

    @rx.event
    def close_detail(self):
        self.detail_open = False

    @rx.event
    def detail_step(self, offset: int):
        if self.detail_open and isinstance(offset, int) and self.concepts:
            self.detail_index = (self.detail_index + (1 if offset > 0 else -1)) % len(self.concepts)
            self.zoomed = False

    @rx.event
    def toggle_zoom(self):
        self.zoomed = not self.zoomed

    @rx.event
    async def select_detail(self):
        """'Select this concept' in the detailed view."""
        if not self.detail_open or not 0 <= self.detail_index < len(self.concepts):
            return
        self.detail_open = False
        return await self._choose(self.concepts[self.detail_index]["key"])

    # --- shown values --------------------------------------------------------------------------
    @rx.var(cache=True)
    def detail(self) -> dict[str, str]:
        return self.concepts[self.detail_index] if 0 <= self.detail_index < len(self.concepts) else {}

    @rx.var(cache=True)
    def selected_letter(self) -> str:
        return next((c["letter"] for c in self.concepts if c["key"] == self.selected), "")

    @rx.var(cache=True)
    def leave_guard(self) -> bool:
        """Leaving is blocked unless the test is completed and this is the thank-you step."""
        return self.phase not in (THANK_YOU, "loading", "reviewed", "expired")
