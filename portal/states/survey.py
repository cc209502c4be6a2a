"""The survey test on /test/{id}/rate: welcome, questions, submission, thank-you, and the timer.

Rules come from portal/domain (survey_answers, survey_branching, survey_view, test_access); the
server work from portal/services/survey_taking (the participant's own review session, found from
the session cookie). Nothing is lost: every answer change is saved in the server draft and in the
browser's local storage under '{testId}-survey-answers' (window.portalSurvey in assets/portal.js
also writes each keystroke there, and tells the other tabs). The countdown is drawn in the browser
from the server deadline; the browser reports its thresholds through one hidden bridge input and
the server checks them against its own clock.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections.abc import Callable
from datetime import UTC
from typing import Any

import reflex as rx

from portal import db
from portal.domain import survey_branching as branching
from portal.domain import survey_view as view
from portal.domain import geography, test_access, worker_details
from portal.domain.invites import rating_path
from portal.domain.test_access import respondent_key
from portal.domain.survey_answers import (
    ANSWER_FIELDS,
    LIMITABLE_TEXT,
    MAX_OTHER_LENGTH,
    MAX_TEXT_LENGTH,
    SINGLE_CHOICE,
    SUMMARY,
    TEXT,
    clean_answer,
    default_answer,
    is_empty,
    parse_number,
    validate_answer,
)
from portal.services import draft_writer, survey_taking, workers
from portal.services.errors import ServiceError
from portal.services.review_sessions import (
    GRACE_SECONDS,
    AccessDenied,
    AlreadyReviewedError,
    AnswersError,
    NoSessionError,
    SessionExpiredError,
)
from portal.services.survey_definitions import SurveyDefinition, cached_survey
from portal.services.survey_taking import SignedOutError
from portal.states.auth import session_token, sign_in_url_for
from portal.states.browser import toast
from portal.states.tab_owner import TabOwned

log = logging.getLogger(__name__)

SUBMIT_FAILED = "An error occurred while submitting your response. Please try again."
EXTENDED = "Your time has been extended by 10 minutes."
MAX_BRIDGE_LENGTH = 250_000  # a sync report carries the other tab's answers
CLOCK_SKEW_MS = 2_000
_BROWSER_ID = re.compile(r"^[0-9a-f]{32}$")
_PROJECT = re.compile(r"^[A-Za-z0-9_.-]{1,100}$")


def _ms(value: Any) -> int:
    return int(value.timestamp() * 1000)


def _latest_draft(row: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The session's newest draft: one still queued in this process, else the stored one."""
    queued = draft_writer.writer.pending(row.id)
    return (queued.answers, queued.position) if queued else (row.draft_answers, row.draft_position)


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


class SurveyState(TabOwned, rx.State):
    """One participant's survey run. Answers are keyed by question key (the server draft's format)."""

    test_id: int = 0
    # loading | welcome | questions | end | thank-you | reviewed | expired
    phase: str = "loading"
    title: str = ""
    description: str = ""
    start_label: str = view.START_LABEL
    thank_title: str = ""
    thank_description: str = ""
    reward_label: str = ""
    questions: list[dict[str, Any]] = []
    index: int = 0
    errors: dict[str, str] = {}
    # What the current question shows, refreshed after every change.
    is_last: bool = False
    can_go_back: bool = False
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
    # Bumped when answers arrive from elsewhere (another tab, the server draft): text boxes remount.
    epoch: int = 0
    # The timer, drawn by the browser.
    deadline_ms: int = 0
    clock_ms: int = 0
    session_seconds: int = 3600
    extensions: int = 0
    timeout_open: bool = False
    submitting: bool = False
    # A public respondent's personal info (no account, on a test with public qualifications).
    thank_action: str = worker_details.BACK_TO_HOMEPAGE
    personal_fields: list[str] = []
    details: dict[str, str] = {}
    detail_errors: dict[str, str] = {}
    different_payment: bool = False
    lookup_pending: bool = False

    # Answers by question key and the navigation history: kept on the server (the page shows the
    # display values below; local storage gets them in _local_script), never sent in a delta.
    _answers: dict[str, dict[str, Any]] = {}
    _history: list[int] = []
    _session_id: int = 0
    _respondent: str = ""
    # Whose session this tab works on ('account:<id>' or the public respondent's key).
    _key: str = ""
    _rev: int = 0
    _seed: str = ""

    # --- helpers -------------------------------------------------------------------------------
    def _definition(self) -> SurveyDefinition | None:
        return cached_survey(self.test_id)

    async def _fresh_definition(self) -> SurveyDefinition:
        found = self._definition()
        if found is None:
            found = await db.run(survey_taking.definition, test_id=self.test_id)
        return found

    def _me(self) -> dict[str, Any]:
        """Who asks: the session cookie, and the public respondent key when there is no account."""
        return {"token": session_token(self), "test_id": self.test_id, "respondent": self._respondent or None}

    def _show(self, definition: SurveyDefinition, who: survey_taking.Who) -> None:
        self._key = respondent_key(who.account_id) if who.account_id is not None else str(who.respondent)
        self._seed = f"{who.account_id or who.respondent}:{definition.test_id}"
        self.personal_fields = list(survey_taking.personal_fields(definition, who))
        self.thank_action = worker_details.thank_you_action(panel=definition.panel,
                                                            qualification_based=definition.qualification_based)
        self.questions = view.survey_views(definition.questions, self._seed)
        welcome, thanks = definition.welcome, definition.thank_you
        self.title = str(welcome.get("title") or definition.name)
        self.description = str(welcome.get("description") or "")
        self.start_label = str(welcome.get("buttonLabel") or view.START_LABEL)
        self.thank_title = str(thanks.get("title") or "Thank you!")
        self.thank_description = str(thanks.get("description") or "Your answers have been submitted.")
        self.session_seconds = definition.session_seconds

    def _timer(self, row: Any) -> None:
        self._session_id = int(row.id)
        self.deadline_ms = _ms(row.deadline_at if row.deadline_at.tzinfo else row.deadline_at.replace(tzinfo=UTC))
        self.clock_ms = int(time.time() * 1000)
        self.extensions = int(row.extensions)

    def _restore(self, answers: Any, position: Any, definition: SurveyDefinition) -> None:
        keys = {q.get("key") for q in definition.questions}
        answers = answers if isinstance(answers, dict) else {}
        self._answers = {k: clean_answer(v) for k, v in answers.items() if k in keys and isinstance(v, dict)}
        position = position if isinstance(position, dict) else {}
        total = len(definition.questions)
        index = position.get("index")
        self.index = index if isinstance(index, int) and not isinstance(index, bool) and 0 <= index < total else 0
        history = position.get("navigationHistory")
        valid = isinstance(history, list) and all(isinstance(i, int) and 0 <= i < total for i in history)
        self._history = list(history) if valid and history else [self.index]
        rev = position.get("rev")
        self._rev = rev if isinstance(rev, int) and not isinstance(rev, bool) else 0
        details = position.get("details")
        if self.personal_fields and isinstance(details, dict):
            self.details = {k: v for k, v in details.items() if k in worker_details.FIELDS and isinstance(v, str)}
            self.different_payment = position.get("differentPayment") is True
        self.phase = view.END if position.get("step") == view.END and self.personal_fields else view.QUESTIONS
        self.epoch += 1

    def _current_question(self, definition: SurveyDefinition) -> dict[str, Any]:
        return definition.questions[self.index] if 0 <= self.index < len(definition.questions) else {}

    def _answer_of(self, question: dict[str, Any]) -> dict[str, Any]:
        return self._answers.get(question.get("key")) or default_answer(question)

    def _refresh(self, definition: SurveyDefinition) -> None:
        """The current question's display values (what the inputs show); only changed ones are sent."""
        question = self._current_question(definition)
        shown = self.questions[self.index] if 0 <= self.index < len(self.questions) else {}
        values = view.display_values(question, self._answer_of(question), shown.get("options", []))
        target = branching.next_index(definition.questions, self.index, self._answers, definition.conditional) if question else None
        values.update(is_last=target == branching.END, can_go_back=len(self._history) > 1)
        for name, value in values.items():
            if getattr(self, name) != value:
                setattr(self, name, value)

    def _position(self) -> dict[str, Any]:
        position = {"step": self.phase, "index": self.index, "navigationHistory": self._history, "rev": self._rev}
        if self.personal_fields:
            position.update(details=self.details, differentPayment=self.different_payment)
        return position

    def _local_script(self) -> rx.event.EventSpec:
        payload = {**self._position(), "answers": self._answers, "sessionId": self._session_id, "dirty": False}
        return rx.call_script(f"window.portalSurvey.save({self.test_id}, {_json(payload)})")

    def _url_script(self) -> rx.event.EventSpec:
        path = f"{rating_path(self.test_id)}/{view.QUESTIONS}/{self.index}" if self.phase == view.QUESTIONS else (
            f"{rating_path(self.test_id)}/{self.phase}" if self.phase in (view.END, view.THANK_YOU) else rating_path(self.test_id))
        return rx.call_script(
            f"window.history.replaceState(window.history.state, '', {_json(path)} + window.location.search)"
        )

    async def _save(self) -> list:
        """Keep the draft: queued for the server (draft_writer, written within half a second) and
        in local storage at once. After the deadline the time is up instead."""
        if self.deadline_ms and time.time() * 1000 > self.deadline_ms + GRACE_SECONDS * 1000:
            return await self._time_up()
        self._rev += 1
        self._queue()
        return [self._local_script()]

    def _queue(self) -> None:
        if self._session_id:
            draft_writer.writer.put(draft_writer.Draft(self._session_id, self._key, dict(self._answers), self._position()))

    def _left(self, error: ServiceError) -> list:
        """The session is gone (signed out, or cleared elsewhere): reload the test's page."""
        if isinstance(error, SignedOutError):
            return [toast("error", error.message), rx.redirect(sign_in_url_for(self))]
        return [rx.redirect(rating_path(self.test_id), replace=True)]

    async def _time_up(self) -> list:
        """The deadline this tab knows has passed: unless the server's session runs on (extended in
        another tab), it is cleared, local data removed, and the page reloads to its expired state."""
        try:
            row = await db.run(survey_taking.draft, **self._me())
            if row is not None:
                self._timer(row)
                return []
            draft_writer.writer.discard(self._session_id)
            await db.run(survey_taking.clear, **self._me())
        except ServiceError:
            pass
        self.phase = "expired"
        self.timeout_open = False
        return [
            toast("error", test_access.TIME_UP),
            rx.call_script(f"window.portalSurvey.clear({self.test_id})"),
            rx.redirect(rating_path(self.test_id), replace=True),
        ]

    # --- entering ------------------------------------------------------------------------------
    @rx.event
    async def enter(self, test_id: int):
        """Called by the rating page once access is ok and the view is the survey (signed in)."""
        if not isinstance(test_id, int) or isinstance(test_id, bool) or test_id <= 0:
            return
        self._respondent = ""
        return await self._enter(test_id)

    @rx.event
    async def enter_public(self, who: Any):
        """The survey for a visitor without an account: the browser's answer to window.portalSurvey.who(),
        {"testId", "id" (its random respondent id), "project" (respondent_project_id or '')}."""
        try:
            data = json.loads(who) if isinstance(who, str) and len(who) < 1000 else None
        except ValueError:
            data = None
        if not isinstance(data, dict):
            return
        test_id, browser_id, project = data.get("testId"), data.get("id"), data.get("project") or ""
        if not isinstance(test_id, int) or isinstance(test_id, bool) or test_id <= 0:
            return
        if not isinstance(browser_id, str) or not _BROWSER_ID.match(browser_id) or not isinstance(project, str):
            return
        self._respondent = f"respondent:{project}:{browser_id}" if _PROJECT.match(project) else f"public:{browser_id}"
        return await self._enter(test_id)

    async def _enter(self, test_id: int) -> Any:
        self.test_id = test_id
        self.phase = "loading"
        self.errors, self.detail_errors = {}, {}
        self.submitting = False
        self.timeout_open = False
        try:
            entry = await db.run(survey_taking.enter, **self._me())
        except SignedOutError:
            return rx.redirect(sign_in_url_for(self), replace=True)
        except ServiceError as error:
            return toast("error", error.message)
        self._show(entry.definition, entry.who)
        if entry.reviewed:
            self.phase = "reviewed"
            return None
        if entry.active is None:
            self._answers, self._history, self.index = {}, [], 0
            self.details = worker_details.empty_details()
            self.phase = view.WELCOME
            return [self._url_script()]
        self._timer(entry.active)
        self._restore(*_latest_draft(entry.active), entry.definition)
        self._refresh(entry.definition)
        return [
            self._url_script(),
            rx.call_script(f"window.portalSurvey.read({self.test_id})", callback=SurveyState.restore_local),
        ]

    @rx.event
    async def restore_local(self, stored: Any):
        """The browser's copy, when it is newer than the server draft of the same session (a keystroke
        not yet sent when the tab closed or the backend restarted): adopt it and save it."""
        await self._adopt(stored, queue=True)

    async def _adopt(self, stored: Any, *, queue: bool) -> None:
        """Take a local copy of the same review session when it is newer (or holds unsent keystrokes)."""
        if not isinstance(stored, str) or len(stored) > MAX_BRIDGE_LENGTH or self.phase not in (view.QUESTIONS, view.END):
            return
        try:
            local = json.loads(stored)
        except ValueError:
            return
        if not isinstance(local, dict) or local.get("sessionId") != self._session_id:
            return
        rev = local.get("rev")
        if not (local.get("dirty") or (isinstance(rev, int) and rev > self._rev)):
            return
        definition = await self._fresh_definition()
        self._restore(local.get("answers"), local, definition)
        self._refresh(definition)
        if queue:
            self._queue()  # the server's draft catches up; local storage already holds it

    @rx.event
    async def start_survey(self):
        """'Start survey': the server session and its deadline begin (or the running one resumes)."""
        if self.phase not in (view.WELCOME, view.QUESTIONS) or self.test_id <= 0:
            return
        try:
            row = await db.run(survey_taking.start, **self._me())
        except AlreadyReviewedError:
            self.phase = "reviewed"
            return
        except SignedOutError as error:
            return self._left(error)
        except ServiceError as error:
            return toast("error", error.message)
        definition = await self._fresh_definition()
        self._timer(row)
        self._restore(*_latest_draft(row), definition)
        self._refresh(definition)
        events = await self._save()
        return [toast("info", test_access.start_message(self.session_seconds)), self._url_script(),
                rx.call_script("window.scrollTo(0, 0)"), *events]

    # --- answering -----------------------------------------------------------------------------
    async def _apply(self, key: Any, answer: Any) -> list:
        if self.phase != view.QUESTIONS or not isinstance(key, str):
            return []
        definition = await self._fresh_definition()
        positions = {q.get("key"): i for i, q in enumerate(definition.questions)}
        if key not in positions or not isinstance(answer, dict) or not set(answer) <= ANSWER_FIELDS:
            return [toast("error", "This answer could not be read. Please try again.")]
        index = positions[key]
        question = definition.questions[index]
        answer = clean_answer({**answer, "type": question.get("type")})
        if len(_json(answer)) > MAX_TEXT_LENGTH + 2_000:
            return [toast("error", "This answer is too long.")]
        old = self._answers.get(key)
        if old == answer:
            return []  # e.g. the text box left without a change: nothing to save
        answers = {**self._answers, key: answer}
        answers, history = branching.after_branch_change(definition.questions, index, old, answer, answers, self._history)
        if history != self._history or answers != {**self._answers, key: answer}:
            self.epoch += 1
        self._answers, self._history = answers, history
        message = validate_answer(question, answer)
        live = question.get("type") not in TEXT or key in self.errors
        errors = {k: v for k, v in self.errors.items() if k != key}
        if message and live and not is_empty(question, answer):
            errors[key] = message
        elif message and key in self.errors:
            errors[key] = message
        self.errors = errors
        self._refresh(definition)
        return await self._save()

    def _current_key_and_answer(self) -> tuple[str, dict[str, Any], dict[str, Any]]:
        definition = self._definition()
        question = definition.questions[self.index] if definition and 0 <= self.index < len(definition.questions) else {}
        return str(question.get("key") or ""), question, dict(self._answer_of(question)) if question else {}

    async def _question(self, key: Any) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """The question named by an event and a copy of its answer (None for an unknown key).

        Every answer event names its question: a debounced text event may arrive after Continue."""
        definition = await self._fresh_definition()
        if not isinstance(key, str):
            return None
        question = next((q for q in definition.questions if q.get("key") == key), None)
        return None if question is None else (question, dict(self._answer_of(question)))

    @rx.event
    async def set_answer(self, key: str, answer: dict[str, Any]):
        """One answer object (what the other handlers build); validated like every answer."""
        return await self._apply(key, answer)

    async def _edit(self, key: Any, change: Callable[[dict[str, Any], dict[str, Any]], bool]) -> list:
        """Change a copy of the named question's answer (`change` returns False to drop the event), then apply it."""
        found = await self._question(key)
        if found is None:
            return []
        question, answer = found
        if change(question, answer) is False:
            return []
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
                current = answer.get("value") if isinstance(answer.get("value"), list) else []
                answer["value"] = view.toggle(current, value)
            return isinstance(value, str)

        return await self._edit(key, change)

    @rx.event
    async def set_text(self, key: str, text: str):
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
            current = answer.get("value") if isinstance(answer.get("value"), list) else []
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
            current = answer.get("value") if isinstance(answer.get("value"), dict) else {}
            answer["value"] = view.matrix_pick(current, statement, column, bool(question.get("allowMultipleAnswers")))
            return True

        return await self._edit(key, change)

    # --- moving --------------------------------------------------------------------------------
    @rx.event
    async def go_next(self):
        if self.phase != view.QUESTIONS:
            return
        definition = await self._fresh_definition()
        key, question, answer = self._current_key_and_answer()
        message = validate_answer(question, self._answers.get(key))
        if message:
            self.errors = {**self.errors, key: message}
            return
        target, history = branching.go_forward(definition.questions, self._history, self.index, self._answers,
                                               definition.conditional)
        if target is None:
            self.errors = {**self.errors, key: branching.NO_ROUTE}
            return
        if target == branching.END:
            self._history = history
            return await self._submit(definition)
        self._history, self.index = history, int(target)
        self._refresh(definition)
        events = await self._save()
        return [self._url_script(), rx.call_script("window.scrollTo(0, 0)"), *events]

    @rx.event
    async def go_back(self):
        if self.phase != view.QUESTIONS:
            return
        definition = await self._fresh_definition()
        previous, history = branching.go_back(self._history)
        if previous is None:
            return
        self.index, self._history = previous, history
        self._refresh(definition)
        events = await self._save()
        return [self._url_script(), rx.call_script("window.scrollTo(0, 0)"), *events]

    @rx.event
    async def submit(self):
        """Submit on the last question: the personal-info step for a public respondent, else the server."""
        if self.phase != view.QUESTIONS or self.submitting:
            return
        definition = await self._fresh_definition()
        key, question, answer = self._current_key_and_answer()
        message = validate_answer(question, self._answers.get(key))
        if message:
            self.errors = {**self.errors, key: message}
            return
        self._history = branching.history_add(branching.history_truncate(self._history, self.index), self.index)
        self.submitting = True
        yield
        events = await self._submit(definition)
        self.submitting = False
        yield events

    async def _submit(self, definition: SurveyDefinition) -> list:
        """After the last question: the personal-info step when it has fields, else straight to the server."""
        errors = branching.validate_submission(definition.questions, self._answers, definition.conditional)
        if errors:
            self.errors = errors
            return [toast("error", SUMMARY)]
        if self.personal_fields and self.phase == view.QUESTIONS:
            self.phase = view.END
            if not self.details:
                self.details = worker_details.empty_details()
            events = await self._save()
            return [self._url_script(), rx.call_script("window.scrollTo(0, 0)"), *events]
        return await self._send()

    async def _send(self) -> list:
        draft_writer.writer.discard(self._session_id)  # the submission carries the answers itself
        try:
            result = await db.run(
                survey_taking.submit, **self._me(), answers=self._answers, worker_data=self.details,
                different_payment_email=self.different_payment, submission_id=f"session-{self._session_id}",
            )
        except AlreadyReviewedError:
            self.phase = "reviewed"
            return [rx.call_script(f"window.portalSurvey.clear({self.test_id})")]
        except AnswersError as error:
            self.errors = {k.removeprefix("answers."): v for k, v in (error.errors or {}).items()}
            self.phase = view.QUESTIONS  # back to the questions, where the messages are
            self._refresh(await self._fresh_definition())
            return [toast("error", SUMMARY)]
        except SessionExpiredError:
            return await self._time_up()
        except (NoSessionError, SignedOutError) as error:
            return self._left(error)
        except AccessDenied as error:  # not allowed now (invite, quota, status ...): its message
            return [toast("error", error.message)]
        except ServiceError as error:
            found = {k.removeprefix("workerData."): v for k, v in (error.errors or {}).items() if k.startswith("workerData.")}
            if found:
                self.detail_errors = found
                return [toast("error", error.message)]
            return [toast("error", SUBMIT_FAILED)]
        except Exception:  # noqa: BLE001 - the participant gets the spec's message, the log gets the trace
            log.exception("survey submission failed for test %s", self.test_id)
            return [toast("error", SUBMIT_FAILED)]
        self.phase = view.THANK_YOU
        self.reward_label = f"${result.amount_cents / 100:,.2f}"
        self.timeout_open = False
        self.errors, self.detail_errors = {}, {}
        return [
            rx.call_script(f"window.portalSurvey.completed({self.test_id})"),
            self._url_script(),
            rx.call_script("window.scrollTo(0, 0)"),
        ]

    # --- the end step: personal info (public respondents) ---------------------------------------
    @rx.event
    async def set_detail(self, field: str, value: str):
        if self.phase != view.END or field not in self.personal_fields or not isinstance(value, str):
            return
        self.details = {**self.details, field: value[:300]}
        if field in self.detail_errors:
            message = worker_details.validate(self.details, [field], different_payment_email=self.different_payment).get(field)
            self.detail_errors = {k: v for k, v in self.detail_errors.items() if k != field} | (
                {field: message} if message else {})
        return await self._save()

    @rx.event
    async def set_different_payment(self, checked: bool):
        if self.phase != view.END:
            return
        self.different_payment = checked is True
        return await self._save()

    @rx.event
    async def lookup_worker(self, worker_id: str):
        """The worker ID typed (500 ms after the last key): fields wait while their details are looked up."""
        if self.phase != view.END or "workerId" not in self.personal_fields or not isinstance(worker_id, str):
            return
        self.details = {**self.details, "workerId": worker_id[:100]}
        self.lookup_pending = True
        yield
        found = await db.run(workers.lookup, worker_id=worker_id.strip())
        await asyncio.sleep(worker_details.LOOKUP_APPLY_DELAY_MS / 1000)
        self.details = worker_details.lookup_result(found, self.details)
        self.lookup_pending = False
        self.epoch += 1
        yield await self._save()

    @rx.event
    async def back_to_questions(self):
        if self.phase != view.END:
            return
        self.phase = view.QUESTIONS
        self._refresh(await self._fresh_definition())
        events = await self._save()
        return [self._url_script(), *events]

    @rx.event
    async def submit_details(self):
        if self.phase != view.END:
            return
        errors = worker_details.validate(self.details, self.personal_fields, different_payment_email=self.different_payment)
        self.detail_errors = errors
        if errors:
            yield toast("error", survey_taking.MSG_DETAILS)
            return
        self.submitting = True
        yield
        events = await self._send()
        self.submitting = False
        yield events

    # --- the timer and the browser's reports ---------------------------------------------------
    @rx.event
    async def extend_time(self):
        try:
            row = await db.run(survey_taking.extend, **self._me())
        except SessionExpiredError:
            return await self._time_up()
        except ServiceError as error:
            self.timeout_open = False
            return toast("error", error.message)
        self._timer(row)
        self.timeout_open = False
        return toast("success", EXTENDED)

    @rx.event
    def close_timeout(self):
        self.timeout_open = False

    @rx.event
    def noop(self):
        """Changes nothing: the baseline event of bench/survey_load.py."""

    @rx.event
    async def bridge(self, message: str):
        """A report from window.portalSurvey: {"kind": mid | warn | expired | check | sync | paste, ...}."""
        if not isinstance(message, str) or len(message) > MAX_BRIDGE_LENGTH:
            return
        try:
            data = json.loads(message)
        except ValueError:
            return
        if not isinstance(data, dict) or data.get("testId") != self.test_id:
            return
        kind = data.get("kind")
        in_progress = self.phase in (view.QUESTIONS, view.END)
        remaining_ms = self.deadline_ms - int(time.time() * 1000)
        if kind == "mid" and in_progress and 0 < remaining_ms <= test_access.MID_WARNING_SECONDS * 1000 + CLOCK_SKEW_MS:
            return toast("warning", test_access.MID_WARNING)
        if kind == "warn" and in_progress:
            self.timeout_open = test_access.shows_timeout_modal(max(0, remaining_ms // 1000), self.extensions)
            return
        if kind == "expired" and in_progress and remaining_ms <= CLOCK_SKEW_MS:
            return await self._time_up()
        if kind == "check" and in_progress:
            return await self._check()
        if kind == "sync" and in_progress:
            return await self._sync(data.get("value"))
        if kind == "paste" and in_progress:
            return await self._paste(data)

    async def _check(self) -> list:
        """Back on the tab, and every 5 minutes: is the review still in progress?"""
        try:
            pending = await db.run(survey_taking.check, **self._me())
        except SignedOutError as error:
            return self._left(error)
        except ServiceError:
            return []
        if pending.existing_review:
            self.phase = "reviewed"
            return [rx.call_script(f"window.portalSurvey.clear({self.test_id})")]
        if not pending.success:
            return [rx.redirect(rating_path(self.test_id), replace=True)]
        return []

    async def _sync(self, stored: Any) -> list:
        """Another tab of this test saved: its confirmed copy (local storage) is taken when newer.
        Not queued again: that tab queued it (queuing here would bounce between the tabs)."""
        await self._adopt(stored, queue=False)
        return [self._url_script()] if self.phase in (view.QUESTIONS, view.END) else []

    async def _paste(self, data: dict[str, Any]) -> list:
        key, length, at = data.get("key"), data.get("length"), data.get("at")
        if not isinstance(length, int) or isinstance(length, bool) or not 0 < length <= MAX_TEXT_LENGTH:
            return []
        stamp = at if isinstance(at, str) and len(at) <= 40 else ""

        def change(question: dict[str, Any], answer: dict[str, Any]) -> bool:
            answer["pasteMetadata"] = {"wasPasted": True, "pasteTimestamp": stamp, "pastedLength": length}
            return question.get("type") in TEXT

        return await self._edit(key, change)

    # --- shown values --------------------------------------------------------------------------
    @rx.var(cache=True)
    def current(self) -> dict[str, Any]:
        return self.questions[self.index] if 0 <= self.index < len(self.questions) else {}

    @rx.var(cache=True)
    def progress(self) -> str:
        return view.progress_label(self.index, len(self.questions))

    @rx.var(cache=True)
    def current_error(self) -> str:
        key = self.questions[self.index].get("key") if 0 <= self.index < len(self.questions) else None
        return self.errors.get(key, "") if key else ""

    @rx.var(cache=True)
    def other_chosen(self) -> bool:
        return self.single_value == view.OTHER_VALUE or view.OTHER_VALUE in self.multi_values

    @rx.var(cache=True)
    def state_options(self) -> list[list[str]]:
        """The states of the chosen country (the US when none is chosen)."""
        country = self.details.get("country") or geography.DEFAULT_COUNTRY
        return [[code, name] for code, name in geography.subdivisions(country)] if geography.is_country(country) else []

    @rx.var(cache=True)
    def text_key(self) -> str:
        key = self.questions[self.index].get("key") if 0 <= self.index < len(self.questions) else ""
        return f"{key}-{self.epoch}"

