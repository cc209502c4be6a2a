"""The draft queue (portal/services/taking/draft_writer.DraftWriter): the newest draft per session, dropped on
submit."""

from __future__ import annotations

import asyncio

from portal.services.taking import draft_writer
from portal.services.taking.draft_writer import Draft, DraftWriter


def test_the_newest_draft_of_a_session_wins_and_a_discarded_one_is_never_written(monkeypatch):
    written: list[list[Draft]] = []

    async def fake_run(fn, /, **kwargs):
        written.append(list(kwargs["drafts"]))
        return len(kwargs["drafts"])

    monkeypatch.setattr(draft_writer.db, "run", fake_run)

    async def scenario() -> None:
        writer = DraftWriter(interval=0.01)
        writer.put(Draft(1, "account:1", {"a": 1}, {"rev": 1}))
        writer.put(Draft(1, "account:1", {"a": 2}, {"rev": 2}))
        writer.put(Draft(2, "account:2", {"b": 1}, {"rev": 1}))
        writer.discard(2)
        assert writer.pending(1).answers == {"a": 2}
        await asyncio.sleep(0.05)
        assert writer.pending(1) is None

    asyncio.run(scenario())
    assert [[(d.session_id, d.answers) for d in batch] for batch in written] == [[(1, {"a": 2})]]


def test_a_failed_write_keeps_the_drafts_for_the_next_round(monkeypatch):
    calls = {"n": 0}

    async def flaky_run(fn, /, **kwargs):
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("database away")
        return len(kwargs["drafts"])

    monkeypatch.setattr(draft_writer.db, "run", flaky_run)

    async def scenario() -> None:
        writer = DraftWriter(interval=0.01)
        writer.put(Draft(7, "account:7", {"a": 1}, {"rev": 1}))
        await writer.flush()
        assert writer.pending(7) is not None  # kept after the failure
        await writer.flush()
        assert writer.pending(7) is None

    asyncio.run(scenario())
    assert calls["n"] == 2
