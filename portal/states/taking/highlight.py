"""Highlight (landing-page) and pricing tests on /test/{id}/rate: intro, instructions, frame of mind,
the pre-check (home page first for pricing), the split view with the areas, questions block by
block, personal info, thank-you.

The rules are in portal/domain/taking/kinds/highlight.py; the timed session (timer, drafts, time-up,
extension, submission) is TimedSession, each question QuestionFlow, the end step
WorkerDetailsStep. Answers are kept in local storage under '{testId}-answers' and the place
(block, area, question) under 'highlight-areas-answers'. The reading signals (seconds on each
pre-check page and per block, the deepest scroll of each screenshot) are measured here on the
server's clock and kept with the draft, then stored with the review.
"""

from __future__ import annotations

from typing import Any, ClassVar

import reflex as rx

from portal.domain.taking import kinds
from portal.domain.taking import survey_view as view
from portal.domain.taking.kinds import highlight as rules
from portal.domain.taking.survey_answers import SUMMARY, TEXT
from portal.services.error_reporting import report_browser_error
from portal.services.taking.definitions import TestDefinition
from portal.states.browser import portal_call, run_script, toast
from portal.states.taking import local_copy
from portal.states.taking.question_flow import QuestionFlow
from portal.states.taking.timed_session import END, THANK_YOU, TimedSession
from portal.states.taking.worker_details_step import WorkerDetailsStep

INTRO, PRECHECK, QUESTIONS = "intro", "precheck", view.QUESTIONS
HOME, PAGE = "home", "page"  # the pre-check's pages: a pricing test's home page, then the page under test
FORM_CRASHED = "Something went wrong with the form."


class HighlightState(QuestionFlow, WorkerDetailsStep, TimedSession, rx.State):
    VIEW: ClassVar[str] = kinds.HIGHLIGHT_VIEW
    IN_PROGRESS: ClassVar[frozenset[str]] = frozenset({PRECHECK, QUESTIONS, END})

    title: str = ""
    has_home_page: bool = False
    page_url: str = ""
    screenshot: str = ""
    home_screenshot: str = ""
    # The instructions (welcome) modal and the frame-of-mind modal.
    instructions_title: str = ""
    instructions_body: list[str] = []
    instructions_button: str = ""
    instructions_open: bool = False
    frame_of_mind: str = ""
    frame_open: bool = False
    # The pre-check.
    stage: str = PAGE
    read_confirmed: bool = False
    # The split view: the areas (percent boxes), the current one, the wording.
    areas: list[dict[str, str]] = []
    area_count: int = 0
    current_area: int = -1
    show_highlight: bool = True
    area_label: str = ""
    block_label: str = ""
    next_label: str = rules.NEXT
    is_overall: bool = False
    crashed: bool = False

    _frame_seen: bool = False
    _place_key: str = ""
    _instructions_seen: bool = False

    # --- the timed session's hooks -------------------------------------------------------------
    def _show_kind(self, definition: TestDefinition) -> None:
        content = definition.content
        self.title = rules.intro_title(definition.product_type)
        kind = definition.kind_record
        self._place_key = kind.place_key
        self.has_home_page = kind.home_page
        self.page_url = definition.pricing_url if kind.home_page else definition.url
        self.screenshot = definition.pricing_screenshot_url if kind.home_page else definition.screenshot_url
        self.home_screenshot = definition.screenshot_url
        modal = rules.instructions(definition.panel, definition.welcome_modal)
        self.instructions_title, self.instructions_body, self.instructions_button = (
            modal["title"],
            modal["body"],
            modal["button"],
        )
        self.frame_of_mind = definition.frame_of_mind
        found = rules.areas(content)
        self.areas = [{**rules.area_box(a), "number": str(i + 1)} for i, a in enumerate(found)]
        self.area_count = len(found)
        self._show_questions(definition)
        self.crashed = False

    def _fresh(self, definition: TestDefinition) -> None:
        self.index, self.current_area = 0, -1
        self.phase = INTRO

    def _restore_kind(self, answers: dict[str, Any], position: dict[str, Any], definition: TestDefinition) -> None:
        self._keep_answers(answers, definition)
        total = len(definition.questions)
        index = position.get("index")
        self.index = index if isinstance(index, int) and not isinstance(index, bool) and 0 <= index < total else 0
        step = position.get("step")
        self.phase = QUESTIONS if step in (QUESTIONS, END) else PRECHECK
        self.stage = PAGE if position.get("stage") == PAGE or not self.has_home_page else HOME
        self.read_confirmed = position.get("confirmed") is True and self.phase == PRECHECK
        self._frame_seen = position.get("frameSeen") is True
        self._instructions_seen = position.get("instructionsSeen") is True
        self.frame_open = self.phase == PRECHECK and bool(self.frame_of_mind) and not self._frame_seen
        self.instructions_open = self.phase == QUESTIONS and not self._instructions_seen

    def _kind_position(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "stage": self.stage,
            "confirmed": self.read_confirmed,
            "frameSeen": self._frame_seen,
            "instructionsSeen": self._instructions_seen,
        }

    def _url_step(self) -> str:
        if self.phase == QUESTIONS:
            return f"{QUESTIONS}/{self.index}"
        if self.phase == PRECHECK:
            return PRECHECK
        return self.phase if self.phase in (END, THANK_YOU) else ""

    def _payload(self, definition: TestDefinition) -> dict[str, Any]:
        return rules.group(definition.content, self._answers)

    def _answer_errors(self, errors: dict[str, str], definition: TestDefinition) -> None:
        """Errors by 'answers.<block>.<index>.value': shown on their questions; the form goes back
        to the first one."""
        where = rules.places(definition.content)
        found: dict[str, str] = {}
        first = None
        for flat, (block, i, _) in enumerate(where):
            message = errors.get(f"answers.{block}.{i}.value")
            if message:
                found[str(definition.questions[flat].get("key"))] = message
                first = flat if first is None else first
        self.errors = found
        self.phase = QUESTIONS
        if first is not None:
            self.index = first
        self._refresh(definition)

    async def _save(self, changed: dict[str, int] | None = None) -> list:
        events = await TimedSession._save(self, changed)
        if self.phase in (QUESTIONS, END) and self._session_id and self.store_key:  # a local copy is kept
            place = {"step": self.phase, "index": self.index, "area": self.current_area}
            events.append(local_copy.save_place(self._place_key, self.test_id, place))
        return events

    # --- the question flow's hooks -------------------------------------------------------------
    def _nav_values(self, definition: TestDefinition) -> dict[str, Any]:
        where = rules.places(definition.content)
        if not 0 <= self.index < len(where):
            return {}
        block_key, _, area = where[self.index]
        block = next(b for b in rules.blocks(definition.content) if b.key == block_key)
        return {
            "can_go_back": self.index > 0,
            "current_area": -1 if area is None else area,
            "area_label": rules.area_label(definition.product_type, area + 1, self.area_count)
            if area is not None
            else "",
            "block_label": rules.block_label(definition.product_type, block, self.area_count),
            "is_overall": block_key == rules.POST_TEST,
            "next_label": rules.next_label(definition.content, self.index, has_end_step=bool(self.personal_fields)),
        }

    # --- reading signals -----------------------------------------------------------------------
    def _measure_parts(self, definition: TestDefinition) -> dict[str, str]:
        """A block question's free-text signals are named '<block key>.<question key>'."""
        where = rules.places(definition.content)
        return {
            str(q.get("key")): f"{where[i][0]}.{q.get('key')}"
            for i, q in enumerate(definition.questions)
            if i < len(where) and q.get("type") in TEXT
        }

    def _block_name(self, definition: TestDefinition) -> str:
        where = rules.places(definition.content)
        return f"block:{where[self.index][0]}" if 0 <= self.index < len(where) else "block:?"

    async def _report(self, kind: Any, data: dict[str, Any]) -> list:
        page = data.get("page")
        if kind == "scroll" and page in (HOME, PAGE):
            self._signals = rules.deepest_scroll(self._signals, f"scroll:{page}", data.get("percent"))
            self._queue()
        return []

    # --- intro, modals, pre-check --------------------------------------------------------------
    @rx.event
    async def start_test(self):
        """'Start test now': the server session and its deadline begin (or the running one resumes)."""
        if self.phase not in (INTRO, PRECHECK) or self.test_id <= 0:
            return
        return await self._start()

    @rx.event
    def open_instructions(self):
        if self.phase != "loading":
            self.instructions_open = True

    @rx.event
    async def close_instructions(self):
        self.instructions_open = False
        if self._in_progress() and not self._instructions_seen:
            self._instructions_seen = True
            return await self._save()

    @rx.event
    async def confirm_frame(self):
        if self.phase != PRECHECK:
            return
        self.frame_open = False
        self._frame_seen = True
        return await self._save()

    @rx.event
    async def confirm_read(self, checked: bool):
        if self.phase != PRECHECK or self.frame_open:
            return
        self.read_confirmed = checked is True
        return await self._save()

    @rx.event
    async def proceed(self):
        """'Proceed to questions' (only once the page was confirmed read): a pricing test's home page
        leads to the pricing page, the page under test to the first question."""
        if self.phase != PRECHECK or not self.read_confirmed or self.frame_open:
            return
        definition = await self._fresh_definition()
        self._spent(f"precheck:{self.stage}")
        self.read_confirmed = False
        if self.stage == HOME:
            self.stage = PAGE
            events = await self._save()
            return [self._url_script(), run_script("window.scrollTo(0, 0)"), *events]
        self.phase, self.index = QUESTIONS, 0
        self.instructions_open = not self._instructions_seen
        self._refresh(definition)
        events = await self._save()
        return [self._url_script(), run_script("window.scrollTo(0, 0)"), *self._scroll_area(), *events]

    # --- the split view ------------------------------------------------------------------------
    @rx.event
    def toggle_highlight(self):
        self.show_highlight = not self.show_highlight

    def _scroll_area(self) -> list:
        if self.current_area < 0:
            return []
        return [portal_call(f"window.portalTaking.scrollToArea({self.current_area}, {rules.SCROLL_OFFSET_PX})")]

    async def _move(self, definition: TestDefinition, index: int) -> list:
        before = self.current_area
        self._spent(self._block_name(definition))
        self.index = index
        self._refresh(definition)
        events = await self._save()
        moved = self._scroll_area() if self.current_area != before else []
        return [self._url_script(), *moved, *events]

    @rx.event
    async def go_next(self):
        """Next / 'Next Highlight' / 'Proceed' / Submit: only when the current answer passes its rules
        (QuestionFlow._ask_pending: never 'Answer is required' for an answer the page has)."""
        if self.phase != QUESTIONS or self.submitting:
            return
        ask = self._ask_pending(type(self).go_next_with)
        if ask is not None:
            yield ask
            return
        async for update in self._go_next():
            yield update

    @rx.event
    async def go_next_with(self, pending: str):
        """go_next with the browser's pending answers (JSON): those newer than the state's are applied first."""
        if self.phase != QUESTIONS or self.submitting:
            return
        yield await self._take_pending(pending)
        async for update in self._go_next():
            yield update

    async def _go_next(self):
        definition = await self._fresh_definition()
        if not self._check_current():
            return
        if self.index + 1 < len(definition.questions):
            yield await self._move(definition, self.index + 1)
            return
        self._spent(self._block_name(definition))
        errors = rules.validate(definition.content, rules.group(definition.content, self._answers))
        if errors:
            self._answer_errors(errors, definition)
            yield toast("error", SUMMARY)
            return
        if self.personal_fields:
            yield await self._to_details()
            return
        async for update in self._send_shown():
            yield update

    @rx.event
    async def go_back(self):
        """Back: the previous question; from an area's first question, the previous area's last one."""
        if self.phase != QUESTIONS or self.index <= 0:
            return
        return await self._move(await self._fresh_definition(), self.index - 1)

    def _back_from_details(self) -> None:
        self.phase = QUESTIONS

    # --- a render crash ------------------------------------------------------------------------
    @rx.event
    def form_crashed(self, error: str, info: str):
        """The form failed to render: logged, the test's local answers cleared (the server draft
        stays, so a reload resumes), and 'Something went wrong with the form.' shown."""
        report_browser_error(f"highlight form of test {self.test_id}", error, info)
        self.crashed = True
        return [self._clear_local(), toast("error", FORM_CRASHED)]
