"""Which websocket frames reach a handler (portal/states/event_guard.event_problem)."""

from types import SimpleNamespace

from portal.states.event_guard import event_problem


class Fake:
    def answer(self, key: str, value: str = ""):
        pass

    def anything(self, **kwargs):
        pass


HANDLERS = {
    "s.answer": SimpleNamespace(handler=SimpleNamespace(fn=Fake.answer)),
    "s.anything": SimpleNamespace(handler=SimpleNamespace(fn=Fake.anything)),
    "s.setvar": SimpleNamespace(handler=SimpleNamespace(fn=Fake.anything)),
}


def test_a_well_formed_event_passes():
    assert event_problem({"name": "s.answer", "payload": {"key": "q1"}}, HANDLERS) is None
    assert event_problem({"name": "s.answer", "payload": {"key": "q1", "value": "v"}}, HANDLERS) is None
    assert event_problem({"name": "s.anything", "payload": {"x": 1}}, HANDLERS) is None


def test_malformed_events_are_refused_with_a_reason():
    cases = [
        ["event"], "text", None,
        {"payload": {}}, {"name": 5}, {"name": "x" * 301},
        {"name": "s.nope", "payload": {}}, {"name": "s._private", "payload": {}},
        {"name": "s.setvar", "payload": {"var_name": "is_staff", "value": True}},
        {"name": "s.answer", "payload": []}, {"name": "s.answer", "payload": {"key": "q", "extra": 1}},
        {"name": "s.answer", "payload": {"value": "v"}},
    ]
    for frame in cases:
        assert isinstance(event_problem(frame, HANDLERS), str), frame
