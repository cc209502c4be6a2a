"""What a tab writes to the state store (Redis): a state never stored and still at its defaults is not
written, even once a page load (hydrate) filled its cached computed vars; a state stored once is always
written when touched, so a reset to its defaults replaces what the store holds (someone else's values)."""

from __future__ import annotations

import pickle

from reflex.state import State

import portal.portal  # noqa: F401 - the app: every state registered
from portal.states.tab_owner import _DEFAULT_SNAPSHOTS, _STORED, TabOwned, _claim
from portal.states.taking.survey import SurveyState


def _tree(state):
    yield state
    for substate in state.substates.values():
        yield from _tree(substate)


def _written(root) -> list[type]:
    """The states the Redis state manager writes (StateManagerRedis._collect_state_writes' rule)."""
    return [type(s) for s in _tree(root) if s._was_touched and s._serialize()]


def _survey(root) -> SurveyState:
    return next(s for s in _tree(root) if type(s) is SurveyState)


def test_a_page_load_of_a_new_tab_writes_no_state_left_at_its_defaults():
    _DEFAULT_SNAPSHOTS.clear()  # as in a new worker: the first snapshot of each state is worked out
    root = State(_reflex_internal_init=True)
    root.dict()  # the hydrate's full snapshot: fills every cached computed var
    touched = [type(s) for s in _tree(root) if s._was_touched and issubclass(type(s), TabOwned)]
    assert len(touched) > 5  # the control: Reflex marks the states whose caches it filled
    assert [cls for cls in _written(root) if issubclass(cls, TabOwned)] == []


def test_a_claimed_state_at_its_defaults_is_not_written_a_changed_one_is():
    root = State(_reflex_internal_init=True)
    survey = _survey(root)
    _claim(survey, "account:1")
    assert SurveyState not in _written(root)
    survey.phase = "questions"
    assert SurveyState in _written(root)


def test_the_flag_is_not_stored_and_a_stored_state_reset_to_its_defaults_is_written():
    root = State(_reflex_internal_init=True)
    survey = _survey(root)
    survey._tab_owner = "account:1"
    survey.phase = "questions"
    payload = survey._serialize()
    assert _STORED.encode() not in payload
    assert survey.__dict__.get(_STORED) is True  # written once: stored
    survey.reset()
    assert survey._serialize()  # back at its defaults, still written: the store's copy is replaced

    _schema, loaded = pickle.loads(payload)
    assert loaded.phase == "questions" and loaded._tab_owner == "account:1"
    _claim(loaded, "account:2")  # someone else's: reset to the defaults
    assert loaded.phase != "questions"
    assert loaded._serialize()  # loaded from the store: the reset is written over account 1's values
