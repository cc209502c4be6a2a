"""The timed session every kind of test runs on: entering, the server session and its deadline,
the draft (server and local storage), the timer's reports, time-up, extension and the submission.

A kind's state mixes this in (with QuestionFlow and WorkerDetailsStep when it asks questions)
and supplies the few hooks marked below: what it shows on entering, how its draft position and
answers are restored, the payload it submits and where its errors go. The server work is in
portal/services/taking/steps (the participant's own review session, found from the session cookie,
checked by the access decision of the test's kind), or, for staff previewing the test, to the
preview's services (portal/services/admin/preview.py: nothing stored): one seam, the core chosen by
`_core()` (portal/states/taking/core.py). Nothing is lost: every change is queued for
the server draft (draft_writer) and written to local storage at once (window.portalTaking in
assets/portal.js, which also keeps each keystroke and tells the other tabs). The countdown is
drawn in the browser from the server deadline; the browser reports its thresholds through one
hidden bridge input and the server checks them against its own clock.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Iterable
from datetime import UTC
from typing import Any, ClassVar, TypeGuard

import reflex as rx
from reflex_base.event import Event, EventSpec

from portal import db
from portal.domain import problem_reports as problem_rules
from portal.domain.ids import whole_number
from portal.domain.invites import rating_path
from portal.domain.taking import access as test_access
from portal.domain.taking import signals as signal_rules
from portal.domain.taking import worker_details
from portal.domain.taking.access import respondent_key
from portal.domain.taking.survey_answers import SUMMARY
from portal.services import partners, problem_reports
from portal.services.admin.preview import PreviewRun
from portal.services.errors import ServiceError
from portal.services.taking import draft_writer
from portal.services.taking import steps as test_taking
from portal.services.taking.definitions import TestDefinition, cached_definition
from portal.services.taking.review_sessions import (
    GRACE_SECONDS,
    AccessDenied,
    AlreadyReviewedError,
    AnswersError,
    NoSessionError,
    SessionExpiredError,
)
from portal.services.taking.steps import SignedOutError
from portal.states.auth import session_token, sign_in_url_for
from portal.states.browser import portal_call, run_script, toast
from portal.states.route_params import route_arg, route_pattern
from portal.states.tab_owner import TabOwned
from portal.states.taking import local_copy
from portal.states.taking.core import PREVIEW_ROUTE, PreviewCore, ServerCore

log = logging.getLogger(__name__)

SUBMIT_FAILED = "An error occurred while submitting your response. Please try again."
EXTENDED = "Your time has been extended by 10 minutes."
MAX_BRIDGE_LENGTH = 250_000  # a sync report carries the other tab's answers
MAX_SEQ = 2**53  # a change's sequence number (microseconds since the epoch, or one more than the last)
CLOCK_SKEW_MS = 2_000
LOADING, END, THANK_YOU, REVIEWED, EXPIRED = "loading", "end", "thank-you", "reviewed", "expired"
_BROWSER_ID = re.compile(r"^[0-9a-f]{32}$")
_PROJECT = re.compile(r"^[A-Za-z0-9_.-]{1,100}$")


def public_respondent_key(browser_id: Any, project: Any) -> str | None:
    """The key of a visitor without an account from what their browser told (window.portalTaking.who): its random
    id and the research service's project id ('respondent:<project>:<id>', else 'public:<id>'); None if malformed."""
    if not isinstance(browser_id, str) or not _BROWSER_ID.match(browser_id) or not isinstance(project or "", str):
        return None
    return f"respondent:{project}:{browser_id}" if _PROJECT.match(project or "") else f"public:{browser_id}"


def _ms(value: Any) -> int:
    return int(value.timestamp() * 1000)


def _is_seq(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value <= MAX_SEQ


def json_text(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


class TimedSession(TabOwned, mixin=True):
    """The shared core of taking a test. Hooks for the kind's state: VIEW, IN_PROGRESS,
    _show_kind, _fresh, _restore_kind, _kind_position, _url_step, _payload, _signals_out,
    _answer_errors, _refresh, _paste and _report."""

    # The phases in which the time runs (the local-storage key is the kind's, kinds.Kind.store_suffix).
    # The screen of this state's kind (portal/domain/taking/kinds): every step asks access for it.
    VIEW: ClassVar[str] = ""
    # What a failed submission says (the spec's text for the kind).
    FAILED_MESSAGE: ClassVar[str] = SUBMIT_FAILED
    IN_PROGRESS: ClassVar[frozenset[str]] = frozenset({END})

    test_id: int = 0
    # loading | the kind's own phases | end | thank-you | reviewed | expired
    phase: str = LOADING
    # The timer, drawn by the browser.
    deadline_ms: int = 0
    clock_ms: int = 0
    session_seconds: int = 3600
    # Seconds before the deadline when the 'Timeout warning' shows (test_access.timeout_modal_seconds).
    warn_seconds: int = test_access.TIMEOUT_MODAL_SECONDS
    extensions: int = 0
    timeout_open: bool = False
    submitting: bool = False
    thank_title: str = ""
    thank_description: str = ""
    reward_label: str = ""
    # A crowd-work respondent's completion code (portal/services/partners.py), shown on the thank-you.
    completion_code: str = ""
    thank_action: str = worker_details.BACK_TO_HOMEPAGE
    store_key: str = ""
    # Messages by question key (or the kind's own names).
    errors: dict[str, str] = {}
    # Bumped when answers arrive from elsewhere (another tab, the server draft): text boxes remount.
    epoch: int = 0
    # 'Report a problem' (issue 38): the dialog, and its messages by field (category, text).
    report_open: bool = False
    report_errors: dict[str, str] = {}

    # The answers (the server draft's format, by question key): kept on the server, never sent
    # in a delta (local storage gets them in _local_script).
    _answers: dict[str, Any] = {}

    # The sequence number of each answer's newest change (by question key) and the session's highest:
    # every change gets a larger number than the last, so a retried older change never overwrites a
    # newer one (see `_retry_pending`). Kept in the draft's position ('seqs').
    _seqs: dict[str, int] = {}
    _seq: int = 0

    # The signals recorded while the test is taken (portal/domain/taking/signals.py), kept in the draft's
    # position ('signals') and stored with the review; `_since`: when the shown step began (server clock).
    _signals: dict[str, Any] = {}
    _since: float = 0.0

    _session_id: int = 0
    _version_id: int = 0
    _respondent: str = ""
    # Whose session this tab works on ('account:<id>' or the public respondent's key).
    _key: str = ""
    _rev: int = 0
    _seed: str = ""
    # Staff previewing the test (set only after the server checked them as staff): the preview core,
    # whose run (deadline, extension, draft) is kept here and nothing is stored.
    _preview: bool = False
    _preview_run: PreviewRun | None = None
    # The definition the preview entered (the saved test's, or the builder draft's, which no cache holds).
    _preview_definition: TestDefinition | None = None

    # --- hooks (overridden by the kind's state) --------------------------------------------------
    def _show_kind(self, definition: TestDefinition) -> None:
        """Show the test's own texts and content on entering."""

    def _fresh(self, definition: TestDefinition) -> None:
        """No session yet: the kind's first screen."""

    def _restore_kind(self, answers: dict[str, Any], position: dict[str, Any], definition: TestDefinition) -> None:
        """Take the answers and the position of a draft."""

    def _kind_position(self) -> dict[str, Any]:
        return {}

    def _url_step(self) -> str:
        """The step (and sub-step) of the address, e.g. 'questions/3' ('' for the test's own page)."""
        return self.phase if self.phase in (END, THANK_YOU) else ""

    def _payload(self, definition: TestDefinition) -> dict[str, Any]:
        return {}

    def _signals_out(self) -> dict[str, Any]:
        """The signals stored with the review."""
        return dict(self._read("_signals"))

    def _measure_parts(self, definition: TestDefinition) -> dict[str, str]:
        """The free-text answers the browser may report on (answer key -> the signal's part)."""
        return {}

    def _answer_errors(self, errors: dict[str, str], definition: TestDefinition) -> None:
        """The server refused some answers: show each where it belongs."""

    def _refresh(self, definition: TestDefinition) -> None:
        """Refresh what the current screen shows."""

    async def _paste(self, data: dict[str, Any]) -> list:
        return []

    # --- helpers -------------------------------------------------------------------------------
    def _core(self) -> ServerCore | PreviewCore:
        """Where the session, the draft and the submission go: the server, or the staff preview."""
        return PreviewCore(self) if self._preview else ServerCore(self)

    def _definition(self) -> TestDefinition | None:
        if self._preview and self._preview_definition is not None and self._preview_definition.test_id == self.test_id:
            return self._preview_definition
        return cached_definition(self.test_id, self._version_id or None)

    async def _fresh_definition(self) -> TestDefinition:
        found = self._definition()
        if found is None:
            found = await db.run(test_taking.definition, test_id=self.test_id, version_id=self._version_id or None)
        return found

    def _me(self) -> dict[str, Any]:
        """Who asks: the session cookie, and the public respondent key when there is no account."""
        return {"token": session_token(self), "test_id": self.test_id, "respondent": self._respondent or None}

    def _in_progress(self) -> bool:
        return self.phase in self.IN_PROGRESS

    def _show(self, definition: TestDefinition, who: test_taking.Who) -> None:
        self._key = respondent_key(who.account_id) if who.account_id is not None else str(who.respondent)
        self._seed = f"{who.account_id or who.respondent}:{definition.test_id}"
        core = self._core()
        self.store_key = f"{definition.test_id}{definition.kind_record.store_suffix}" if core.local_copy else ""
        self.personal_fields = list(core.personal_fields(definition, who))
        self.thank_action = worker_details.thank_you_action(
            panel=definition.panel, qualification_based=definition.qualification_based
        )
        thanks = definition.thank_you
        self.thank_title = str(thanks.get("title") or "Thank you!")
        self.thank_description = str(thanks.get("description") or "Your answers have been submitted.")
        self.session_seconds = definition.session_seconds
        self.warn_seconds = test_access.timeout_modal_seconds(definition.session_seconds)
        self._show_kind(definition)

    def _timer(self, row: Any) -> None:
        self._session_id = int(row.id)
        # The version of the test this session is taken on (every screen and check from now on).
        self._version_id = int(getattr(row, "version_id", None) or 0)
        self.deadline_ms = _ms(row.deadline_at if row.deadline_at.tzinfo else row.deadline_at.replace(tzinfo=UTC))
        self.clock_ms = int(time.time() * 1000)
        self.extensions = int(row.extensions)

    def _restore(self, answers: Any, position: Any, definition: TestDefinition) -> None:
        """Take a draft: the server's, or the browser's copy, whose answers hold the details too (the
        newest this browser had: typed or pending), newer than its position's."""
        answers, typed_details, typed_different = worker_details.split_browser_copy(
            answers if isinstance(answers, dict) else {}, self.personal_fields
        )
        position = position if isinstance(position, dict) else {}
        rev = position.get("rev")
        self._rev = rev if isinstance(rev, int) and not isinstance(rev, bool) else 0
        seqs = position.get("seqs")
        self._seqs = (
            {k: v for k, v in seqs.items() if isinstance(k, str) and _is_seq(v)} if isinstance(seqs, dict) else {}
        )
        self._seq = max(self._seqs.values(), default=0)
        details = position.get("details")
        if self.personal_fields and isinstance(details, dict):
            self.details = {k: v for k, v in details.items() if k in worker_details.FIELDS and isinstance(v, str)}
            self.different_payment = position.get("differentPayment") is True
        if typed_details:
            self.details = {**(self.details or worker_details.empty_details()), **typed_details}
        if typed_different is not None:
            self.different_payment = typed_different
        # The larger of this tab's and the draft's (every signal only grows); the step's clock restarts.
        self._signals = signal_rules.merged(self._read("_signals"), signal_rules.clean(position.get("signals")))
        self._since = time.time()
        self._restore_kind(answers, position, definition)
        if position.get("step") == END and self.personal_fields:
            self.phase = END
        self.epoch += 1

    def _read(self, name: str) -> Any:
        """A var's value to read, not wrapped in Reflex's MutableProxy (which tracks changes made through
        it, at a cost on every access: a tenth of an answer event). Never changed in place: the states
        assign new values."""
        return self.get_value(name)

    def _position(self) -> dict[str, Any]:
        position = {
            "step": self.phase,
            "rev": self._rev,
            "seqs": dict(self._read("_seqs")),
            "signals": self._read("_signals"),
            **self._kind_position(),
        }
        if self.personal_fields:
            position.update(details=self.details, differentPayment=self.different_payment)
        return position

    def _spent(self, name: str) -> None:
        """The seconds since the shown step began added to the signal `name`; the next step's clock starts."""
        now = time.time()
        if self._since:
            self._signals = signal_rules.add_seconds(self._read("_signals"), name, now - self._since)
        self._since = now

    async def _measured(self, measured: Any) -> None:
        """The browser's measures of the free-text answers, sent with an answer event (assets/portal.js,
        window.portalTaking.measures): checked and merged; kept with the draft when they changed."""
        if not measured or not self._in_progress():
            return
        before = self._read("_signals")
        after = signal_rules.merge_measured(before, measured, self._measure_parts(await self._fresh_definition()))
        if after != before:
            self._signals = after
            self._queue()

    def _next_seq(self) -> int:
        """A larger sequence number than any before in this session: the time in microseconds, or one
        more than the last (a state whose write was refused still gets a number larger than the lost
        change's, as the time has moved on)."""
        self._seq = min(max(self._seq + 1, time.time_ns() // 1000), MAX_SEQ)
        return self._seq

    def _stamp(self, keys: Iterable[str], seq: int | None = None) -> dict[str, int]:
        """The sequence numbers of the answers one change touched (in `keys`' order): a new number each,
        or a retried change's own `seq`; kept in `_seqs` (the reply hands them to the browser as pending)."""
        changed = {k: self._next_seq() if seq is None else seq for k in keys}
        if seq is not None:
            self._seq = max(self._seq, seq)
        self._seqs = {**self._read("_seqs"), **changed}
        return changed

    def _pending_answer(self, key: str) -> dict[str, Any]:
        """An answer as the browser keeps it pending (and hands it back to `_retry_pending`): an object."""
        return self._read("_answers")[key]

    def _browser_answers(self) -> dict[str, Any]:
        """What the browser's copy keeps as answers, by key (the personal-info step adds its details)."""
        return self._read("_answers")

    def _local_scripts(self, changed: dict[str, int] | None = None) -> list:
        """The answers kept in local storage too (none in a preview: it keeps nothing).

        This reply reaches the browser before Reflex writes the state (and its write can still be
        refused when its lock expired), so it is not the acknowledgement: the changed answers are
        kept in local storage as pending, with their sequence numbers, until a later event confirms
        them from the stored state (`_confirm_pending`)."""
        if not self.store_key:
            return []
        answers = self._browser_answers()
        payload = {**self._position(), "answers": answers, "sessionId": self._session_id}
        pending = {
            k: {"answer": self._pending_answer(k), "seq": seq} for k, seq in (changed or {}).items() if k in answers
        }
        return [
            portal_call(
                f"window.portalTaking.reply({json_text(self.store_key)}, {json_text(payload)}, {json_text(pending)})"
            )
        ]

    def _url_script(self) -> EventSpec | Event:
        if not self._core().local_copy:
            return rx.noop()  # a preview's address stays the preview page's
        step = self._url_step()
        path = f"{rating_path(self.test_id)}/{step}" if step else rating_path(self.test_id)
        return run_script(
            f"window.history.replaceState(window.history.state, '', {json_text(path)} + window.location.search)"
        )

    async def _save(self, changed: dict[str, int] | None = None) -> list:
        """Keep the draft: queued for the server (draft_writer, written within half a second) and
        in local storage at once (`changed`: the answers this event changed, by key, with their
        sequence numbers: pending in the browser until confirmed). After the deadline the time is
        up instead."""
        if self.deadline_ms and time.time() * 1000 > self.deadline_ms + GRACE_SECONDS * 1000:
            return await self._time_up()
        self._rev += 1
        self._queue()
        return self._local_scripts(changed)

    def _queue(self) -> None:
        if self._session_id:
            self._core().queue(
                draft_writer.Draft(self._session_id, self._key, dict(self._read("_answers")), self._position())
            )

    def _left(self, error: ServiceError) -> list:
        """The session is gone (signed out, or cleared elsewhere): reload the test's page."""
        if isinstance(error, SignedOutError):
            return [toast("error", error.message), rx.redirect(sign_in_url_for(self))]
        return [rx.redirect(self._core().path(), replace=True)]

    def _clear_local(self) -> EventSpec:
        if not self.store_key:
            return rx.noop()
        return local_copy.clear(self.test_id)

    async def _time_up(self) -> list:
        """The deadline this tab knows has passed: unless the server's session runs on (extended in
        another tab), it is cleared, local data removed, and the page reloads to its expired state.
        A preview just ends (its page shows the end of the preview)."""
        core = self._core()
        try:
            row = await core.active()
            if row is not None:
                self._timer(row)
                return []
            core.discard(self._session_id)
            await core.clear()
        except ServiceError:
            pass
        self.phase = EXPIRED
        self.timeout_open = False
        if not core.local_copy:
            return [toast("error", test_access.TIME_UP)]
        return [toast("error", test_access.TIME_UP), self._clear_local(), rx.redirect(core.path(), replace=True)]

    # --- 'Report a problem' (issue 38): on every step of every kind, beside the timer ------------------
    @rx.event
    def open_report(self):
        self.report_open, self.report_errors = True, {}

    @rx.event
    def close_report(self):
        self.report_open = False

    @rx.event
    async def report_problem(self, form: Any):
        """Send the report: the server checks who reports (this tab's session or respondent key) and that they are
        taking this tab's test. A report that pauses the test reloads the page, which then says it is paused."""
        raw = form if isinstance(form, dict) else {}
        if self._preview:
            self.report_open = False
            return toast("info", problem_rules.NOT_IN_PREVIEW)
        try:
            paused = await db.run(
                problem_reports.report,
                token=session_token(self),
                respondent=self._respondent or None,
                test_id=self.test_id,
                category=raw.get("category"),
                text=raw.get("text"),
            )
        except ServiceError as err:
            self.report_errors = dict(err.errors)
            if not {"category", "text"} & set(err.errors):
                self.report_open = False
                return toast("error", err.message)
            return None
        self.report_open, self.report_errors = False, {}
        if paused:
            return [toast("info", problem_rules.PAUSED_NOW), rx.call_script("window.location.reload()")]
        return toast("success", problem_rules.THANKS)

    # --- entering ------------------------------------------------------------------------------
    @rx.event
    async def begin(self):
        """The view is shown (the rating page decided it): a signed-in participant enters at once,
        a visitor without an account first asks the browser for its respondent id."""
        if route_pattern(self) == PREVIEW_ROUTE:
            return await self._enter_preview(whole_number(route_arg(self, "test_id")))
        number = whole_number(route_arg(self, "rate_test_id"))
        if not number:
            return
        return await self._begin_for(number)

    async def _begin_for(self, number: int, partner: str = "") -> Any:
        """Enter test `number` on the rating page: at once when signed in, else once the browser
        has told its respondent id (with `partner`, the token of a partner's link the server checked)."""
        self._preview = False
        if session_token(self):
            self._respondent = ""
            return await self._enter(number)
        return portal_call(
            f"window.portalTaking.who({number}, {json.dumps(partner)})", callback=type(self).enter_public
        )

    @rx.event
    async def enter(self, test_id: int):
        """Enter the test as the signed-in participant."""
        if not isinstance(test_id, int) or isinstance(test_id, bool) or test_id <= 0:
            return
        self._respondent, self._preview = "", False
        return await self._enter(test_id)

    @rx.event
    async def enter_public(self, who: Any):
        """The test for a visitor without an account: the browser's answer to window.portalTaking.who(),
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
        self._preview = False
        partner = data.get("partner")
        if isinstance(partner, str) and _BROWSER_ID.match(partner):
            # The token of the partner link the server checked for this page: this respondent key is now admitted.
            await db.run(partners.bind, test_id=test_id, token=partner, respondent=self._respondent)
        return await self._enter(test_id)

    async def _enter_preview(self, test_id: int | None) -> Any:
        """Staff previewing the test (its page /admin/tests/{id}/preview): the preview's services check
        the caller is staff; anyone else gets their refusal and the tab stays a participant's."""
        if not test_id:
            return None
        self._respondent, self._preview = "", True
        try:
            return await self._enter(test_id)
        finally:
            if self.phase == LOADING:  # refused (or failed): nothing shown, and no preview mode kept
                self._preview, self._preview_run, self._preview_definition = False, None, None

    def _entering(self, test_id: int) -> None:
        self.test_id = test_id
        self._version_id = 0  # the newest, until a session names its own
        self._signals, self._since = {}, 0.0  # a session's own, from its draft
        self.phase = LOADING
        self.errors = {}
        self.detail_errors: dict[str, str] = {}  # WorkerDetailsStep's (every kind's state mixes it in)
        self.submitting = False
        self.timeout_open = False
        self.completion_code = ""

    async def _enter(self, test_id: int) -> Any:
        self._entering(test_id)
        try:
            entry = await self._core().enter(self.VIEW)
        except ServiceError as error:
            return self._entered(None, error)
        return self._entered(entry)

    def _enter_opened(self, test_id: int, entry: test_taking.Entry | None, error: ServiceError | None) -> Any:
        """The rating page's load entered this view for the signed-in participant already (the same
        test_taking.enter, read with the page's access decision): show it without an event of its own."""
        self._respondent, self._preview = "", False
        self._entering(test_id)
        return self._entered(entry, error)

    def _entered(self, entry: test_taking.Entry | None, error: ServiceError | None = None) -> Any:
        if isinstance(error, SignedOutError):
            return rx.redirect(sign_in_url_for(self), replace=True)
        if error is not None or entry is None:
            return toast("error", error.message if error is not None else SUBMIT_FAILED)
        self._show(entry.definition, entry.who)
        if entry.reviewed:
            self.phase = REVIEWED
            return None
        if entry.active is None:
            self._answers = {}
            self.details = worker_details.empty_details()
            self._fresh(entry.definition)
            return [self._url_script()]
        self._timer(entry.active)
        self._restore(*self._core().latest(entry.active), entry.definition)
        self._refresh(entry.definition)
        if not self.store_key:
            return [self._url_script()]
        # The browser's copy comes back (through the bridge, kind 'restore') only when it is newer than the
        # server draft: resuming costs no event of its own otherwise.
        # With the stored state's sequence numbers: the browser's pending answers it holds are confirmed.
        offer = [
            json_text(self.store_key),
            json_text(self.test_id),
            json_text(self._session_id),
            json_text(self._rev),
            json_text(self._seqs),
        ]
        return [self._url_script(), portal_call(f"window.portalTaking.offer({', '.join(offer)})")]

    @rx.event
    async def restore_local(self, stored: Any):
        """The browser's copy, when it is newer than the server draft of the same session (a keystroke
        not yet sent when the tab closed or the backend restarted): adopt it and save it."""
        await self._adopt(stored, queue=True)

    async def _adopt(self, stored: Any, *, queue: bool) -> None:
        """Take a local copy of the same review session when it is newer (or holds unsent keystrokes)."""
        if not isinstance(stored, str) or len(stored) > MAX_BRIDGE_LENGTH or not self._in_progress():
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

    async def _start(self) -> list:
        """The server session and its deadline begin (or the running one resumes)."""
        try:
            row = await self._core().start(self.VIEW)
        except AlreadyReviewedError:
            self.phase = REVIEWED
            return []
        except SignedOutError as error:
            return self._left(error)
        except ServiceError as error:
            return [toast("error", error.message)]
        definition = await self._fresh_definition()
        self._timer(row)
        self._restore(*self._core().latest(row), definition)
        self._refresh(definition)
        events = await self._save()
        return [
            toast("info", test_access.start_message(self.session_seconds)),
            self._url_script(),
            run_script("window.scrollTo(0, 0)"),
            *events,
        ]

    # --- submitting ----------------------------------------------------------------------------
    async def _send_shown(self):
        """Submit with 'Submitting...' shown meanwhile (an event handler yields each update of this)."""
        self.submitting = True
        yield None
        events = await self._send()
        self.submitting = False
        yield events

    async def _send(self) -> list:
        core = self._core()
        core.discard(self._session_id)  # the submission carries the answers itself
        definition = await self._fresh_definition()
        try:
            result = await core.submit(
                self.VIEW,
                answers=self._payload(definition),
                worker_data=self.details,
                different_payment_email=self.different_payment,
                submission_id=f"session-{self._session_id}",
                signals=self._signals_out(),
            )
        except AlreadyReviewedError:
            self.phase = REVIEWED
            return [self._clear_local()]
        except AnswersError as error:
            self._answer_errors(error.errors or {}, definition)
            return [toast("error", SUMMARY)]
        except SessionExpiredError:
            return await self._time_up()
        except (NoSessionError, SignedOutError) as error:
            return self._left(error)
        except AccessDenied as error:  # not allowed now (invite, quota, status ...): its message
            return [toast("error", error.message)]
        except ServiceError as error:
            found = {
                k.removeprefix("workerData."): v for k, v in (error.errors or {}).items() if k.startswith("workerData.")
            }
            if found:
                self.detail_errors = found
                return [toast("error", error.message)]
            return [toast("error", self.FAILED_MESSAGE)]
        except Exception:  # noqa: BLE001 - the participant gets the spec's message, the log gets the trace
            log.exception("submission failed for test %s", self.test_id)
            return [toast("error", self.FAILED_MESSAGE)]
        self.phase = THANK_YOU
        self.reward_label = f"${result.amount_cents / 100:,.2f}"
        self.completion_code = result.completion_code or ""
        self.timeout_open = False
        self.errors, self.detail_errors = {}, {}
        done = [
            local_copy.completed(self.test_id) if core.local_copy else rx.noop(),
            self._url_script(),
            run_script("window.scrollTo(0, 0)"),
        ]
        # A panel exchange's participant goes back to the exchange with the outcome (a signed exit URL).
        # (A full page load: the exchange's page is not one of the portal's, even on the same origin.)
        return (
            [*done, run_script(f"window.location.assign({json.dumps(result.exit_url)})")] if result.exit_url else done
        )

    # --- the timer and the browser's reports ---------------------------------------------------
    @rx.event
    async def extend_time(self):
        try:
            row = await self._core().extend(self.VIEW)
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
        """A report from window.portalTaking: {"kind": mid | warn | expired | check | sync | paste | ..., ...}."""
        if not isinstance(message, str) or len(message) > MAX_BRIDGE_LENGTH:
            return
        try:
            data = json.loads(message)
        except ValueError:
            return
        if not isinstance(data, dict) or data.get("testId") != self.test_id:
            return
        kind = data.get("kind")
        in_progress = self._in_progress()
        remaining_ms = self.deadline_ms - int(time.time() * 1000)
        if kind == "mid" and in_progress and 0 < remaining_ms <= test_access.MID_WARNING_SECONDS * 1000 + CLOCK_SKEW_MS:
            return toast("warning", test_access.MID_WARNING)
        if kind == "warn" and in_progress:
            self.timeout_open = test_access.shows_timeout_modal(
                max(0, remaining_ms // 1000), self.extensions, self.session_seconds
            )
            return
        if kind == "expired" and in_progress and remaining_ms <= CLOCK_SKEW_MS:
            return await self._time_up()
        if kind == "check" and in_progress:
            return await self._check()
        if kind == "restore" and in_progress:  # window.portalTaking.offer: this tab's copy is newer
            await self._adopt(data.get("value"), queue=True)
            return
        if kind == "sync" and in_progress:
            await self._adopt(data.get("value"), queue=False)
            return [self._url_script()] if self._in_progress() else []
        if kind == "paste" and in_progress:
            return await self._paste(data)
        if kind == "pending" and in_progress:
            return await self._confirm_pending(data.get("pending"))
        if in_progress:
            return await self._report(kind, data)

    async def _retry_pending(self, key: str, answer: dict[str, Any], seq: int) -> list:
        """A pending answer the stored state does not hold (its event's state write was refused):
        applied again with its own sequence number (the kinds that ask questions: QuestionFlow)."""
        return []

    def _pending_entries(self, pending: Any) -> list[tuple[str, dict[str, Any], int]]:
        """The browser's pending answers ({key: {"answer", "seq"}}), the well-formed ones, oldest first."""
        if not isinstance(pending, dict) or len(pending) > 500:
            return []
        entries = [
            (k, v.get("answer"), v.get("seq")) for k, v in pending.items() if isinstance(k, str) and isinstance(v, dict)
        ]
        return sorted(((k, a, s) for k, a, s in entries if isinstance(a, dict) and _is_seq(s)), key=lambda e: e[2])

    async def _confirm_pending(self, pending: Any) -> list:
        """The browser asks which of its pending answers are kept. The state this event loaded is the
        one stored by the events before it, so an answer whose sequence number it holds (or a newer
        change of the same answer) is kept: confirmed. One it lacks was lost with a refused state
        write: applied again now, and confirmed by the browser's next ask once this event's write
        has been stored. The browser keeps every unconfirmed answer in local storage and asks again,
        backing off, until all are confirmed."""
        confirmed: dict[str, int] = {}
        events: list = []
        for key, answer, seq in self._pending_entries(pending):
            have = self._seqs.get(key, 0)
            if have >= seq:
                confirmed[key] = have
            else:
                events += await self._retry_pending(key, answer, seq)
        if not self.store_key or self.phase not in self.IN_PROGRESS:
            return events
        return [
            *events,
            portal_call(
                f"window.portalTaking.confirmed({json_text(self.store_key)}, "
                f"{json_text({'sessionId': self._session_id, 'seqs': confirmed})})"
            ),
        ]

    # --- Continue with the browser's pending answers ---------------------------------------------
    def _ask_browser(self, callback: Any) -> Any:
        """Ask the browser for its pending answers (`callback` gets them, as JSON): a step that would say an
        answer is required first takes the one the page may still hold (its event's state write was
        refused). None without a local copy (a preview), where there is nothing to ask."""
        if not self.store_key:
            return None
        return portal_call(f"window.portalTaking.pendingAnswers({json_text(self.store_key)})", callback=callback)

    async def _take_pending(self, pending: Any) -> list:
        """The browser's pending answers ({key: {"answer", "seq"}}, as JSON): each one newer than the
        state's change of the same answer is applied (as a retried change)."""
        try:
            data = json.loads(pending) if isinstance(pending, str) and len(pending) <= MAX_BRIDGE_LENGTH else None
        except ValueError:
            data = None
        events: list = []
        for key, answer, seq in self._pending_entries(data):
            if seq > self._seqs.get(key, 0):
                events += await self._retry_pending(key, answer, seq)
        return events

    async def _report(self, kind: Any, data: dict[str, Any]) -> list:
        """A report of the kind's own (e.g. how far the screenshot was scrolled)."""
        return []

    async def _check(self) -> list:
        """Back on the tab, and every 5 minutes: is the review still in progress?"""
        try:
            pending = await self._core().check()
        except SignedOutError as error:
            return self._left(error)
        except ServiceError:
            return []
        if pending.existing_review:
            self.phase = REVIEWED
            return [self._clear_local()]
        if not pending.success:
            return [rx.redirect(self._core().path(), replace=True)]
        return []
