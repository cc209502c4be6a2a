"""The signals a survey and a preference state record while the test is taken (issue 36), driven
directly (no app): seconds per question / step on the server's clock, the browser's measures carried
by a text answer's event (checked: bad input dropped, never raised), all kept in the draft's position
so a reload or a restarted backend resumes them, and handed to the submission."""

from __future__ import annotations

from typing import Any

import pytest

from portal.domain.taking import survey_view as view
from portal.services.taking.definitions import TestDefinition
from portal.states.taking import core as taking_core
from portal.states.taking import timed_session
from portal.states.taking.survey import SurveyState
from tests.support.pending import driven_state, run

QUESTIONS = [
    {
        "key": "role",
        "type": "single-choice",
        "text": "Your role?",
        "isRequired": True,
        "options": [{"value": "buyer", "label": "Buyer"}, {"value": "seller", "label": "Seller"}],
    },
    {"key": "why", "type": "short-text", "text": "Why?", "isRequired": True},
]
DEFINITION = TestDefinition(
    test_id=41,
    name="Signals",
    product_type="survey",
    panel="internal",
    kind="survey",
    content={},
    questions=QUESTIONS,
    conditional=False,
)


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def time(self) -> float:
        return self.now

    def time_ns(self) -> int:
        return int(self.now * 1e9)


@pytest.fixture
def clock(monkeypatch) -> Clock:
    found = Clock()
    monkeypatch.setattr(timed_session, "time", found)
    return found


@pytest.fixture
def queued(monkeypatch) -> list:
    drafts: list = []
    monkeypatch.setattr(taking_core.ServerCore, "queue", lambda self, draft: drafts.append(draft))
    return drafts


def survey(monkeypatch, position: dict[str, Any] | None = None) -> SurveyState:
    s = driven_state(monkeypatch, SurveyState, DEFINITION, "41-survey-answers")
    s.deadline_ms = 0
    s._restore({}, {"index": 0, "navigationHistory": [0], **(position or {})}, DEFINITION)
    s._refresh(DEFINITION)
    assert s.phase == view.QUESTIONS
    return s


def test_each_question_s_seconds_are_counted_when_it_is_left(monkeypatch, clock, queued):
    state = survey(monkeypatch)
    clock.now += 2.0
    run(state.go_next())  # no answer: refused, the clock runs on
    assert "question:role" not in state._signals
    run(state.choose("role", "buyer"))
    clock.now += 10.04
    run(state.go_next())
    assert state.index == 1 and state._signals == {"question:role": 12.0}
    clock.now += 3.0
    run(state.go_back())
    assert state._signals == {"question:role": 12.0, "question:why": 3.0}
    assert queued[-1].position["signals"] == state._signals  # kept with the draft
    clock.now += 1.0
    run(state.go_next())
    assert state._signals["question:role"] == 13.0
    assert state._signals_out() == state._signals


def test_a_text_answer_event_carries_the_browser_s_measures_checked(monkeypatch, clock, queued):
    state = survey(monkeypatch, {"index": 1, "navigationHistory": [0, 1]})
    measured = {
        "typing:why": 7.26,
        "leaves:why": 2,
        "away:why": 31.5,
        "typing:role": 3,  # not a free-text question
        "typing:nope": 3,
        "clicks:why": 1,
        "leaves:why ": 4,
    }
    run(state.set_text("why", "cheaper", measured))
    assert state._signals == {"typing:why": 7.3, "leaves:why": 2, "away:why": 31.5}
    assert queued[-1].position["signals"] == state._signals
    # an older or fresh-tab report never lowers a total; junk changes nothing and raises nothing
    for junk in ({"leaves:why": 1}, "typing:why=9", [1, 2], 5, None, {"typing:why": float("nan")}):
        run(state.set_text("why", "cheaper", junk))
    assert state._signals == {"typing:why": 7.3, "leaves:why": 2, "away:why": 31.5}


def test_a_reload_or_restarted_backend_resumes_the_signals_from_the_draft(monkeypatch, clock, queued):
    state = survey(monkeypatch)
    run(state.choose("role", "buyer"))
    clock.now += 4.0
    run(state.go_next())
    position = queued[-1].position
    fresh = survey(monkeypatch, {**position, "signals": {**position["signals"], "bad": 3, "question:x": "9"}})
    assert fresh._signals == {"question:role": 4.0}
    clock.now += 2.0
    run(fresh.go_back())
    assert fresh._signals == {"question:role": 4.0, "question:why": 2.0}
