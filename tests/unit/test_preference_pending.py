"""A preference test's choice and reason are saved truthfully, as the survey's answers are
(tests/unit/test_answer_sequence.py): each change carries sequence numbers and is pending in the
browser until a later event confirms it, a lost one is applied again, an older retry never overwrites
a newer change, a reason is never applied to another concept than the one it was typed for, and
Continue / Next take the browser's pending answers instead of saying one is required.

The preference state is driven directly (no app); a 'refused state write' is simulated as Reflex
refuses it: the next event loads a copy of the state taken before the refused event ran."""

from __future__ import annotations

import copy
import json

import pytest

from portal.domain.taking.kinds import preference as rules
from portal.domain.taking.survey_answers import MAX_TEXT_LENGTH
from portal.services.taking.definitions import TestDefinition
from portal.states.taking import core as taking_core
from portal.states.taking.preference import ANSWER, CHOOSE, PreferenceState
from portal.states.taking.timed_session import END
from tests.support.pending import calls, confirmed_seqs, driven_state, replied_pending, run

CONTENT = {
    "preferenceTest": {
        "preferenceType": "image",
        "isLimited": False,
        "images": [
            {"key": "concept-a", "name": "Calm", "url": "/a.png"},
            {"key": "concept-b", "name": "Bold", "url": "/b.png"},
            {"key": "concept-c", "name": "Plain", "url": "/c.png"},
        ],
    }
}
DEFINITION = TestDefinition(
    test_id=42,
    name="Preference",
    product_type="preference",
    panel="internal",
    kind="preference",
    content=CONTENT,
    questions=[],
    conditional=False,
)
STORE = "42-preference-answer"
REASON = "It looks calm and it says who the product is for."


@pytest.fixture
def state(monkeypatch) -> PreferenceState:
    monkeypatch.setattr(taking_core.ServerCore, "queue", lambda self, draft: None)
    s = driven_state(monkeypatch, PreferenceState, DEFINITION, STORE)
    s._restore({}, {"step": CHOOSE}, DEFINITION)
    assert s.phase == CHOOSE
    return s


def report(pending: dict) -> str:
    return json.dumps({"kind": "pending", "testId": 42, "pending": pending})


def answered(state: PreferenceState, concept: str = "concept-a", text: str = REASON) -> tuple[dict, dict]:
    """Choose `concept`, continue and type `text`: the pending answers of the choice's and the text's replies."""
    chose = replied_pending(run(state.choose(concept)))
    run(state.to_answer(concept))
    typed = replied_pending(run(state.set_answer_text(concept, text, state.epoch)))
    return chose, typed


def rechosen_lost(state: PreferenceState, concept: str) -> tuple[PreferenceState, dict]:
    """Concept A chosen and answered, then `concept` chosen instead, and that write refused: the state
    the next event loads, and the pending answers of the lost choice's reply."""
    answered(state)
    run(state.back_to_choose())
    before = copy.deepcopy(state)
    lost = replied_pending(run(state.choose(concept)))
    assert before._answers["selectedConcept"] == "concept-a"
    return before, lost


def test_a_choice_and_a_reason_are_pending_with_their_numbers_and_confirmed_by_a_later_event(state: PreferenceState):
    chose, typed = answered(state)
    # the choice clears the reason (a new concept): both are pending, the choice numbered first
    assert chose["selectedConcept"]["answer"] == {"value": "concept-a"}
    assert chose["answer"]["answer"] == {"value": "", "concept": "concept-a"}
    assert chose["selectedConcept"]["seq"] < chose["answer"]["seq"]
    # the reason names the concept it was typed for, and restates the choice as of its change
    assert typed["answer"]["answer"] == {"value": REASON, "concept": "concept-a"}
    assert (
        typed["answer"]["seq"] > chose["answer"]["seq"]
        and typed["selectedConcept"]["seq"] > chose["selectedConcept"]["seq"]
    )
    assert state._seqs == {"selectedConcept": typed["selectedConcept"]["seq"], "answer": typed["answer"]["seq"]}
    # the state was stored: the next event confirms both
    assert confirmed_seqs(run(state.bridge(report({**chose, **typed})))) == state._seqs


def test_a_lost_reason_is_applied_again_and_confirmed_by_the_next_ask(state: PreferenceState):
    answered(state, text="short")
    before = copy.deepcopy(state)  # what Redis holds when the next write is refused
    lost = replied_pending(run(state.set_answer_text("concept-a", REASON, state.epoch)))
    state = before
    assert state._answers["answer"] == "short"
    events = run(state.bridge(report(lost)))
    assert confirmed_seqs(events) == {}  # not confirmed by the event that applies it again ...
    assert state._answers["answer"] == REASON and state.answer_text == REASON
    assert state._seqs["answer"] == lost["answer"]["seq"]
    assert calls(events, "reply")[-1][2]["answer"]["answer"] == {"value": REASON, "concept": "concept-a"}
    # ... but by the next one
    assert confirmed_seqs(run(state.bridge(report(lost)))) == {k: e["seq"] for k, e in lost.items()}


def test_a_lost_choice_is_applied_again_and_clears_the_old_reason(state: PreferenceState):
    state, lost = rechosen_lost(state, "concept-b")
    run(state.bridge(report(lost)))
    assert state._answers == {"selectedConcept": "concept-b", "answer": ""} and state.selected == "concept-b"
    assert confirmed_seqs(run(state.bridge(report(lost)))) == {k: e["seq"] for k, e in lost.items()}


def test_a_retried_older_reason_never_overwrites_a_newer_one(state: PreferenceState):
    _, older = answered(state, text="first thoughts")
    newer = replied_pending(run(state.set_answer_text("concept-a", REASON, state.epoch)))
    events = run(state.bridge(report(older)))
    assert state._answers["answer"] == REASON
    assert confirmed_seqs(events) == {k: e["seq"] for k, e in newer.items()}  # superseded: no longer pending
    run(state.to_confirm_with(json.dumps(older)))
    assert state._answers["answer"] == REASON


def test_a_reason_for_the_old_concept_is_never_applied_to_the_new_one(state: PreferenceState):
    _, for_a = answered(state)
    run(state.back_to_choose())
    run(state.choose("concept-b"))  # a new concept clears the reason typed for concept A
    # the old reason comes back (a retry sent before the new choice was confirmed): older, superseded
    events = run(state.bridge(report(for_a)))
    assert state._answers == {"selectedConcept": "concept-b", "answer": ""}
    assert confirmed_seqs(events)["answer"] > for_a["answer"]["seq"]
    # even with a number newer than every change: it names concept A, and B is chosen
    forged = {"answer": {"answer": {"value": REASON, "concept": "concept-a"}, "seq": state._seq + 10}}
    run(state.bridge(report(forged)))
    run(state.to_answer_with(json.dumps(forged)))
    assert state._answers == {"selectedConcept": "concept-b", "answer": ""}


def test_a_reason_kept_in_the_browsers_copy_for_another_concept_is_not_restored(state: PreferenceState):
    copy_ = {"selectedConcept": {"value": "concept-b"}, "answer": {"value": REASON, "concept": "concept-a"}}
    state._restore(copy_, {"step": ANSWER}, DEFINITION)
    assert state._answers == {"selectedConcept": "concept-b", "answer": ""}
    state._restore({**copy_, "answer": {"value": REASON, "concept": "concept-b"}}, {"step": ANSWER}, DEFINITION)
    assert state._answers == {"selectedConcept": "concept-b", "answer": REASON} and state.phase == ANSWER


def test_next_asks_the_browser_for_a_reason_the_state_lost_instead_of_answer_is_required(state: PreferenceState):
    answered(state, text="")
    before = copy.deepcopy(state)
    lost = replied_pending(run(state.set_answer_text("concept-a", REASON, state.epoch)))
    state = before
    asked = run(state.to_confirm("concept-a"))
    assert calls(asked, "pendingAnswers") == [[STORE]]
    assert state.answer_error == "" and state.phase == ANSWER
    run(state.to_confirm_with(json.dumps(lost)))
    assert state.answer_error == "" and state.phase == END and state._answers["answer"] == REASON


def test_continue_asks_the_browser_for_a_choice_the_state_lost(state: PreferenceState):
    before = copy.deepcopy(state)
    lost = replied_pending(run(state.choose("concept-b")))
    state = before
    asked = run(state.to_answer("concept-b"))
    assert calls(asked, "pendingAnswers") == [[STORE]] and state.choose_error == "" and state.phase == CHOOSE
    run(state.to_answer_with(json.dumps(lost)))
    assert state.phase == ANSWER and state._answers["selectedConcept"] == "concept-b" and state.choose_error == ""


def test_continue_asks_when_the_state_holds_an_older_choice_than_the_page(state: PreferenceState):
    state, lost = rechosen_lost(state, "concept-c")
    assert calls(run(state.to_answer("concept-c")), "pendingAnswers") == [[STORE]] and state.phase == CHOOSE
    run(state.to_answer_with(json.dumps(lost)))
    assert state.phase == ANSWER and state._answers == {"selectedConcept": "concept-c", "answer": ""}


def test_continue_and_next_with_what_the_state_holds_ask_nothing(state: PreferenceState):
    answered(state)
    run(state.back_to_choose())
    assert calls(run(state.to_answer("concept-a")), "pendingAnswers") == [] and state.phase == ANSWER
    assert calls(run(state.to_confirm("concept-a")), "pendingAnswers") == [] and state.phase == END


def test_next_without_a_reason_anywhere_still_says_it_is_required(state: PreferenceState):
    answered(state, text="")
    run(state.to_confirm("concept-a"))
    assert state.answer_error == ""
    run(state.to_confirm_with("{}"))
    assert state.answer_error == rules.REQUIRED and state.phase == ANSWER


def test_a_preview_keeps_no_local_copy_so_next_says_it_is_required_at_once(state: PreferenceState):
    answered(state, text="")
    state.store_key = ""
    assert calls(run(state.to_confirm("concept-a")), "pendingAnswers") == []
    assert state.answer_error == rules.REQUIRED


def _entry(answer, seq=None) -> dict:
    return {"answer": answer, "seq": 2**50 if seq is None else seq}


@pytest.mark.parametrize(
    "pending",
    [
        {"selectedConcept": _entry({"value": "concept-z"})},  # not a concept of this test
        {"selectedConcept": _entry({"value": ["concept-b"]})},
        {"selectedConcept": _entry("concept-b")},  # not an object
        {"selectedConcept": _entry({"value": "concept-b", "extra": 1})},
        {"selectedConcept": _entry({"value": "concept-b"}, seq=True)},
        {"selectedConcept": _entry({"value": "concept-b"}, seq=2**60)},
        {"answer": _entry({"value": "x" * (MAX_TEXT_LENGTH + 1), "concept": "concept-a"})},  # over-long
        {"answer": _entry({"value": REASON})},  # no concept named
        {"answer": _entry({"value": REASON, "concept": "concept-b"})},  # another concept
        {"answer": _entry({"value": 5, "concept": "concept-a"})},
        {"answer": _entry(REASON)},
        {"pasteMetadata": _entry({"wasPasted": True, "pasteTimestamp": "", "pastedLength": 5})},  # not pending-covered
    ],
)
def test_malformed_pending_answers_change_nothing(state: PreferenceState, pending: dict):
    answered(state, text="")
    answers, seqs = dict(state._answers), dict(state._seqs)
    run(state.bridge(report(pending)))
    run(state.to_confirm_with(json.dumps(pending)))
    assert state._answers == answers and state._seqs == seqs
    assert state.answer_error == rules.REQUIRED  # Next went on with the state's (empty) reason
