"""The staff preview's services (portal/services/admin/preview.py) on a migrated database: staff only,
the kind's own screen only, the run's deadline and extension as a participant's, a submission
checked with the very rules of a real one, and nothing written anywhere (every table counted)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlmodel import Session

from portal.domain.staff import roles
from portal.domain.taking import kinds
from portal.models import Invite
from portal.services.admin import preview
from portal.services.admin.guard import StaffRefused
from portal.services.definition_import import import_test
from portal.services.errors import ServiceError
from portal.services.seeding import seed_reference
from portal.services.taking.review_sessions import AnswersError, NoSessionError, SessionExpiredError
from tests.support.demo_survey import WORDS_15, good_answers
from tests.support.factories import make_participant

ROOT = Path(__file__).resolve().parents[2]
T0 = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
LONG = "The second concept talks about real decision makers, which is who I want to hear from before I buy anything."
# Every table a submission, a session, a draft, an invite or an e-mail would touch.
TABLES = ("review", "reward", "review_session", "screener_response", "outbox_email", "audit_log", "invite_batch")


def demo(file: str, **overrides) -> dict:
    data = json.loads((ROOT / "portal/data/demo_tests" / file).read_text())
    return {**data, **overrides}


def snapshot(session: Session) -> dict:
    """Row counts of every table above, and every invite as it is (status, amount, dates)."""
    session.expire_all()
    counts = {t: session.execute(sa.text(f"SELECT count(*) FROM {t}")).scalar_one() for t in TABLES}
    invites = session.execute(sa.select(Invite.id, Invite.status, Invite.amount_cents, Invite.expires_at)).all()
    return {**counts, "invites": sorted(tuple(r) for r in invites)}


@pytest.fixture
def world(session: Session):
    staff = {}
    for role in roles.ROLES:
        account = make_participant(session)
        account.staff_role = role
        session.add(account)
        staff[role] = account.id
    participant = make_participant(session)
    survey = import_test(session, demo("01-survey.json", name="Preview survey", status="draft"))
    pref = import_test(session, demo("04-preference-image.json", name="Preview preference"))
    landing = import_test(session, demo("02-landing-page.json", name="Preview landing"))
    video = import_test(session, demo("06-video.json", name="Preview video"))
    # The participant's own open invite to the preference test: a preview must not touch it.
    session.add(
        Invite(
            account_id=participant.id,
            test_id=pref.id,
            amount_cents=700,
            created_at=T0,
            expires_at=T0 + timedelta(hours=24),
        )
    )
    session.commit()
    return {
        "staff": staff,
        "participant": participant.id,
        "survey": survey,
        "pref": pref,
        "landing": landing,
        "video": video,
    }


def run_of(session: Session, actor: int, test, view: str, now=T0):
    return preview.start(session=session, actor_id=actor, test_id=test.id, view=view, now=now)


def test_every_role_previews_a_survey_to_the_end_and_nothing_is_written(session, world):
    before = snapshot(session)
    survey = world["survey"]
    for role, actor in world["staff"].items():
        target = preview.open_preview(session=session, actor_id=actor, test_id=survey.id)
        assert (target.view, target.name) == (kinds.SURVEY_VIEW, "Preview survey")  # a draft test too
        entry = preview.enter(session=session, actor_id=actor, test_id=survey.id, view=kinds.SURVEY_VIEW)
        assert entry.active is None and not entry.reviewed and entry.definition.test_id == survey.id
        assert entry.who.respondent == f"preview:{actor}"
        run = run_of(session, actor, survey, kinds.SURVEY_VIEW)
        assert run.deadline_at == T0 + timedelta(seconds=survey.session_seconds)
        # The tab comes back: the same run (with its draft) goes on.
        run = preview.start(
            session=session,
            actor_id=actor,
            test_id=survey.id,
            view=kinds.SURVEY_VIEW,
            run=run,
            now=T0 + timedelta(minutes=1),
        )
        assert run.started_at == T0
        assert (
            preview.enter(
                session=session,
                actor_id=actor,
                test_id=survey.id,
                view=kinds.SURVEY_VIEW,
                run=run,
                now=T0 + timedelta(minutes=1),
            ).active
            == run
        )
        result = preview.submit(
            session=session,
            actor_id=actor,
            test_id=survey.id,
            view=kinds.SURVEY_VIEW,
            run=run,
            answers=good_answers(),
            worker_data={},
            submission_id="session-1",
            now=T0 + timedelta(minutes=2),
        )
        assert (result.review_id, result.reward_id, result.created) == (0, 0, False), role
        session.commit()
    assert snapshot(session) == before


def test_a_submission_is_checked_with_the_kinds_own_rules(session, world):
    actor, survey, pref = world["staff"][roles.TEAM_MANAGER], world["survey"], world["pref"]
    before = snapshot(session)
    run = run_of(session, actor, survey, kinds.SURVEY_VIEW)
    bad = good_answers(**{"last-purchase": {"type": "long-text", "value": "too short", "isLimited": True}})
    with pytest.raises(AnswersError) as refused:
        preview.submit(
            session=session,
            actor_id=actor,
            test_id=survey.id,
            view=kinds.SURVEY_VIEW,
            run=run,
            answers=bad,
            worker_data={},
            submission_id="session-1",
            now=T0,
        )
    assert "answers.last-purchase" in refused.value.errors
    with pytest.raises(AnswersError):  # a question of no such key
        preview.submit(
            session=session,
            actor_id=actor,
            test_id=survey.id,
            view=kinds.SURVEY_VIEW,
            run=run,
            answers={**good_answers(), "nope": {"type": "short-text", "value": "x"}},
            worker_data={},
            submission_id="session-1",
            now=T0,
        )
    with pytest.raises(ServiceError):  # a malformed submission id, as for a participant
        preview.submit(
            session=session,
            actor_id=actor,
            test_id=survey.id,
            view=kinds.SURVEY_VIEW,
            run=run,
            answers=good_answers(),
            worker_data={},
            submission_id="no spaces!",
            now=T0,
        )
    run = run_of(session, actor, pref, kinds.PREFERENCE_VIEW)
    chosen = {
        "preferenceTestAnswers": {"selectedConcept": "concept-z", "answer": LONG, "isLimited": True},
        "optionsOrder": [],
    }
    with pytest.raises(AnswersError):  # not one of the concepts
        preview.submit(
            session=session,
            actor_id=actor,
            test_id=pref.id,
            view=kinds.PREFERENCE_VIEW,
            run=run,
            answers=chosen,
            worker_data={},
            submission_id="session-1",
            now=T0,
        )
    chosen["preferenceTestAnswers"]["selectedConcept"] = "concept-b"
    result = preview.submit(
        session=session,
        actor_id=actor,
        test_id=pref.id,
        view=kinds.PREFERENCE_VIEW,
        run=run,
        answers=chosen,
        worker_data={},
        submission_id="session-1",
        now=T0,
    )
    assert result.amount_cents == pref.payout_cents
    session.commit()
    assert snapshot(session) == before


def test_the_run_keeps_a_participants_deadline_and_one_extension(session, world):
    actor, survey = world["staff"][roles.SUPER_ADMIN], world["survey"]
    run = run_of(session, actor, survey, kinds.SURVEY_VIEW)
    longer = preview.extend(session=session, actor_id=actor, test_id=survey.id, view=kinds.SURVEY_VIEW, run=run, now=T0)
    assert longer.deadline_at == run.deadline_at + timedelta(minutes=10) and longer.extensions == 1
    with pytest.raises(ServiceError, match="already been extended"):
        preview.extend(session=session, actor_id=actor, test_id=survey.id, view=kinds.SURVEY_VIEW, run=longer, now=T0)
    late = longer.deadline_at + timedelta(minutes=5)
    assert preview.running(longer, survey.id, late) is None
    assert not preview.check(session=session, actor_id=actor, test_id=survey.id, run=longer, now=late).success
    with pytest.raises(SessionExpiredError):
        preview.submit(
            session=session,
            actor_id=actor,
            test_id=survey.id,
            view=kinds.SURVEY_VIEW,
            run=longer,
            answers=good_answers(),
            worker_data={},
            submission_id="session-1",
            now=late,
        )
    with pytest.raises(NoSessionError):  # no run (or another test's run): nothing to submit
        preview.submit(
            session=session,
            actor_id=actor,
            test_id=survey.id,
            view=kinds.SURVEY_VIEW,
            run=None,
            answers=good_answers(),
            worker_data={},
            submission_id="session-1",
            now=T0,
        )
    other = run_of(session, actor, world["pref"], kinds.PREFERENCE_VIEW)
    with pytest.raises(NoSessionError):
        preview.submit(
            session=session,
            actor_id=actor,
            test_id=survey.id,
            view=kinds.SURVEY_VIEW,
            run=other,
            answers=good_answers(),
            worker_data={},
            submission_id="session-1",
            now=T0,
        )
    # After the time ran out, starting again is a new run (a participant would restart).
    again = preview.start(
        session=session, actor_id=actor, test_id=survey.id, view=kinds.SURVEY_VIEW, run=longer, now=late
    )
    assert again.started_at == late and again.extensions == 0


def test_only_the_kinds_own_screen_previews_it(session, world):
    actor = world["staff"][roles.TEAM_OWNER]
    for test, wrong in (
        (world["survey"], kinds.PREFERENCE_VIEW),
        (world["landing"], kinds.SURVEY_VIEW),
        (world["pref"], kinds.HIGHLIGHT_VIEW),
        (world["video"], kinds.VIDEO_REDIRECT),
    ):
        with pytest.raises(ServiceError):
            preview.enter(session=session, actor_id=actor, test_id=test.id, view=wrong)
        with pytest.raises(ServiceError):
            preview.start(session=session, actor_id=actor, test_id=test.id, view=wrong)
    assert (
        preview.open_preview(session=session, actor_id=actor, test_id=world["landing"].id).view == kinds.HIGHLIGHT_VIEW
    )
    assert preview.open_preview(session=session, actor_id=actor, test_id=world["video"].id).view == ""  # not taken here
    for unknown in (987_654_321, "1", None, True, -3):
        with pytest.raises(preview.PreviewNotFound):
            preview.open_preview(session=session, actor_id=actor, test_id=unknown)


@pytest.mark.parametrize("who", ["participant", "unknown", "none", "text id", "removed"])
def test_no_one_but_staff_gets_anything(session, world, who):
    if who == "removed":
        account = make_participant(session)
        account.staff_role, account.removed_at = roles.SUPER_ADMIN, T0
        session.add(account)
        session.commit()
    actor = {
        "participant": world["participant"],
        "unknown": 987_654_321,
        "none": None,
        "text id": str(world["staff"][roles.SUPER_ADMIN]),
        "removed": None,
    }[who]
    if who == "removed":
        actor = account.id
    pref, view = world["pref"], kinds.PREFERENCE_VIEW
    before = snapshot(session)
    real = run_of(session, world["staff"][roles.SUPER_ADMIN], pref, view)
    good = {
        "preferenceTestAnswers": {"selectedConcept": "concept-b", "answer": LONG, "isLimited": True},
        "optionsOrder": [],
    }
    calls = [
        lambda: preview.open_preview(session=session, actor_id=actor, test_id=pref.id),
        lambda: preview.enter(session=session, actor_id=actor, test_id=pref.id, view=view),
        lambda: preview.start(session=session, actor_id=actor, test_id=pref.id, view=view),
        lambda: preview.extend(session=session, actor_id=actor, test_id=pref.id, view=view, run=real, now=T0),
        lambda: preview.check(session=session, actor_id=actor, test_id=pref.id, run=real, now=T0),
        lambda: preview.submit(
            session=session,
            actor_id=actor,
            test_id=pref.id,
            view=view,
            run=real,
            answers=good,
            worker_data={},
            submission_id="session-1",
            now=T0,
        ),
    ]
    for call in calls:
        with pytest.raises(StaffRefused):
            call()
    session.commit()
    assert snapshot(session) == before


def test_a_public_tests_preview_asks_the_respondents_personal_info_with_its_rules(session, world):
    actor = world["staff"][roles.SUPER_ADMIN]
    seed_reference(session)
    public = import_test(session, demo("08-public-qualification.json", name="Preview public"))
    session.commit()
    before = snapshot(session)
    entry = preview.enter(session=session, actor_id=actor, test_id=public.id, view=kinds.SURVEY_VIEW)
    fields = preview.personal_fields(entry.definition)
    assert fields  # a respondent without an account fills them in
    assert (
        preview.personal_fields(
            preview.enter(
                session=session, actor_id=actor, test_id=world["survey"].id, view=kinds.SURVEY_VIEW
            ).definition
        )
        == ()
    )
    run = run_of(session, actor, public, kinds.SURVEY_VIEW)
    answers = {
        q["key"]: {"type": q["type"], "value": WORDS_15, "isLimited": True}
        for q in entry.definition.questions
        if q["type"] == "long-text"
    }
    with pytest.raises(ServiceError) as refused:
        preview.submit(
            session=session,
            actor_id=actor,
            test_id=public.id,
            view=kinds.SURVEY_VIEW,
            run=run,
            answers=answers,
            worker_data={},
            submission_id="session-1",
            now=T0,
        )
    assert any(k.startswith("workerData.") for k in refused.value.errors or {})
    session.commit()
    assert snapshot(session) == before
