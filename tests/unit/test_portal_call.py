"""`portal_call` and `run_script` give the browser the same event as `rx.call_script` (they only skip
building it through Vars and recomputing its signature on every call): the event Reflex sends, with the
same name and payload as the frontend receives them."""

from __future__ import annotations

import reflex as rx

from portal.states.browser import _WHEN_LOADED, portal_call


def _sent(spec) -> tuple[str, dict]:
    """The event as Reflex sends it to the browser."""
    from reflex_base.event import Event

    (event,) = Event.from_event_type(spec)
    return event.name, event.payload


def test_portal_call_sends_what_call_script_sends():
    code = 'window.portalTaking.reply("7-survey-answers", {"a": "x \\" y"}, {})'
    spec = portal_call(code)
    expected = rx.call_script(f"(window.portalJsLoaded ? ({code}) : {_WHEN_LOADED}.then(() => ({code})))")
    assert _sent(spec) == _sent(expected)


def test_portal_call_with_a_callback_still_goes_through_call_script():
    from portal.states.taking.survey import SurveyState

    spec = portal_call("window.portalTaking.who(7)", callback=SurveyState.enter_public)
    assert _sent(spec)[0] == "_call_script"
    assert "enter_public" in str(_sent(spec)[1]["callback"])


def test_run_script_sends_what_call_script_sends():
    from portal.states.browser import run_script

    for code in ("window.scrollTo(0, 0)", "window.history.replaceState(window.history.state, '', \"/test/7/rate\")"):
        assert _sent(run_script(code)) == _sent(rx.call_script(code))
