"""Answers are acknowledged truthfully (issue 18, item 3): every change carries a sequence number,
the browser keeps it pending until a later event confirms it from the stored state, a retried older
change never overwrites a newer one, and Continue applies the browser's pending answer instead of
saying 'Answer is required'.

The survey state is driven directly (no app): the definition is a two-question survey, the draft
queue a list. A 'refused state write' is simulated the way Reflex refuses it: the state the next
event loads is a copy taken before the refused event ran."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from portal.domain.taking import survey_view as view
from portal.services.taking.definitions import TestDefinition
from portal.states.taking import core as taking_core
from portal.states.taking.survey import SurveyState
from tests.support.pending import calls, confirmed_seqs, driven_state, replied_pending, run

QUESTIONS = [
    {
        "key": "role",
        "type": "single-choice",
        "text": "Your role?",
        "isRequired": True,
        "options": [{"value": "buyer", "label": "Buyer"}, {"value": "seller", "label": "Seller"}],
    },
    {"key": "why", "type": "text", "text": "Why?", "isRequired": True},
]
DEFINITION = TestDefinition(
    test_id=41,
    name="Sequence",
    product_type="survey",
    panel="internal",
    kind="survey",
    content={},
    questions=QUESTIONS,
    conditional=False,
)


@pytest.fixture
def queued(monkeypatch) -> list:
    drafts: list = []
    monkeypatch.setattr(taking_core.ServerCore, "queue", lambda self, draft: drafts.append(draft))
    return drafts


@pytest.fixture
def state(monkeypatch, queued) -> SurveyState:
    s = driven_state(monkeypatch, SurveyState, DEFINITION, "41-survey-answers")
    s._restore({}, {"index": 0, "navigationHistory": [0]}, DEFINITION)
    s._refresh(DEFINITION)
    assert s.phase == view.QUESTIONS
    return s


def pending_report(pending: dict[str, Any]) -> str:
    return json.dumps({"kind": "pending", "testId": 41, "pending": pending})


def test_every_change_gets_a_larger_sequence_number_and_is_pending_in_the_reply(state: SurveyState, queued):
    first = replied_pending(run(state.choose("role", "buyer")))
    second = replied_pending(run(state.set_text("why", "cheaper")))
    assert first["role"]["answer"]["value"] == "buyer" and second["why"]["answer"]["value"] == "cheaper"
    assert second["why"]["seq"] > first["role"]["seq"]
    assert state._seqs == {"role": first["role"]["seq"], "why": second["why"]["seq"]}
    # the draft queued for the server carries the numbers too
    assert queued[-1].position["seqs"] == state._seqs and queued[-1].answers["why"]["value"] == "cheaper"


def test_a_stored_answer_is_confirmed_and_a_lost_one_applied_again(state: SurveyState):
    pending = replied_pending(run(state.choose("role", "buyer")))
    # the state was stored: the next event confirms the answer
    assert confirmed_seqs(run(state.bridge(pending_report(pending)))) == {"role": pending["role"]["seq"]}

    before = copy.deepcopy(state)  # what Redis holds when the next write is refused
    lost = replied_pending(run(state.choose("role", "seller")))
    state = before  # the write was refused (LockExpiredError): the next event loads the older state
    assert state._answers["role"]["value"] == "buyer"
    events = run(state.bridge(pending_report(lost)))
    assert confirmed_seqs(events) == {}  # not confirmed by the event that applies it again ...
    assert state._answers["role"]["value"] == "seller" and state._seqs["role"] == lost["role"]["seq"]
    # ... but by the next one, which loads the state that event stored
    assert confirmed_seqs(run(state.bridge(pending_report(lost)))) == {"role": lost["role"]["seq"]}


def test_a_retried_older_answer_never_overwrites_a_newer_one(state: SurveyState):
    older = replied_pending(run(state.choose("role", "buyer")))
    newer = replied_pending(run(state.choose("role", "seller")))
    assert newer["role"]["seq"] > older["role"]["seq"]
    # the older change arrives again (a retry sent before the newer change was confirmed)
    events = run(state.bridge(pending_report(older)))
    assert state._answers["role"]["value"] == "seller"
    assert confirmed_seqs(events) == {"role": newer["role"]["seq"]}  # superseded: no longer pending
    # and so does Continue's copy of it
    run(state.go_next_with(json.dumps(older)))
    assert state._answers["role"]["value"] == "seller"


def test_continue_takes_the_browsers_pending_answer_instead_of_answer_is_required(state: SurveyState):
    before = copy.deepcopy(state)
    pending = replied_pending(run(state.choose("role", "buyer")))
    state = before  # the answer's state write was refused
    asked = run(state.go_next())
    assert calls(asked, "pendingAnswers") == [["41-survey-answers"]] and state.errors == {} and state.index == 0
    run(state.go_next_with(json.dumps(pending)))
    assert state.errors == {} and state.index == 1
    assert state._answers["role"]["value"] == "buyer"


def test_continue_without_an_answer_anywhere_still_says_it_is_required(state: SurveyState):
    run(state.go_next())
    run(state.go_next_with("{}"))
    assert state.errors == {"role": "Answer is required"} and state.index == 0


@pytest.mark.parametrize(
    "pending",
    [
        "[]",
        "not json",
        json.dumps({"role": {"answer": "x", "seq": 5}}),
        json.dumps({"role": {"answer": {"value": "buyer"}, "seq": True}}),
        json.dumps({"role": {"answer": {"value": "buyer"}, "seq": 2**60}}),
        json.dumps({"nope": {"answer": {"value": "buyer"}, "seq": 5}}),
    ],
)
def test_malformed_pending_answers_change_nothing(state: SurveyState, pending: str):
    run(state.go_next_with(pending))
    run(
        state.bridge(
            json.dumps(
                {"kind": "pending", "testId": 41, "pending": json.loads(pending) if pending != "not json" else 1}
            )
        )
    )
    assert state._answers == {} and state._seqs == {}


def test_a_preview_keeps_no_local_copy_so_continue_says_it_is_required_at_once(state: SurveyState):
    state.store_key = ""  # a staff preview: nothing is kept in the browser
    assert calls(run(state.go_next()), "pendingAnswers") == []
    assert state.errors == {"role": "Answer is required"}


def test_a_retry_of_a_branch_removed_answer_stays_removed(state: SurveyState, monkeypatch):
    """An answer a later change removed (a survey branch) keeps its number: an older retry of it does
    not bring it back."""
    old = replied_pending(run(state.set_text("why", "cheaper")))

    def forget_why(self, definition, index, previous, answer, answers):
        return {k: v for k, v in answers.items() if k != "why"} if index == 0 else answers

    monkeypatch.setattr(SurveyState, "_changed", forget_why)
    run(state.choose("role", "buyer"))
    assert "why" not in state._answers and state._seqs["why"] > old["why"]["seq"]
    run(state.bridge(pending_report(old)))
    assert "why" not in state._answers
