"""Preference tests on /test/{id}/rate: welcome, choose a concept (image or text), the follow-up
answer, confirm (personal info for public respondents, then submit), thank-you.

The rules are in portal/domain/taking/kinds/preference.py; the timed session (timer, drafts, time-up,
extension, submission) is TimedSession and the personal info WorkerDetailsStep. The choice and
the answer are kept in the server draft and in local storage under '{testId}-preference-answer'.
The image order is drawn once per participant and test from their key (the same on every load)
and the server stores its own copy with the review.

The choice and the reason are saved truthfully (docs/decisions.md, 'Saving answers truthfully'):
each change gets sequence numbers and stays pending in the browser until a later event confirms
it; one the state lost is applied again (`_retry_pending`), and Continue / Next take the browser's
pending answers before saying one is required. A choice is stamped before its reason, and a pending
reason names the concept it was typed for: a reason is never applied to another concept.
"""

from __future__ import annotations

import time
from typing import Any, ClassVar

import reflex as rx

from portal.domain.taking import kinds
from portal.domain.taking.kinds import preference as rules
from portal.domain.taking.kinds.base import order_seed
from portal.domain.taking.survey_answers import MAX_TEXT_LENGTH, paste_metadata_ok, word_count
from portal.services.taking.definitions import TestDefinition
from portal.states.browser import run_script
from portal.states.taking.timed_session import END, THANK_YOU, TimedSession
from portal.states.taking.worker_details_step import WorkerDetailsStep


def _focus_later(element_id: str) -> Any:
    """Focus an element of the page once the closing dialog has let go of the focus (the dialog's own return of
    the focus to what opened it is turned off: on_close_auto_focus)."""
    return run_script(f"requestAnimationFrame(() => document.getElementById({element_id!r})?.focus())")


WELCOME, CHOOSE, ANSWER = "welcome", "choose", "answer"
STEP_CHOOSE, STEP_ANSWER = "step:choose", "step:answer"  # the seconds on each step (signals)
CHOICE, REASON = rules.CHOICE, rules.REASON


class PreferenceState(WorkerDetailsStep, TimedSession, rx.State):
    VIEW: ClassVar[str] = kinds.PREFERENCE_VIEW
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
        chosen = rules.kept_value(answers.get(CHOICE))  # the browser's copy keeps pending ones as objects
        chosen = chosen if isinstance(chosen, str) and chosen in self._concept_keys() else ""
        text = rules.kept_value(answers.get(REASON))
        typed_for = answers[REASON].get("concept", chosen) if isinstance(answers.get(REASON), dict) else chosen
        self._answers = {
            CHOICE: chosen,
            REASON: text[: MAX_TEXT_LENGTH + 1] if isinstance(text, str) and typed_for == chosen else "",
        }
        if paste_metadata_ok(answers.get("pasteMetadata")):
            self._answers["pasteMetadata"] = answers["pasteMetadata"]
        step = position.get("step")
        self.phase = step if step in (ANSWER, END) and self._answers[CHOICE] else CHOOSE
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
        self._since = time.time()  # the confirm step's time is no step's

    def _measure_parts(self, definition: TestDefinition) -> dict[str, str]:
        return {REASON: REASON}

    def _show_answer(self, definition: TestDefinition) -> None:
        self.selected = str(self._answers.get(CHOICE) or "")
        self.answer_text = str(self._answers.get(REASON) or "")
        self.word_count = word_count(self.answer_text)
        chosen = next((c for c in self.concepts if c["key"] == self.selected), None)
        self.follow_up = rules.follow_up(definition.content, chosen["letter"]) if chosen else ""

    async def _paste(self, data: dict[str, Any]) -> list:
        length, at = data.get("length"), data.get("at")
        if (
            self.phase != ANSWER
            or not isinstance(length, int)
            or isinstance(length, bool)
            or not 0 < length <= MAX_TEXT_LENGTH
        ):
            return []
        stamp = at if isinstance(at, str) and len(at) <= 40 else ""
        self._answers = {
            **self._answers,
            "pasteMetadata": {"wasPasted": True, "pasteTimestamp": stamp, "pastedLength": length},
        }
        return await self._save()

    def _concept_keys(self) -> set[str]:
        return {c["key"] for c in self.concepts}

    # --- saving truthfully: sequence numbers, pending answers, retries ---------------------------
    def _pending_answer(self, key: str) -> dict[str, Any]:
        """The browser keeps a pending choice as {"value"} and a reason as {"value", "concept"}: the
        concept it was typed for."""
        if key not in (CHOICE, REASON):
            return super()._pending_answer(key)
        value = self._answers[key]
        return {"value": value, "concept": self._answers.get(CHOICE, "")} if key == REASON else {"value": value}

    def _set_choice(self, key: str, seq: int | None = None) -> dict[str, int]:
        """Choose `key` (`seq`: a retried change's number); a new concept clears the typed answer. The
        changed answers' numbers: the choice's before the reason's, so a reason for the old concept is
        older than the clearing and never applied over it."""
        if key == self._answers.get(CHOICE):
            return self._stamp([CHOICE], seq) if seq is not None and seq > self._seqs.get(CHOICE, 0) else {}
        self._answers = {CHOICE: key, REASON: ""}
        return self._stamp([CHOICE, REASON], seq)

    def _set_reason(self, text: str, seq: int | None = None) -> dict[str, int]:
        """The reason for the chosen concept (`seq`: a retried change's number). A new change stamps the
        choice too: the choice it was typed for stands as of it, so an older pending choice (one the
        state lost before the page showed the state's) is superseded, never applied over this reason."""
        self._answers = {**self._answers, REASON: text}
        return self._stamp([CHOICE, REASON] if seq is None else [REASON], seq)

    async def _retry_pending(self, key: str, answer: dict[str, Any], seq: int) -> list:
        """A pending choice or reason the state lacks (its write was refused), applied again with its
        own number. Refused: a concept not in the test, a malformed or over-long reason, a reason typed
        for another concept than the chosen one, a choice older than the reason's last change."""
        if key == CHOICE:
            chosen = rules.pending_choice(answer, self._concept_keys())
            if chosen is None or (chosen != self._answers.get(CHOICE) and seq <= self._seqs.get(REASON, 0)):
                return []
            changed = self._set_choice(chosen, seq)
        elif key == REASON:
            text = rules.pending_reason(answer, str(self._answers.get(CHOICE) or ""))
            if text is None:
                return []
            changed = self._set_reason(text, seq)
        else:
            return await super()._retry_pending(key, answer, seq)
        self._show_answer(await self._fresh_definition())
        return await self._save(changed)

    def _lacks(self, shown: Any, *, reason: bool) -> bool:
        """The state lacks what the page shows: no choice, another choice than the page's (`shown`), or
        (with `reason`) no reason: the browser may hold it pending, never kept by the server."""
        chosen = self._answers.get(CHOICE) or ""
        if not chosen or (isinstance(shown, str) and shown and shown != chosen):
            return True
        return reason and rules.answer_message(self._answers.get(REASON), self.is_limited) == rules.REQUIRED

    # --- the steps -----------------------------------------------------------------------------
    @rx.event
    async def start_test(self):
        """The welcome page's button: the server session and its deadline begin (or resume)."""
        if self.phase not in (WELCOME, CHOOSE) or self.test_id <= 0:
            return
        return await self._start()

    async def _choose(self, key: Any) -> list:
        if self.phase != CHOOSE or not isinstance(key, str) or key not in self._concept_keys():
            return []
        changed = self._set_choice(key)
        if changed:
            self.epoch += 1  # the text box of the new choice starts empty
        self.choose_error = ""
        self._show_answer(await self._fresh_definition())
        return await self._save(changed)

    @rx.event
    async def choose(self, key: str):
        return await self._choose(key)

    @rx.event
    async def to_answer(self, shown: str = ""):
        """Continue from the concepts: only with one chosen. When the state lacks the page's choice
        (`shown`), the browser's pending answers are taken first (to_answer_with)."""
        if self.phase != CHOOSE:
            return
        ask = self._ask_browser(type(self).to_answer_with) if self._lacks(shown, reason=False) else None
        return ask or await self._to_answer()

    @rx.event
    async def to_answer_with(self, pending: str):
        """Continue with the browser's pending answers (JSON): those newer than the state's are applied first."""
        if self.phase != CHOOSE:
            return
        events = await self._take_pending(pending)
        return [*events, *(await self._to_answer() if self.phase == CHOOSE else [])]

    async def _to_answer(self) -> list:
        if not self._answers.get(CHOICE):
            self.choose_error = rules.NOT_AN_OPTION
            return []
        self._spent(STEP_CHOOSE)
        self.phase = ANSWER
        self.answer_error = ""
        events = await self._save()
        return [self._url_script(), run_script("window.scrollTo(0, 0)"), *events]

    @rx.event
    async def back_to_choose(self):
        if self.phase != ANSWER:
            return
        self._spent(STEP_ANSWER)
        self.phase = CHOOSE
        events = await self._save()
        return [self._url_script(), *events]

    @rx.event
    async def set_answer_text(self, concept: str, text: str, epoch: Any = None, measured: Any = None):
        """The typed answer, named with the concept and the choice (epoch) it was typed for: a debounced
        edit that arrives after the participant went back and chose again, another concept or the same
        one anew (which cleared the answer), is dropped, not given to the new choice."""
        await self._measured(measured)  # the browser's typing and leaving measures, sent along
        if self.phase != ANSWER or not isinstance(text, str) or concept != self._answers.get(CHOICE):
            return
        if epoch is not None and epoch != self.epoch:
            return
        text = text[: MAX_TEXT_LENGTH + 1]
        if text == self._answers.get(REASON):
            # unchanged (a blur after the debounced edit): nothing to save; the reply tells the browser's
            # copy that the server holds what was typed
            return self._local_scripts()
        changed = self._set_reason(text)
        self.answer_text = text
        self.word_count = word_count(self.answer_text)
        if self.answer_error:
            self.answer_error = rules.answer_message(self.answer_text, self.is_limited) or ""
        return await self._save(changed)

    @rx.event
    async def to_confirm(self, shown: str = ""):
        """Next from the answer: only when it passes its rule (the same one the server applies). When
        the state lacks the reason (or the page's choice, `shown`), the browser's pending answers are
        taken first (to_confirm_with) rather than saying 'Answer is required.'."""
        if self.phase != ANSWER:
            return
        ask = self._ask_browser(type(self).to_confirm_with) if self._lacks(shown, reason=True) else None
        return ask or await self._to_confirm()

    @rx.event
    async def to_confirm_with(self, pending: str):
        """Next with the browser's pending answers (JSON): those newer than the state's are applied first."""
        if self.phase != ANSWER:
            return
        events = await self._take_pending(pending)
        return [*events, *(await self._to_confirm() if self.phase == ANSWER else [])]

    async def _to_confirm(self) -> list:
        message = rules.answer_message(self._answers.get(REASON), self.is_limited)
        self.answer_error = message or ""
        if message:
            return []
        self._spent(STEP_ANSWER)
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
        """Closed without choosing (Close, Escape): focus goes back to the concept last viewed."""
        was_open, self.detail_open = self.detail_open, False
        return _focus_later(f"concept-open-{int(self.detail_index)}") if was_open else None

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
        events = await self._choose(self.concepts[self.detail_index]["key"])
        # Focus stays on the chosen concept (issue 40), not on the concept the view was opened from.
        return [*events, _focus_later(f"concept-{int(self.detail_index)}")]

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
