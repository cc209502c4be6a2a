"""The preview seam's in-tab part (portal/states/taking/core.PreviewCore): the run and its draft are
kept in the tab's state, never queued for the database or the browser's storage."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

from portal.services.admin.preview import PreviewRun, running
from portal.services.taking import draft_writer
from portal.states.taking.core import PreviewCore, ServerCore, preview_path

NOW = datetime.now(UTC)


def tab(run: PreviewRun | None = None) -> SimpleNamespace:
    return SimpleNamespace(test_id=7, _preview_run=run)


def test_a_preview_keeps_its_draft_in_the_tab_and_queues_nothing_for_the_server():
    run = PreviewRun(test_id=7, started_at=NOW, deadline_at=NOW + timedelta(minutes=60))
    state = tab(run)
    core = PreviewCore(state)
    core.queue(
        draft_writer.Draft(run.id, "preview:1", {"q1": {"type": "short-text", "value": "x"}}, {"step": "questions"})
    )
    assert draft_writer.writer.pending(run.id) is None  # nothing for the draft writer
    assert core.latest(state._preview_run) == ({"q1": {"type": "short-text", "value": "x"}}, {"step": "questions"})
    assert asyncio.run(core.active()) == state._preview_run
    asyncio.run(core.clear())
    assert state._preview_run is None and asyncio.run(core.active()) is None
    assert core.local_copy is False and ServerCore(state).local_copy is True
    assert core.path() == preview_path(7) == "/admin/tests/7/preview"


def test_a_run_of_another_test_or_past_its_deadline_is_not_going_on():
    run = PreviewRun(test_id=7, started_at=NOW, deadline_at=NOW + timedelta(minutes=1))
    assert running(run, 7, NOW) == run
    assert running(run, 8, NOW) is None
    assert running(run, 7, NOW + timedelta(minutes=5)) is None
    assert running({"test_id": 7}, 7, NOW) is None  # only a run the server made
    core = PreviewCore(tab(PreviewRun(test_id=8, started_at=NOW, deadline_at=NOW + timedelta(minutes=60))))
    core.queue(draft_writer.Draft(1, "preview:1", {"a": {}}, {}))
    assert core.state._preview_run.draft_answers == {}  # another test's run takes no draft
