"""'Report a problem' (issue 38, item 4) as raw websocket events and requests: nobody reports on a test they are not
taking (a participant without a session of it, an anonymous visitor, a participant on a tab a taker used, any test
id sent in the event), reports from outside the test-taking state do nothing, and a participant's events to the
reports page's handlers resume or close nothing; no traceback in the server log."""

from __future__ import annotations

from sqlmodel import func, select

from portal.models import ProblemReport, Test
from portal.states.admin.problem_reports import AdminReportsState
from portal.states.taking.survey import SurveyState
from tests.support.people import ANONYMOUS, demo_test, invite, person
from tests.support.raw_tab import RawTab, run, tracebacks

SURVEY = SurveyState.get_full_name()
REPORTS = AdminReportsState.get_full_name()
FORM = {"form": {"category": "timer", "text": "Stuck"}}


def reports(app_server) -> int:
    with app_server.db() as db:
        return db.exec(select(func.count()).select_from(ProblemReport)).one()


def test_nobody_reports_on_a_test_they_are_not_taking(app_server):
    with app_server.db() as db:
        test = demo_test(db, "01-survey.json")
        paused = demo_test(db, "01-survey.json")
        test.participant_limit = 10
        paused.status = "paused"
        db.add_all([test, paused])
        db.commit()
        outsider, taker = person(db), person(db)
        invite(db, taker, test)
        test_id, paused_id = test.id, paused.id
    before = reports(app_server)

    async def scenario() -> str:
        # The taker starts the survey in a tab of their own (a real session of this test).
        mine = RawTab(app_server.url, cookie=taker.cookie)
        await mine.open(f"/test/{test_id}/rate", {"rate_test_id": str(test_id)}, settle=1.5)
        await mine.send(f"{SURVEY}.begin")
        await mine.send(f"{SURVEY}.start_survey")
        await mine.close()
        for cookie, token in ((outsider.cookie, None), (ANONYMOUS.cookie, None), (outsider.cookie, mine.token)):
            tab = RawTab(app_server.url, cookie=cookie, token=token)
            await tab.open(f"/test/{test_id}/rate", {"rate_test_id": str(test_id)}, settle=1.0)
            await tab.send(f"{SURVEY}.report_problem", FORM)
            await tab.send(f"{SURVEY}.report_problem", {"form": ["not", "a", "form"]})
            await tab.send(f"{SURVEY}.open_report", {})
            # The reports page's handlers, as a participant or nobody.
            await tab.answer(f"{REPORTS}.resume", {"test_id": str(paused_id)})
            await tab.answer(f"{REPORTS}.ask_close", {"test_id": str(paused_id)})
            await tab.answer(f"{REPORTS}.confirm_close", {})
            await tab.close()
        return mine.token

    token = run(scenario())
    assert reports(app_server) == before

    async def the_taker_reports() -> None:  # the control: the taker's own tab does report
        tab = RawTab(app_server.url, cookie=taker.cookie, token=token)
        await tab.open(f"/test/{test_id}/rate", {"rate_test_id": str(test_id)}, settle=1.5)
        await tab.send(f"{SURVEY}.report_problem", FORM)
        await tab.close()

    run(the_taker_reports())
    assert reports(app_server) == before + 1
    with app_server.db() as db:
        assert db.get(Test, paused_id).status == "paused"
    assert tracebacks(app_server.log_path.read_text()) == []
