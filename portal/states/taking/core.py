"""The one seam between the timed session every kind runs on (timed_session.TimedSession) and
where its session, draft and submission go.

- `ServerCore`: a participant (or public respondent) taking the test. The review session, the
  draft and the one submission are on the server (services/test_taking, draft_writer), and the
  browser keeps a local copy of the answers (window.portalTaking).
- `PreviewCore`: staff previewing the test at /admin/tests/{id}/preview. The same calls go to
  services/admin/preview.py, which checks the caller is staff on every call and validates the
  submission with the same rules; the run (deadline, extension, draft) is kept in the tab's state
  and nothing is written anywhere, not even the browser's local storage.

TimedSession picks one by its `_preview` backend var, which only a successful staff check sets
(`TimedSession._enter`). The kinds' states know nothing of this.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from portal import db
from portal.domain.invites import rating_path
from portal.services.admin import preview
from portal.services.taking import draft_writer
from portal.services.taking import steps as test_taking
from portal.services.taking.definitions import TestDefinition
from portal.services.taking.review_sessions import PendingReview, SubmitResult
from portal.states.admin.guard import caller_id

if TYPE_CHECKING:
    from portal.states.taking.timed_session import TimedSession

# The preview's page (its `test_id` is the route's argument).
PREVIEW_ROUTE = "/admin/tests/[test_id]/preview"


def preview_path(test_id: int) -> str:
    return f"/admin/tests/{test_id}/preview"


def is_draft_preview(state: Any) -> bool:
    """Whether the page is the preview of the builder's draft (/admin/tests/{id}/preview?draft=1)."""
    try:
        return state.router.url.query_parameters.get("draft") == "1"
    except AttributeError:
        return False


class ServerCore:
    """A participant's own review session on the server."""

    # The browser keeps a copy of the answers (local storage) and the address follows the steps.
    local_copy = True

    def __init__(self, state: TimedSession) -> None:
        self.state = state

    def path(self) -> str:
        return rating_path(self.state.test_id)

    async def enter(self, view: str) -> test_taking.Entry:
        return await db.run(test_taking.enter, **self.state._me(), view=view)

    async def start(self, view: str) -> Any:
        return await db.run(test_taking.start, **self.state._me(), view=view)

    async def active(self) -> Any:
        return await db.run(test_taking.draft, **self.state._me())

    async def extend(self, view: str) -> Any:
        return await db.run(test_taking.extend, **self.state._me(), view=view)

    async def check(self) -> PendingReview:
        return await db.run(test_taking.check, **self.state._me())

    async def clear(self) -> None:
        await db.run(test_taking.clear, **self.state._me())

    async def submit(self, view: str, **payload: Any) -> SubmitResult:
        return await db.run(test_taking.submit, **self.state._me(), view=view, **payload)

    def personal_fields(self, definition: TestDefinition, who: test_taking.Who) -> tuple[str, ...]:
        return test_taking.personal_fields(definition, who)

    def queue(self, draft: draft_writer.Draft) -> None:
        draft_writer.writer.put(draft)

    def discard(self, session_id: int) -> None:
        draft_writer.writer.discard(session_id)

    def latest(self, row: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        """The session's newest draft: one still queued in this process, else the stored one."""
        queued = draft_writer.writer.pending(row.id)
        return (queued.answers, queued.position) if queued else (row.draft_answers, row.draft_position)


class PreviewCore:
    """Staff previewing the test: every call checked as staff, the run kept in the tab's state."""

    local_copy = False

    def __init__(self, state: TimedSession) -> None:
        self.state = state

    def path(self) -> str:
        return preview_path(self.state.test_id)

    def _draft(self) -> bool:
        """The builder's 'Preview draft' (the page's address ends in ?draft=1): the unsaved working copy."""
        return is_draft_preview(self.state)

    async def _who(self) -> dict[str, Any]:
        return {"actor_id": await caller_id(self.state), "test_id": self.state.test_id}

    async def _drafted(self) -> dict[str, Any]:
        return {**await self._who(), "draft": self._draft()}

    def _keep(self, run: preview.PreviewRun) -> preview.PreviewRun:
        self.state._preview_run = run
        return run

    async def enter(self, view: str) -> test_taking.Entry:
        entry = await db.run(preview.enter, **await self._drafted(), view=view, run=self.state._preview_run)
        # The screens' answer events read this definition (a draft is in no cache).
        self.state._preview_definition = entry.definition
        return entry

    async def start(self, view: str) -> preview.PreviewRun:
        return self._keep(await db.run(preview.start, **await self._drafted(), view=view, run=self.state._preview_run))

    async def active(self) -> preview.PreviewRun | None:
        return preview.running(self.state._preview_run, self.state.test_id)

    async def extend(self, view: str) -> preview.PreviewRun:
        return self._keep(await db.run(preview.extend, **await self._drafted(), view=view, run=self.state._preview_run))

    async def check(self) -> PendingReview:
        return await db.run(preview.check, **await self._who(), run=self.state._preview_run)

    async def clear(self) -> None:
        self.state._preview_run = None

    async def submit(self, view: str, **payload: Any) -> SubmitResult:
        result = await db.run(
            preview.submit, **await self._drafted(), view=view, run=self.state._preview_run, **payload
        )
        self.state._preview_run = None  # the preview ended: opening it again starts afresh
        return result

    def personal_fields(self, definition: TestDefinition, who: test_taking.Who) -> tuple[str, ...]:
        return preview.personal_fields(definition)

    def queue(self, draft: draft_writer.Draft) -> None:
        run = preview.running(self.state._preview_run, self.state.test_id)
        if run is not None:
            self.state._preview_run = replace(run, draft_answers=draft.answers, draft_position=draft.position)

    def discard(self, session_id: int) -> None:
        """Nothing is queued for the server."""

    def latest(self, row: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        return row.draft_answers, row.draft_position
