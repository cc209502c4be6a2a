"""The onboarding state: raw events are checked, stale work e-mail answers are dropped."""

from __future__ import annotations

import asyncio

import pytest

from portal.domain.work_email import WorkEmailCheck, taken
from portal.states import onboarding as module
from portal.states.onboarding import OnboardingState

VALUES = {
    "firstName": "Nia",
    "lastName": "Newman",
    "jobTitle": "CFO",
    "email": "nia@example.com",
    "companyName": "",
    "workEmail": "",
    "employerHqCountry": "",
}


@pytest.fixture
def state() -> OnboardingState:
    s = OnboardingState()
    s.loaded = True
    s._account_id = 7
    s.values = dict(VALUES)
    return s


def _run(gen) -> list:
    async def collect():
        return [event async for event in gen]

    return asyncio.run(collect())


def test_stale_and_mismatched_answers_are_dropped(state: OnboardingState) -> None:
    state.work_email_typed("nia@acme.com")
    first = state._check_seq
    state.work_email_typed("nia@northwind.example")  # a new input cancels the pending check
    assert state._check_seq == first + 1 and state.checking_work_email
    assert not state._apply_check(first, taken("nia@acme.com"))  # the older check's answer
    assert not state._apply_check(state._check_seq, taken("other@acme.com"))  # not the field's value
    assert state.errors == {}
    assert state._apply_check(state._check_seq, taken("NIA@northwind.example"))
    assert state.errors == {"workEmail": "Email already exists"} and not state.checking_work_email
    # too short or without '@' and '.': no check starts
    state.work_email_typed("ni@a")
    assert not state.checking_work_email


def test_required_work_email_message_is_preserved(state: OnboardingState) -> None:
    state.set_field("workEmail", "")
    assert state.errors == {"workEmail": "Work email is required"}
    state._check_seq += 1
    assert state._apply_check(state._check_seq, WorkEmailCheck(valid=True, value=""))
    assert state.errors == {"workEmail": "Work email is required"}


def test_raw_submit_with_missing_fields_moves_nowhere_and_saves_nothing(state: OnboardingState, monkeypatch) -> None:
    calls: list = []

    async def run(fn, **kwargs):
        calls.append(fn.__name__)
        raise AssertionError("nothing may be saved")

    monkeypatch.setattr(module.db, "run", run)
    _run(state.submit_step({"firstName": "", "jobTitle": 5, "verified": True}))
    assert state.step == 0 and calls == []
    assert (
        state.errors["firstName"] == "First name is required" and state.errors["jobTitle"] == "Experience is required"
    )
    assert state.form_message == "All fields are required to continue."
    assert "verified" not in state.values
    # Jumping to the last step before registration is complete does nothing either.
    state.values = dict(VALUES)
    _run(state.go_to_step(2))
    _run(state.go_to_step("nonsense"))
    assert state.step == 0 and calls == []
    state.go_back()
    assert state.step == 0


def test_signup_event_script_is_guarded_by_session_storage() -> None:
    script = module.signup_event_js("42")
    assert 'sessionStorage.getItem("portalSignupTracked:42")' in script
    assert '"event": "sign_up"' in script and "dataLayer" in script
