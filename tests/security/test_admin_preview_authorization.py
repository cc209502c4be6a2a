"""The staff preview (/admin/tests/{id}/preview) by raw websocket events, as anonymous visitors,
participants and each staff role would send them: only staff get the test's content and reach the
end of the preview; nobody's events store anything (no review, reward, review session, invite
change, e-mail). A participant sending the preview's handlers, on the preview's address or with its
parameters on the rating page, gets no content of a test they are not invited to; a participant
on a tab a staff member previewed on gets nothing of that preview. And the scenario sends every
public handler the preview adds (PreviewState) and every handler of the timed-session core it runs on."""

from __future__ import annotations

import json
import uuid

import pytest
from sqlmodel import Session, select

from portal.domain.staff import roles
from portal.models import Invite, ProblemReport
from portal.states.admin.preview import PreviewState
from portal.states.taking.survey import SurveyState
from portal.states.taking.timed_session import TimedSession
from tests.e2e.test_admin_preview import stored
from tests.support.demo_survey import good_answers
from tests.support.people import ROOT, Person, caller, demo_test, invite, person
from tests.support.raw_tab import RawTab, run

PREVIEW, SURVEY = PreviewState.get_full_name(), SurveyState.get_full_name()
CALLERS = ("anonymous", "participant", *roles.ROLES)
# The timed-session core's own handlers (every kind has them): sent in preview mode below.
CORE = (
    "begin",
    "enter",
    "enter_public",
    "restore_local",
    "extend_time",
    "close_timeout",
    "noop",
    "bridge",
    "open_report",
    "report_problem",
    "close_report",
)


def world(db: Session) -> tuple[int, str, Person]:
    """A survey of the external panel (nobody invited but one other participant) whose welcome title is a
    marker no frame may carry unless staff previewed it."""
    marker = f"Secret survey {uuid.uuid4().hex[:10]}"
    survey = json.loads((ROOT / "portal/data/demo_tests/01-survey.json").read_text())["survey"]
    survey["welcomePage"]["title"] = marker
    test = demo_test(db, "01-survey.json", panel="external", survey=survey)
    other = person(db)
    invite(db, other, test)
    return test.id, marker, other


async def preview_by_events(base: str, who: Person, test_id: int) -> RawTab:
    """Every handler of the preview, in the order the page sends them, then the core's others."""
    tab = RawTab(base, cookie=who.cookie)
    await tab.open(f"/admin/tests/{test_id}/preview", {"test_id": str(test_id)})
    await tab.answer(f"{PREVIEW}.load")
    await tab.answer(f"{SURVEY}.begin")
    await tab.answer(f"{SURVEY}.start_survey")
    await tab.answer(f"{SURVEY}.restore_local", {"stored": json.dumps({"sessionId": 1, "dirty": True, "answers": {}})})
    for key, answer in good_answers().items():
        await tab.answer(f"{SURVEY}.set_answer", {"key": key, "answer": answer})
    await tab.answer(f"{SURVEY}.go_next")
    await tab.answer(f"{SURVEY}.extend_time")
    await tab.answer(f"{SURVEY}.close_timeout")
    await tab.answer(f"{SURVEY}.noop")
    # 'Report a problem' (issue 38): a preview sends no report.
    await tab.answer(f"{SURVEY}.open_report")
    await tab.answer(f"{SURVEY}.report_problem", {"form": {"category": "timer", "text": "From a preview"}})
    await tab.answer(f"{SURVEY}.close_report")
    await tab.answer(f"{SURVEY}.bridge", {"message": json.dumps({"kind": "check", "testId": test_id})})
    await tab.answer(f"{SURVEY}.submit", settle=0.8)
    phase = tab.var(SURVEY, "phase")
    # The participant's own ways in, on the preview's address: they leave preview mode (and the test
    # is not theirs to take).
    await tab.answer(f"{SURVEY}.enter", {"test_id": test_id})
    await tab.answer(f"{SURVEY}.enter_public", {"who": json.dumps({"testId": test_id, "id": "0" * 32, "project": ""})})
    await tab.answer(f"{SURVEY}.start_survey", settle=0.5)
    await tab.close()
    tab.preview_phase = phase  # type: ignore[attr-defined]
    return tab


@pytest.mark.parametrize("kind", CALLERS)
def test_only_staff_get_the_preview_and_nobody_stores_anything(app_server, kind):
    with app_server.db() as db:
        test_id, marker, _ = world(db)
        who = caller(db, kind)
        before = stored(db, test_id)
    tab = run(preview_by_events(app_server.url, who, test_id))
    staff = kind in roles.ROLES
    seen = tab.text()
    assert (marker in seen) is staff, kind  # the test's own texts reached only staff
    assert tab.preview_phase == "thank-you" if staff else tab.preview_phase in (None, "loading"), (
        kind,
        tab.preview_phase,
    )
    with app_server.db() as db:
        assert stored(db, test_id) == before, kind
        assert db.exec(select(ProblemReport).where(ProblemReport.test_id == test_id)).all() == [], kind


@pytest.mark.parametrize("route", ["rate", "preview"])
def test_a_participant_cannot_use_the_preview_to_see_a_test_they_are_not_invited_to(app_server, route):
    with app_server.db() as db:
        test_id, marker, _ = world(db)
        who = person(db)
        before = stored(db, test_id)

    async def probe() -> RawTab:
        tab = RawTab(app_server.url, cookie=who.cookie)
        if route == "rate":  # the rating page with the preview's parameters added
            await tab.open(
                f"/test/{test_id}/rate", {"rate_test_id": str(test_id), "test_id": str(test_id), "preview": "1"}
            )
        else:
            await tab.open(f"/admin/tests/{test_id}/preview", {"test_id": str(test_id)})
        for _ in range(2):
            await tab.answer(f"{SURVEY}.begin")
            await tab.answer(f"{SURVEY}.start_survey")
            await tab.answer(f"{SURVEY}.set_answer", {"key": "involvement", "answer": good_answers()["involvement"]})
            await tab.answer(f"{SURVEY}.submit")
        await tab.answer(f"{PREVIEW}.load")
        await tab.close()
        return tab

    tab = run(probe())
    assert marker not in tab.text()
    assert tab.var(SURVEY, "phase") in (None, "loading")
    assert tab.var(PREVIEW, "view") in (None, "")
    with app_server.db() as db:
        assert stored(db, test_id) == before


def test_a_participant_on_a_tab_staff_previewed_on_gets_nothing_of_the_preview(app_server):
    with app_server.db() as db:
        test_id, marker, _ = world(db)
        boss = caller(db, roles.TEAM_MANAGER)
        who = person(db)
        before = stored(db, test_id)

    async def staff_then_participant() -> tuple[RawTab, RawTab]:
        first = RawTab(app_server.url, cookie=boss.cookie)
        await first.open(f"/admin/tests/{test_id}/preview", {"test_id": str(test_id)})
        await first.answer(f"{SURVEY}.begin")
        await first.answer(f"{SURVEY}.start_survey")
        await first.answer(f"{SURVEY}.set_answer", {"key": "involvement", "answer": good_answers()["involvement"]})
        await first.close()
        second = RawTab(app_server.url, cookie=who.cookie, token=first.token)  # the same tab, another person
        await second.open(f"/test/{test_id}/rate", {"rate_test_id": str(test_id)})
        for key, answer in good_answers().items():
            await second.answer(f"{SURVEY}.set_answer", {"key": key, "answer": answer})
        await second.answer(f"{SURVEY}.submit")
        await second.answer(f"{SURVEY}.extend_time")
        await second.close()
        return first, second

    first, second = run(staff_then_participant())
    assert marker in first.text() and first.var(SURVEY, "phase") == "questions"
    assert marker not in second.text()
    assert second.var(SURVEY, "phase") in (None, "loading")
    with app_server.db() as db:
        assert stored(db, test_id) == before
        invite = db.exec(select(Invite).where(Invite.test_id == test_id)).one()
        assert invite.status == "open"


def test_the_scenario_sends_every_handler_the_preview_adds_and_every_core_handler():
    import inspect

    source = inspect.getsource(preview_by_events)
    preview_handlers = [h for h in PreviewState.event_handlers if h != "setvar"]
    missing = [f"PreviewState.{h}" for h in preview_handlers if f'{{PREVIEW}}.{h}"' not in source]
    core = {name for name in vars(TimedSession) if name in SurveyState.event_handlers}
    assert set(CORE) >= core, f"a new core handler: {core - set(CORE)}"
    missing += [f"SurveyState.{h}" for h in CORE if f'{{SURVEY}}.{h}"' not in source]
    assert not missing, missing
