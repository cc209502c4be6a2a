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
        ["event"],
        "text",
        None,
        {"payload": {}},
        {"name": 5},
        {"name": "x" * 301},
        {"name": "s.nope", "payload": {}},
        {"name": "s._private", "payload": {}},
        {"name": "s.setvar", "payload": {"var_name": "is_staff", "value": True}},
        {"name": "s.answer", "payload": []},
        {"name": "s.answer", "payload": {"key": "q", "extra": 1}},
        {"name": "s.answer", "payload": {"value": "v"}},
    ]
    for frame in cases:
        assert isinstance(event_problem(frame, HANDLERS), str), frame


BROWSER_ROUTER = {
    "pathname": "/test/7/rate",
    "asPath": "/test/7/rate?x=1#top",
    "query": {"x": "1", "rate_test_id": "7"},
}


def test_the_router_data_a_browser_sends_passes():
    for router in (
        BROWSER_ROUTER,
        {},
        {"pathname": "/", "asPath": "/"},
        {**BROWSER_ROUTER, "query": {"tag": ["a", "b"]}},
    ):
        assert event_problem({"name": "s.answer", "payload": {"key": "q"}, "router_data": router}, HANDLERS) is None
    # Fields Reflex does not read (the browser's event_actions, handler) are left to it.
    assert (
        event_problem(
            {
                "name": "s.answer",
                "payload": {"key": "q"},
                "router_data": BROWSER_ROUTER,
                "event_actions": 5,
                "handler": [1],
            },
            HANDLERS,
        )
        is None
    )


def test_router_data_of_the_wrong_type_is_refused_before_reflex_reads_it():
    bad = [
        None,
        5,
        "x",
        [],
        True,
        *(
            {**BROWSER_ROUTER, field: value}
            for field in ("pathname", "asPath")
            for value in (None, 5, [], {"a": 1}, "/" * 9000)
        ),
        *(
            {**BROWSER_ROUTER, "query": value}
            for value in (None, "x", [], {"a": 5}, {"a": None}, {"a": {"b": "c"}}, {"a": [1]}, {"a": "x" * 9000})
        ),
        *({**BROWSER_ROUTER, field: "x"} for field in ("headers", "ip", "sid", "token", "other")),
    ]
    for router in bad:
        problem = event_problem({"name": "s.answer", "payload": {"key": "q"}, "router_data": router}, HANDLERS)
        assert isinstance(problem, str) and "router data" in problem, router
