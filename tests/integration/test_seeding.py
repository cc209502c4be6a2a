"""Seeding reference and demo data on a migrated database: content, and idempotence."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import text
from sqlmodel import Session, SQLModel, func, select

from portal.domain import reference_data as ref
from portal.domain.definition import review_kind
from portal.domain.passwords_hashing import verify_password
from portal.models import (
    Account,
    Audience,
    CompanySize,
    FeatureFlag,
    Industry,
    Invite,
    ParticipantProfile,
    ProfileChangeRequest,
    ProfileIndustry,
    ProfileRole,
    Qualification,
    ReferralProgram,
    Review,
    ReviewSession,
    Reward,
    Role,
    Test,
    TestQualification,
)
from portal.services.seeding import seed_demo, seed_reference


def aware(value: datetime) -> datetime:
    """SQLite gives naive datetimes back; they are stored in UTC."""
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def snapshot(session: Session) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table, in a comparable form."""
    tables = {}
    for table in SQLModel.metadata.sorted_tables:
        rows = session.execute(text(f'SELECT * FROM "{table.name}"')).all()
        tables[table.name] = sorted(tuple(map(repr, row)) for row in rows)
    return tables


def count(session: Session, model: type[SQLModel]) -> int:
    return session.exec(select(func.count()).select_from(model)).one()


def account(session: Session, email: str) -> Account:
    return session.exec(select(Account).where(Account.email == email)).one()


def test_reference_data(session: Session) -> None:
    seed_reference(session)
    session.commit()
    sizes = session.exec(select(CompanySize).order_by(CompanySize.sort_order)).all()
    assert [(s.id, s.min_size, s.max_size, s.without_max_size) for s in sizes] == [
        ("solo", 1, 1, False),
        ("micro", 2, 9, False),
        ("small", 10, 49, False),
        ("medium", 50, 199, False),
        ("midMarket", 200, 999, False),
        ("enterprise", 1000, None, True),
    ]
    assert count(session, Industry) == len(ref.INDUSTRIES)
    inactive = session.exec(select(Industry.name).where(Industry.active_for_testers == False)).all()  # noqa: E712
    assert set(inactive) == ref.INACTIVE_INDUSTRIES
    assert count(session, Role) == len(ref.ROLES)
    assert sorted(session.exec(select(Audience.type)).all()) == ["b2b", "custom", "mturk"]
    assert session.exec(select(Qualification).where(Qualification.is_public == True)).all()  # noqa: E712
    flags = {f.key: f.enabled for f in session.exec(select(FeatureFlag)).all()}
    assert flags == {
        "category-buyer-insights": False,
        "chat-with-your-icp": False,
        "demo-product": False,
        "enterprise-subscription-and-trial": False,
        "live-interviews": False,
        "monthly-and-yearly-plans": False,
        "pricing-test": False,
        "referral-program": True,
    }
    programs = session.exec(select(ReferralProgram)).all()
    assert [(p.bonus_cents, p.active) for p in programs] == [(2000, True)]


def test_seeding_twice_changes_nothing(session: Session) -> None:
    seed_demo(session)
    session.commit()
    before = snapshot(session)
    seed_reference(session)
    seed_demo(session)
    session.commit()
    assert snapshot(session) == before
    assert count(session, Test) == 13


def test_reseeding_keeps_changes_made_since(session: Session) -> None:
    seed_reference(session)
    flag = session.get(FeatureFlag, "pricing-test")
    flag.enabled = True
    session.commit()
    seed_reference(session)
    session.commit()
    session.refresh(flag)
    assert flag.enabled is True


def test_demo_accounts(session: Session) -> None:
    accounts = seed_demo(session)
    session.commit()
    assert [(email, password) for _, email, password in accounts] == [
        ("participant@example.com", "Demo-Participant-2026!"),
        ("unverified@example.com", "Demo-Unverified-2026!"),
        ("newcomer@example.com", "Demo-Newcomer-2026!"),
        ("admin@example.com", "Demo-Admin-2026!"),
    ]
    for _, email, password in accounts:
        ok, _ = verify_password(password, account(session, email).password_hash)
        assert ok, email
    assert verify_password("wrong password!", account(session, "admin@example.com").password_hash)[0] is False

    dana = account(session, "participant@example.com")
    assert dana.email_verified_at and dana.work_email_verified_at
    assert (dana.is_registration_complete, dana.stage, dana.verified, dana.last_login_method) == (
        True,
        "completed",
        True,
        None,
    )
    profile = session.get(ParticipantProfile, dana.id)
    assert (profile.first_name, profile.last_name, profile.country, profile.state) == (
        "Dana",
        "Reviewer",
        "US",
        "US-CA",
    )
    assert profile.company_size_id == "medium" and profile.experience_levels == ["middle"] and profile.job_title
    dana_links = [
        session.exec(select(func.count()).select_from(m).where(m.account_id == dana.id)).one()
        for m in (ProfileIndustry, ProfileRole)
    ]
    assert dana_links == [2, 2]

    unverified = account(session, "unverified@example.com")
    assert unverified.email_verified_at and unverified.work_email and unverified.work_email_verified_at is None
    assert unverified.is_registration_complete and unverified.verified is False

    newcomer = account(session, "newcomer@example.com")
    assert newcomer.is_registration_complete is False and newcomer.work_email is None

    admin = account(session, "admin@example.com")
    assert admin.staff_role == "super-admin" and admin.is_registration_complete
    assert all(account(session, e).staff_role is None for e in ("participant@example.com", "unverified@example.com"))


def test_demo_invites_and_rewards(session: Session) -> None:
    seed_demo(session)
    session.commit()
    dana = account(session, "participant@example.com")
    now = datetime.now(UTC)
    invites = session.exec(select(Invite).where(Invite.account_id == dana.id)).all()
    assert {i.status for i in invites} == set(ref.INVITE_STATUSES)
    open_invites = [i for i in invites if i.status == "open"]
    # Survey, landing page, pricing and both preference tests ready to take; one open invite past its 24 hours.
    assert sorted(aware(i.expires_at) > now for i in open_invites) == [False, True, True, True, True, True]
    ready = {
        tests_by_id.product_type
        for i in open_invites
        if aware(i.expires_at) > now
        for tests_by_id in [session.get(Test, i.test_id)]
    }
    assert ready == {"survey", "landing-page", "pricing-test", "preference-test"}
    assert all(aware(i.expires_at) - aware(i.created_at) == timedelta(hours=24) for i in invites)
    tests = {t.id: t for t in session.exec(select(Test)).all()}
    assert all(i.amount_cents == tests[i.test_id].payout_cents for i in invites)

    rewards = session.exec(select(Reward).where(Reward.account_id == dana.id)).all()
    assert sorted(r.status for r in rewards) == sorted(ref.PAYMENT_STATUSES)
    for reward in rewards:
        review = session.get(Review, reward.review_id)
        test = tests[review.test_id]
        assert review.kind == review_kind(test.product_type)
        assert review.respondent_key == f"account:{dana.id}"
        assert (reward.paid_on is not None) == (reward.status == "EXECUTED")
    assert {r.kind for r in session.exec(select(Review)).all()} == {"highlight", "survey"}
    # Staff's decisions on Dana's history: paid and failed were approved, canceled rejected.
    decided = {r.status: session.get(Review, r.review_id).status for r in rewards}
    assert decided == {"EXECUTED": "approved", "FAILED": "approved", "CANCELED": "rejected", "PENDING": "submitted"}


def test_demo_panel_for_the_staff_pages(session: Session) -> None:
    seed_demo(session)
    seed_demo(session)  # idempotent
    session.commit()
    panel = session.exec(select(Account).where(Account.email.like("%@panel.example"))).all()
    assert len(panel) == 10 and {a.verified for a in panel} == {True, False}
    assert all(a.password_hash is None and a.staff_role is None for a in panel)
    ids = [a.id for a in panel]
    waiting = session.exec(select(Review).where(Review.account_id.in_(ids), Review.status == "submitted")).all()
    payable = session.exec(
        select(Reward).where(Reward.account_id.in_(ids), Reward.approved_at.is_not(None), Reward.status == "PENDING")
    ).all()
    assert len(waiting) == 4 and len(payable) == 2
    requests = session.exec(select(ProfileChangeRequest).where(ProfileChangeRequest.status == "pending")).all()
    assert [r.previous for r in requests] == [{"jobTitle": "Marketing lead"}]
    expired = session.exec(select(ReviewSession).where(ReviewSession.status == "active")).all()
    assert len(expired) == 1 and aware(expired[0].deadline_at) < datetime.now(UTC)


def test_demo_tests(session: Session) -> None:
    seed_demo(session)
    session.commit()
    tests = session.exec(select(Test)).all()
    assert {t.status for t in tests} == {"running"}
    by_type: dict[str, list[Test]] = {}
    for t in tests:
        by_type.setdefault(t.product_type, []).append(t)
    landing = by_type["landing-page"][0]
    assert landing.screenshot_url == "/demo/landing.png" and len(landing.selected_areas) == 3
    assert by_type["pricing-test"][0].pricing_screenshot_url == "/demo/pricing.png"
    assert sorted(t.preference_test["preferenceType"] for t in by_type["preference-test"]) == ["image", "text"]
    assert by_type["video-test"][0].video_recorder_url == "https://recorder.example.com/record"
    assert any(t.screener_question for t in tests)
    survey = next(t for t in by_type["survey"] if t.name.startswith("Demo: Survey"))
    assert {q["type"] for q in survey.survey["questions"]} == set(ref.QUESTION_TYPES)
    public = session.exec(
        select(Test).join(TestQualification).join(Qualification).where(Qualification.is_public == True)  # noqa: E712
    ).all()
    assert [t.panel for t in public] == ["custom"]
