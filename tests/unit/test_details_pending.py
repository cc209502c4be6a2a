"""The personal-info step's details are saved as truthfully as the answers (docs/decisions.md, 'Saving
answers truthfully'): each change carries a sequence number and is pending in the browser's copy
(beside the answers, under 'detail:<field>') until a later event confirms it, a lost one is applied
again, an older retry never overwrites a newer change, the browser's copy (typed or pending details)
wins over the server draft's on a reload, and Submit takes the browser's pending details before it
says one is missing.

The survey state is driven directly (no app), as a public respondent on the personal-info step; a
'refused state write' is simulated as Reflex refuses it: the next event loads a copy of the state
taken before the refused event ran."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from portal.domain.taking import worker_details
from portal.services.taking.definitions import TestDefinition
from portal.states.taking import core as taking_core
from portal.states.taking.survey import SurveyState
from portal.states.taking.timed_session import END
from tests.support.pending import calls, confirmed_seqs, driven_state, replied_pending, run

QUESTIONS = [{"key": "why", "type": "text", "text": "Why?", "isRequired": True}]
DEFINITION = TestDefinition(
    test_id=43,
    name="Details",
    product_type="survey",
    panel="internal",
    kind="survey",
    content={},
    questions=QUESTIONS,
    conditional=False,
)
STORE = "43-survey-answers"
FIELDS = ["firstName", "lastName", "country", "state", "email", "paymentEmail", "phoneNumber", "linkedin"]
FIRST, EMAIL, PAYMENT = "detail:firstName", "detail:email", "detail:differentPayment"


@pytest.fixture
def submitted(monkeypatch) -> list:
    """Each submission the step sends (the kind's payload is not built here)."""
    sent: list = []

    async def send(self):
        sent.append(dict(self.details))
        return []

    monkeypatch.setattr(SurveyState, "_send", send)
    return sent


@pytest.fixture
def state(monkeypatch, submitted) -> SurveyState:
    monkeypatch.setattr(taking_core.ServerCore, "queue", lambda self, draft: None)
    s = driven_state(monkeypatch, SurveyState, DEFINITION, STORE)
    s.personal_fields = list(FIELDS)
    s._restore(
        {"why": {"value": "cheaper"}},
        {"index": 0, "navigationHistory": [0], "step": END, "details": worker_details.empty_details()},
        DEFINITION,
    )
    assert s.phase == END
    return s


def report(pending: dict) -> str:
    return json.dumps({"kind": "pending", "testId": 43, "pending": pending})


def drain(gen) -> list:
    """Every update an event handler written as an async generator yields, flattened."""

    async def go():
        found = []
        async for update in gen:
            found.extend(update if isinstance(update, list) else [update])
        return found

    return run(go())


def filled(state: SurveyState) -> None:
    for field, value in {
        "firstName": "Ada",
        "lastName": "Lovelace",
        "state": "US-NY",
        "email": "ada@example.com",
        "linkedin": "https://www.linkedin.com/in/ada",
    }.items():
        run(state.set_detail(field, value))


def test_a_detail_is_pending_with_its_number_in_the_browsers_copy_and_confirmed_by_a_later_event(state: SurveyState):
    events = run(state.set_detail("firstName", "Ada"))
    pending = replied_pending(events)
    assert pending == {FIRST: {"answer": {"value": "Ada"}, "seq": state._seqs[FIRST]}}
    # the copy keeps the details beside the answers, and the checkbox
    (reply,) = calls(events, "reply")
    assert reply[1]["answers"][FIRST] == {"value": "Ada"} and reply[1]["answers"][PAYMENT] == {"value": False}
    assert reply[1]["answers"]["why"] == {"value": "cheaper"}
    checked = replied_pending(run(state.set_different_payment(True)))
    assert checked[PAYMENT]["answer"] == {"value": True} and checked[PAYMENT]["seq"] > pending[FIRST]["seq"]
    assert confirmed_seqs(run(state.bridge(report({**pending, **checked})))) == {
        FIRST: pending[FIRST]["seq"],
        PAYMENT: checked[PAYMENT]["seq"],
    }


def test_a_lost_detail_is_applied_again_and_confirmed_by_the_next_ask(state: SurveyState):
    before = copy.deepcopy(state)  # what the store holds when the next write is refused
    lost = replied_pending(run(state.set_detail("email", "ada@example.com")))
    state = before
    assert state.details["email"] == ""
    events = run(state.bridge(report(lost)))
    assert confirmed_seqs(events) == {}  # applied again by this event, not yet confirmed ...
    assert state.details["email"] == "ada@example.com" and state._seqs[EMAIL] == lost[EMAIL]["seq"]
    assert replied_pending(events)[EMAIL] == lost[EMAIL]
    assert confirmed_seqs(run(state.bridge(report(lost)))) == {EMAIL: lost[EMAIL]["seq"]}  # ... but by the next


def test_a_retried_older_detail_never_overwrites_a_newer_one(state: SurveyState):
    older = replied_pending(run(state.set_detail("firstName", "Ad")))
    newer = replied_pending(run(state.set_detail("firstName", "Ada")))
    events = run(state.bridge(report(older)))
    assert state.details["firstName"] == "Ada"
    assert confirmed_seqs(events) == {FIRST: newer[FIRST]["seq"]}


@pytest.mark.parametrize(
    "key, entry",
    [
        ("detail:jobTitle", {"value": "CTO"}),  # a field this step does not show
        ("detail:firstName", {"value": 42}),  # not text
        ("detail:firstName", "Ada"),  # not an object
        ("detail:differentPayment", {"value": "yes"}),  # the checkbox takes true or false only
        ("detail:", {"value": "x"}),
    ],
)
def test_a_forged_pending_detail_changes_nothing(state: SurveyState, key: str, entry: Any):
    before = (dict(state.details), state.different_payment, dict(state._seqs))
    run(state.bridge(report({key: {"answer": entry, "seq": 10**15}})))
    assert (dict(state.details), state.different_payment, dict(state._seqs)) == before


def test_a_pending_detail_is_cut_to_what_a_field_keeps(state: SurveyState):
    run(state.bridge(report({FIRST: {"answer": {"value": "A" * 1000}, "seq": 10**15}})))
    assert state.details["firstName"] == "A" * worker_details.INPUT_MAX


def test_the_browsers_copy_wins_over_the_server_drafts_details_on_a_reload(state: SurveyState):
    filled(state)
    (reply,) = calls(run(state.set_detail("firstName", "Ada")), "reply")
    copy_ = reply[1]
    # keystrokes typed into the e-mail field after that reply, kept in the copy before the field was left
    copy_["answers"][EMAIL] = {"value": "ada@lovelace.example"}
    copy_["dirty"] = True
    fresh = copy.deepcopy(state)
    fresh.details, fresh.epoch = worker_details.empty_details(), 0  # the server draft's older details
    run(fresh.restore_local(json.dumps(copy_)))
    assert fresh.details["email"] == "ada@lovelace.example" and fresh.details["firstName"] == "Ada"
    assert fresh._answers == {"why": {"value": "cheaper"}}  # the details stay out of the answers
    assert fresh.phase == END


def test_submit_takes_the_browsers_pending_details_before_saying_one_is_missing(state: SurveyState, submitted):
    filled(state)
    run(state.set_detail("email", ""))
    before = copy.deepcopy(state)
    lost = replied_pending(run(state.set_detail("email", "ada@example.com")))
    state = before  # the e-mail's write was refused: the state holds it empty
    events = drain(state.submit_details())
    assert calls(events, "pendingAnswers") == [[STORE]] and state.detail_errors == {} and not submitted
    drain(state.submit_details_with(json.dumps(lost)))
    assert submitted and submitted[-1]["email"] == "ada@example.com"
    assert state.detail_errors == {}


def test_submit_with_a_detail_missing_everywhere_says_so(state: SurveyState, submitted):
    filled(state)
    run(state.set_detail("email", ""))
    drain(state.submit_details())
    drain(state.submit_details_with(json.dumps({})))
    assert state.detail_errors == {"email": worker_details.REQUIRED.format(label=worker_details.LABELS["email"])}
    assert not submitted


def test_submit_with_valid_details_asks_the_browser_nothing(state: SurveyState, submitted):
    filled(state)
    events = drain(state.submit_details())
    assert calls(events, "pendingAnswers") == [] and len(submitted) == 1


def test_submit_with_pending_details_outside_the_step_changes_nothing(state: SurveyState, submitted):
    state.phase = "questions"
    drain(state.submit_details_with(json.dumps({FIRST: {"answer": {"value": "Eve"}, "seq": 10**15}})))
    assert state.details["firstName"] == "" and not submitted
