"""The outbox sender waits MAIL_POLL_SECONDS only after a round that was not full: a queued batch of invites goes
out at the SMTP server's pace, not BATCH messages per poll (issue 38)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from portal.services import mail_sender


def test_full_rounds_follow_each_other_and_a_short_round_waits(monkeypatch):
    rounds = [mail_sender.BATCH, mail_sender.BATCH, 3, 0]
    waits: list[float] = []

    async def send_due() -> int:
        if not rounds:
            raise asyncio.CancelledError
        return rounds.pop(0)

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr(mail_sender, "send_due", send_due)
    monkeypatch.setattr(mail_sender.asyncio, "sleep", sleep)
    monkeypatch.setattr(mail_sender, "settings", SimpleNamespace(smtp_host="127.0.0.1", mail_poll_seconds=5.0))
    with pytest.raises(asyncio.CancelledError):
        asyncio.run(mail_sender.run_forever())
    assert waits == [0, 0, 5.0, 5.0]
