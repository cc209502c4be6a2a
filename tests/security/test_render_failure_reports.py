"""The page's render-failure report (RenderFailureState.report) is callable by any browser with anything:
it takes only bounded text, never raises, and a tab is heard MAX_REPORTS_PER_TAB times at most."""

from __future__ import annotations

from portal.states.render_failure import MAX_REPORTS_PER_TAB, RenderFailureState
from portal.states.taking.survey import SurveyState
from tests.support.people import ANONYMOUS
from tests.support.raw_tab import RawTab, run, tracebacks
from tests.support.sentry_server import SentryServer

REPORT = f"{RenderFailureState.get_full_name()}.report"
LINE = "the browser failed to render page:"


def test_hostile_render_failure_reports_are_bounded_and_leave_no_traceback(app_server, sentry_server: SentryServer):
    log_start = app_server.log_path.stat().st_size
    payloads = [
        {"error": {"name": "TypeError"}, "component_stack": ["at X"]},
        {"error": "TypeError: " + "x" * 100_000, "component_stack": "y" * 100_000},
        {"error": None, "component_stack": 5},
        {"error": "RangeError: lone \ud800 surrogate\x00", "component_stack": {"deep": [[[]]]}},
        {"error": 3.5, "component_stack": True},
        {"error": "Error: one more than a tab may send", "component_stack": ""},
        {"error": "Error: and another", "component_stack": ""},
    ]

    async def attack() -> None:
        tab = RawTab(app_server.url, cookie=ANONYMOUS.cookie)
        await tab.open("/sign-in", settle=0.5)
        for payload in payloads:
            tab.emit(REPORT, payload)
        assert await tab.alive(f"{SurveyState.get_full_name()}.noop")
        await tab.close()

    run(attack())
    log = app_server.log_path.read_bytes()[log_start:].decode(errors="replace")
    assert tracebacks(log) == []
    reported = [line for line in log.splitlines() if LINE in line]
    assert len(reported) == MAX_REPORTS_PER_TAB
    assert all(len(line) < 1200 for line in reported)  # the browser's text is cut, not logged whole
    assert "one more than a tab may send" not in log
    sentry_server.wait_for_event(lambda e: "RangeError" in str(e.get("exception")))
