"""A tab belongs to one person at a time: the next person on the same client token (sign-out, then
sign-in as someone else, or a session that ended) is sent none of the previous person's values, and
cannot write into the previous person's survey."""

from __future__ import annotations

from sqlmodel import select

from portal.models import ReviewSession
from portal.states.taking.survey import SurveyState
from tests.support.drafts import answer_of, wait_for_draft
from tests.support.people import ANONYMOUS, demo_test, invite, person
from tests.support.raw_tab import RawTab, run

SURVEY = SurveyState.get_full_name()


async def visit(base: str, cookie: str, token: str | None, path: str, params: dict | None = None) -> RawTab:
    tab = RawTab(base, cookie=cookie, token=token)
    await tab.open(path, params, settle=2.0)
    await tab.close()
    return tab


def test_the_next_person_on_a_tab_gets_none_of_the_previous_persons_values(app_server):
    with app_server.db() as db:
        a, b = person(db), person(db)
    first = run(visit(app_server.url, a.cookie, None, "/profile"))
    seen = first.text()
    assert a.email in seen and a.first_name in seen  # the control: A's profile was sent to A
    for cookie in (b.cookie, ANONYMOUS.cookie, "portal_session=revoked-or-unknown-token-value-0000"):
        for path in ("/profile", "/sign-in", "/"):
            later = run(visit(app_server.url, cookie, first.token, path))
            text = later.text()
            assert a.email not in text and a.first_name not in text and a.last_name not in text, (cookie[:20], path)


def test_the_next_person_on_a_tab_cannot_write_into_the_previous_persons_survey(app_server):
    with app_server.db() as db:
        test = demo_test(db, "01-survey.json")
        a, b, c = person(db), person(db), person(db)
        invite(db, a, test)
        invite(db, c, test)
        test_id = test.id

    async def answers(who, value: str) -> str:
        """`who` starts the survey in a tab of their own and answers the first question with `value`."""
        tab = RawTab(app_server.url, cookie=who.cookie)
        await tab.open(f"/test/{test_id}/rate", {"rate_test_id": str(test_id)}, settle=2.0)
        await tab.send(f"{SURVEY}.begin")  # what the survey view does when the page shows it
        await tab.send(f"{SURVEY}.start_survey")
        answer = {"type": "single-choice", "value": value}
        await tab.send(f"{SURVEY}.set_answer", {"key": "involvement", "answer": answer})
        await tab.close()
        return tab.token

    async def b_writes(token: str) -> None:
        tab = RawTab(app_server.url, cookie=b.cookie, token=token)
        await tab.open("/", settle=1.0)  # B signs in on the same tab and goes on to send survey events
        for value in ("influencer", "user"):
            await tab.send(
                f"{SURVEY}.set_answer", {"key": "involvement", "answer": {"type": "single-choice", "value": value}}
            )
        await tab.send(f"{SURVEY}.go_next")
        await tab.close()

    token = run(answers(a, "decider"))
    wait_for_draft(app_server, a.account_id, lambda row: answer_of(row, "involvement") == "decider")  # written behind
    run(b_writes(token))
    # B's events were answered (each send waits for its reply), so whatever they queued for the draft
    # writer (written behind, in batches, by the app's one process) is queued. A later draft, C's own
    # answer, is written in the same batch or a later one: once it is stored, B's writes would be too.
    run(answers(c, "user"))
    wait_for_draft(app_server, c.account_id, lambda row: answer_of(row, "involvement") == "user")
    with app_server.db() as db:
        row = db.exec(select(ReviewSession).where(ReviewSession.account_id == a.account_id)).one()
        assert row.draft_answers["involvement"]["value"] == "decider"
        assert db.exec(select(ReviewSession).where(ReviewSession.account_id == b.account_id)).first() is None


def test_a_reused_tab_is_loaded_again_for_the_new_person(app_server):
    """Issue 40: the first event of a tab that still shows another person's page (its socket came back with
    another session cookie, no page load in between) is not run on reset values ('Sorry, your profile was
    removed'): the tab is told to load its page again, with the parameter that shows 'This page was reloaded for
    the person now signed in.'; nothing of either person changes."""
    from portal.models import NotificationOptOut
    from portal.states.notifications import NotificationsState

    state = NotificationsState.get_full_name()
    with app_server.db() as db:
        a, b = person(db), person(db)
    first = run(visit(app_server.url, a.cookie, None, "/notifications"))

    async def reused() -> RawTab:
        tab = RawTab(app_server.url, cookie=b.cookie, token=first.token)
        marker, router = tab._router("/notifications")
        await tab.client.connect(
            {"name": f"{state}.toggle", "payload": {"kind": "invite", "on": False}, "router_data": router}
        )
        tab._keep(await tab.client.next_update(10))
        await tab.drain(0.5)
        await tab.close()
        return tab

    tab = run(reused())
    assert "reloaded" in tab.text() and "window.location.replace" in tab.text()
    with app_server.db() as db:
        assert (
            db.exec(
                select(NotificationOptOut).where(NotificationOptOut.account_id.in_([a.account_id, b.account_id]))
            ).all()
            == []
        )
