"""The probe's hostile websocket events, each by itself: a lone surrogate in the invites search is
answered (cleaned), a survey event before entering a survey gets a message and no traceback, and
malformed events are refused with one log line each."""

from __future__ import annotations

from portal.states.table import InvitesTableState
from portal.states.taking.survey import SurveyState
from tests.support.people import person
from tests.support.raw_tab import RawTab, run, tracebacks

SURVEY = SurveyState.get_full_name()
INVITES = InvitesTableState.get_full_name()


def test_hostile_events_are_answered_or_refused_without_a_traceback(app_server):
    with app_server.db() as db:
        who = person(db)
    log_start = app_server.log_path.stat().st_size

    async def attack() -> RawTab:
        tab = RawTab(app_server.url, cookie=who.cookie)
        await tab.open("/", settle=1.0)
        # A lone surrogate and control characters in the search: answered, kept without them.
        await tab.send(f"{INVITES}.search", {"text": "ac\ud800me\x00"})
        # Survey events on a tab that never entered a survey: ignored, or refused with a message.
        for name, payload in (
            (f"{SURVEY}.start_survey", {}),
            (f"{SURVEY}.go_next", {}),
            (f"{SURVEY}.submit", {}),
            (f"{SURVEY}.extend_time", {}),
            (f"{SURVEY}.set_text", {"key": "q", "text": "x"}),
        ):
            tab.emit(name, payload)
        assert await tab.alive(f"{SURVEY}.noop")
        # Malformed events: refused (no answer), and the tab is still served afterwards.
        for raw in (
            {"name": f"{SURVEY}._refresh", "payload": {}},
            {"name": f"{SURVEY}.setvar", "payload": {"var_name": "test_id", "value": 1}},
            {"name": f"{SURVEY}.set_text", "payload": {"wrong": 1}},
            {"name": "no.such.handler", "payload": {}},
            {"name": f"{SURVEY}.submit", "payload": "not an object"},
            ["not", "an", "event"],
        ):
            tab.emit("", raw=raw)
        assert await tab.alive(f"{SURVEY}.noop")
        await tab.close()
        return tab

    tab = run(attack())
    assert tab.var(INVITES, "search_text") == "acme"
    assert "This test is not available." in tab.text()  # the refusal reached the tab as its message
    log = app_server.log_path.read_bytes()[log_start:].decode(errors="replace")
    assert tracebacks(log) == []
    assert log.count("refused a websocket event") == 6
