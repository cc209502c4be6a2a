"""The screener state: raw events are checked, Confirm follows the rules, the server's verdict is shown."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from portal.services.errors import ServiceError
from portal.services.taking.screener import ScreenerView
from portal.states.taking import screener as module
from portal.states.taking.screener import ScreenerState

MATRIX = {
    "type": "matrix",
    "question": "How often?",
    "answers": [],
    "rows": ["ERP", "CRM"],
    "columns": ["Never", "Daily"],
    "allowMultiple": False,
}
SINGLE = {
    "type": "single",
    "question": "Your role?",
    "answers": [{"index": 0, "text": "Buyer"}, {"index": 1, "text": "User"}],
    "rows": [],
    "columns": [],
    "allowMultiple": False,
}
from portal.states.taking.rate import RateState  # noqa: E402

RELOAD = RateState.reload_access


class User:
    account_id = 7


def _run(gen) -> list:
    async def collect():
        return [event async for event in gen]

    return asyncio.run(collect())


@pytest.fixture
def calls(monkeypatch) -> list[tuple[str, dict[str, Any]]]:
    seen: list[tuple[str, dict[str, Any]]] = []

    async def user(_state):
        return User()

    monkeypatch.setattr(module, "current_user", user)
    # The rating page's state lives in another module: a stand-in with its reload event.
    return seen


def _serve(monkeypatch, calls, *, view: ScreenerView, verdict: Any = True) -> None:
    async def run(fn, **kwargs):
        calls.append((fn.__name__, kwargs))
        if fn.__name__ == "load":
            return view
        if isinstance(verdict, Exception):
            raise verdict
        return verdict

    monkeypatch.setattr(module.db, "run", run)


def test_matrix_confirm_waits_for_every_statement_and_raw_events_are_checked(monkeypatch, calls) -> None:
    _serve(monkeypatch, calls, view=ScreenerView(MATRIX, None), verdict=False)
    state = ScreenerState()
    assert asyncio.run(state.load("12")) is None
    assert calls[0] == ("load", {"test_id": 12, "respondent_key": "account:7"})
    assert (state.loaded, state.kind, state.rows, state.columns, state.question) == (
        True,
        "matrix",
        ["ERP", "CRM"],
        ["Never", "Daily"],
        "How often?",
    )
    assert state.selection == {"0": [], "1": []} and not state.can_confirm
    state.choose(0, "1")
    assert state.selection == {"0": [1], "1": []} and not state.can_confirm
    for row, index in ((2, 0), (0, 2), ("²", 0), (None, 0), (0, [1])):
        state.choose(row, index)
    state.toggle(1, 0, "yes")
    assert state.selection == {"0": [1], "1": []}
    _run(state.confirm())  # incomplete: nothing is sent
    assert [name for name, _ in calls] == ["load"]
    state.choose(1, 0)
    assert state.can_confirm
    _run(state.confirm())
    assert calls[-1] == (
        "submit",
        {"test_id": 12, "account_id": 7, "respondent_key": "account:7", "raw_selection": {"0": [1], "1": [0]}},
    )
    assert state.failed and not state.submitting
    state.choose(0, 0)  # after the verdict nothing changes
    assert state.selection == {"0": [1], "1": [0]}


def test_a_pass_reloads_the_rating_page_and_a_refusal_shows_the_spec_error(monkeypatch, calls) -> None:
    _serve(monkeypatch, calls, view=ScreenerView(SINGLE, None), verdict=True)
    state = ScreenerState()
    asyncio.run(state.load(3))
    assert state.answers == ["Buyer", "User"] and state.kind == "single"
    state.choose(0, 1)
    assert _run(state.confirm())[-1] == RELOAD and not state.failed

    _serve(monkeypatch, calls, view=ScreenerView(SINGLE, None), verdict=ServiceError("Please choose an answer."))
    state = ScreenerState()
    asyncio.run(state.load(3))
    state.choose(0, 0)
    events = _run(state.confirm())
    assert state.error == "Error in screener verification: Please choose an answer."
    assert len(events) == 2 and not state.failed and not state.submitting


def test_an_earlier_result_is_shown_on_load(monkeypatch, calls) -> None:
    _serve(monkeypatch, calls, view=ScreenerView(SINGLE, False))
    state = ScreenerState()
    asyncio.run(state.load(3))
    assert state.failed and state.loaded
    _serve(monkeypatch, calls, view=ScreenerView(SINGLE, True))
    state = ScreenerState()
    assert asyncio.run(state.load(3)) == RELOAD


def test_signed_out_visitors_and_bad_ids_see_nothing_and_send_nothing(monkeypatch, calls) -> None:
    _serve(monkeypatch, calls, view=ScreenerView(SINGLE, None))
    state = ScreenerState()
    asyncio.run(state.load("²"))
    assert state.loaded and state.kind == "" and calls == []

    async def nobody(_state):
        return None

    monkeypatch.setattr(module, "current_user", nobody)
    asyncio.run(state.load(3))
    assert state.loaded and state.kind == "" and calls == []
    state.choose(0, 0)
    _run(state.confirm())
    assert calls == [] and state.selection == {} and not state.failed
