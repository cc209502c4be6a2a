"""A page load (hydrate) sends a snapshot of every state of the app. A state never stored and still at
its defaults gives its class's default values, worked out once per process: the snapshot must be the
one Reflex itself makes, state by state, and a state holding values must give those values."""

from __future__ import annotations

import asyncio

from reflex.state import BaseState, State, _resolve_delta
from reflex_base.utils import format

import portal.portal  # noqa: F401 - the app: every state registered
from portal.states.sign_in import SignInState
from portal.states.tab_owner import _DEFAULT_SNAPSHOTS, _snapshot_cacheable
from portal.states.taking.preference import PreferenceState
from portal.states.taking.survey import SurveyState


def _states(root):
    yield root
    yield from root.substates.values()


def _snapshot(root) -> str:
    return format.json_dumps(asyncio.run(_resolve_delta(root.dict())))


def _reflex_snapshot(root) -> str:
    """Reflex's own `BaseState.dict`, state by state (no state of the portal has substates)."""
    found = {}
    for state in _states(root):
        found[state.get_full_name()] = BaseState.dict(state)[state.get_full_name()]
    return format.json_dumps(asyncio.run(_resolve_delta(found)))


def _new_tab():
    root = State(_reflex_internal_init=True)
    root._reset_client_storage()
    root._clean()
    return root


def _state(root, cls):
    return next(s for s in _states(root) if type(s) is cls)


def test_a_new_tabs_snapshot_is_reflexs_own_the_first_time_and_after():
    _DEFAULT_SNAPSHOTS.clear()
    first, again = _new_tab(), _new_tab()
    assert _snapshot(first) == _reflex_snapshot(_new_tab())
    assert any(value is not None for value in _DEFAULT_SNAPSHOTS.values())  # worked out once ...
    assert _snapshot(again) == _reflex_snapshot(_new_tab())  # ... and given again, the same


def test_a_state_holding_values_gives_its_values_not_its_defaults():
    _snapshot(_new_tab())  # the defaults are known
    root = _new_tab()
    survey = _state(root, SurveyState)
    survey.phase = "questions"
    survey.current = {"key": "q1", "title": "How clear is the headline?"}
    survey.index = 0
    sent = _snapshot(root)
    assert '"phase_rx_state_": "questions"' in sent and "How clear is the headline?" in sent
    assert sent == _reflex_snapshot(root)


def test_a_change_made_to_one_tabs_values_does_not_reach_the_defaults():
    _DEFAULT_SNAPSHOTS.clear()
    root = _new_tab()
    _snapshot(root)  # the first snapshot of each state is worked out from this tab's states
    preference = _state(root, PreferenceState)
    preference.concepts.append({"key": "a", "label": "Concept A", "url": "", "letter": "A"})  # in place
    assert "Concept A" not in _snapshot(_new_tab())
    assert _snapshot(_new_tab()) == _reflex_snapshot(_new_tab())


def test_a_page_load_still_resets_the_browser_stored_vars():
    root = _new_tab()
    sign_in = _state(root, SignInState)
    sign_in.last_login_method = "google"
    root._reset_client_storage()
    assert sign_in.last_login_method == SignInState.get_fields()["last_login_method"].default_value()


class _Computed:
    """Just what `_snapshot_cacheable` reads of a state class."""

    def __init__(self, name, dependencies=None, always=(), interval=(), substates=()):
        self.name, self._var_dependencies = name, dependencies or {}
        self._always_dirty_computed_vars, self._interval_computed_var_names = set(always), frozenset(interval)
        self.substates, self.root = list(substates), None

    def get_full_name(self):
        return self.name

    def get_root_state(self):
        return self.root

    def get_substates(self):
        return self.substates


def _tree(*substates):
    root = _Computed("root", substates=substates)
    for state in (root, *substates):
        state.root = root
    return root


def test_a_state_whose_computed_var_reads_another_state_is_worked_out_each_time():
    own = _Computed("root.own", {"count": {("root.own", "label")}})
    reads_router = _Computed("root.reads_router")
    root = _tree(own, reads_router)
    root._var_dependencies = {"router": {("root.reads_router", "path_label")}}
    assert _snapshot_cacheable(own)
    assert not _snapshot_cacheable(reads_router)
    assert not _snapshot_cacheable(_tree(_Computed("root.uncached", always={"now"})).substates[0])
    assert not _snapshot_cacheable(_tree(_Computed("root.timed", interval={"clock"})).substates[0])


def test_every_state_of_the_portal_is_worked_out_once():
    """The control for the rule above: the portal's states read only their own vars today."""
    root = _new_tab()
    assert all(_snapshot_cacheable(type(s)) for s in _states(root) if type(s) is not State and type(s).computed_vars)


# --- a first hydrate: the browser still holds the compiled defaults (its hashes match) -------------


def _compiled_hashes() -> list[str]:
    from reflex.compiler.utils import compile_state
    from reflex.state import state_snapshot_hashes

    return state_snapshot_hashes(compile_state(State))


def _first_hydrate_delta(root, hashes, *, shortcut: bool) -> str:
    """What a first hydrate sends: the snapshot, diffed against the browser's defaults by Reflex."""
    from reflex.state import _diff_against_initial_state

    from portal.states.page_load import _defaults_held
    from portal.states.tab_owner import BROWSER_HOLDS_DEFAULTS

    async def go():
        token = BROWSER_HOLDS_DEFAULTS.set(await _defaults_held(State, hashes) if shortcut else {})
        try:
            snapshot = await _resolve_delta(root.dict())
        finally:
            BROWSER_HOLDS_DEFAULTS.reset(token)
        return snapshot, await _diff_against_initial_state(State, snapshot, hashes)

    snapshot, delta = asyncio.run(go())
    if shortcut:  # the states the browser holds at their defaults were never serialized var by var
        assert sum(1 for values in snapshot.values() if values == {}) > 20
    return format.json_dumps(delta)


def test_a_first_hydrate_sends_what_reflexs_diff_sends_and_skips_the_defaults_the_browser_holds():
    hashes = _compiled_hashes()
    _snapshot(_new_tab())  # the class snapshots are known
    fresh = _new_tab()
    assert _first_hydrate_delta(fresh, hashes, shortcut=True) == _first_hydrate_delta(fresh, hashes, shortcut=False)
    root = _new_tab()
    survey = _state(root, SurveyState)
    survey.phase, survey.title = "welcome", "A headline test"
    sent = _first_hydrate_delta(root, hashes, shortcut=True)
    assert "A headline test" in sent and sent == _first_hydrate_delta(root, hashes, shortcut=False)


def test_other_hashes_or_none_send_every_state_in_full():
    from portal.states.page_load import _defaults_held

    hashes = _compiled_hashes()
    assert asyncio.run(_defaults_held(State, ["0" * 16, *hashes[1:]])) == {}  # another build's states
    assert asyncio.run(_defaults_held(State, hashes[:-1])) == {}  # a state missing
    assert asyncio.run(_defaults_held(State, None)) == {} and asyncio.run(_defaults_held(State, [1, 2])) == {}
    held = asyncio.run(_defaults_held(State, [hashes[0], "f" * 16, *hashes[2:]]))  # one state's defaults differ
    assert held and sorted(_compiled_names())[0] not in held


def _compiled_names() -> list[str]:
    from reflex.compiler.utils import compile_state

    return list(compile_state(State))
