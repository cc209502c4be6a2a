"""The profile state's picker lists: a failed page shows the spec's message; a retry clears it."""

from __future__ import annotations

import asyncio

import pytest

from portal.services.profile import PickerPage
from portal.states import profile as module
from portal.states.profile import ProfileState


@pytest.fixture
def state() -> ProfileState:
    return ProfileState()


def test_failed_lists_show_the_spec_message_and_a_retry_loads_them(state: ProfileState, monkeypatch) -> None:
    async def down(fn, **kwargs):
        raise RuntimeError("database unreachable")

    monkeypatch.setattr(module.db, "run", down)
    asyncio.run(state._more_industries())
    asyncio.run(state._more_company_sizes())
    assert state.industry_error == "Was unable to load industries list, please try again later"
    assert state.company_size_error == "Was unable to load company sizes list, please try again later"
    assert state.industry_options == [] and state.company_sizes == []

    async def up(fn, **kwargs):
        if fn.__name__ == "industries_page":
            return PickerPage(results=[("1", "Banking")], total=150)
        return PickerPage(results=[("solo", "0 - 1 employees")], total=1)

    monkeypatch.setattr(module.db, "run", up)
    state.loaded = True
    asyncio.run(state.retry_lists())
    assert state.industry_error == "" and state.industry_options == [["1", "Banking"]] and state.industry_page == 1
    assert state.company_size_error == "" and state.company_sizes == [["solo", "0 - 1 employees"]]
    # More on scroll: the next page while fewer than the total are shown.
    asyncio.run(state.more_industries())
    assert state.industry_page == 2


def test_raw_events_cannot_reach_other_fields_or_staff_parts(state: ProfileState) -> None:
    state.loaded = True
    state.values = {"firstName": "Avery", "country": "US", "state": "US-CA"}
    state.set_text("is_staff", "true")
    state.set_text("_participant_id", "7")
    assert not state.is_staff and "_participant_id" not in state.values and "is_staff" not in state.values
    state.toggle_role("1")
    state.toggle_audience("2")
    assert state.roles == [] and state.audiences == []
    for level in ("founder", "senior", "middle"):
        state.toggle_level(level)
    assert state.levels == ["founder", "senior"] and state.disabled_levels == ["middle", "specialist"]
    state.set_text("birthYear", "19a88")
    assert state.values["birthYear"] == "1988"
    state.set_text("country", "FR")
    assert state.values["state"] == ""
    state.set_text("firstName", ["not", "text"])
    assert state.values["firstName"] == "" and state.errors["firstName"] == "First name is required"
