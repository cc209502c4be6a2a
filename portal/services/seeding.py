"""Seed the reference data and a demo data set. Both are idempotent.

Every row is looked up by its natural key (a name, an e-mail, a segment key,
(account, test)) before it is inserted, and existing rows are left as they are,
so running a seed twice changes nothing and never undoes a change made since.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

from sqlmodel import Session, SQLModel, select

from portal.domain import reference_data as ref
from portal.domain.definition import review_kind
from portal.domain.flags import FLAGS, REFERRAL_PROGRAM
from portal.domain.passwords_hashing import hash_password
from portal.models import (
    Account,
    Audience,
    CompanySize,
    FeatureFlag,
    Industry,
    Invite,
    ParticipantProfile,
    ProfileAudience,
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
)
from portal.models._base import utcnow
from portal.services.definition_import import import_test
from portal.settings import settings
from portal.standins import referral_widget as local_referral_widget

M = TypeVar("M", bound=SQLModel)

DEMO_TESTS_DIR = Path(__file__).resolve().parent.parent / "data" / "demo_tests"
REFERRAL_PROGRAM_NAME = "Participant referral program"
# No widget in the reference data: /referral embeds the programme's widget only when one is set; the demo data of a
# local run sets the portal's stand-in (docs/decisions.md).
REFERRAL_WIDGET_URL: str | None = None


@dataclass(frozen=True)
class DemoAccount:
    role: str
    email: str
    password: str


DEMO_PARTICIPANT = DemoAccount("verified participant", "participant@example.com", "Demo-Participant-2026!")
DEMO_UNVERIFIED = DemoAccount("unverified participant", "unverified@example.com", "Demo-Unverified-2026!")
DEMO_NEWCOMER = DemoAccount("registration not finished", "newcomer@example.com", "Demo-Newcomer-2026!")
DEMO_ADMIN = DemoAccount("staff admin (super-admin)", "admin@example.com", "Demo-Admin-2026!")
DEMO_ACCOUNTS = (DEMO_PARTICIPANT, DEMO_UNVERIFIED, DEMO_NEWCOMER, DEMO_ADMIN)


def _get_or_create(session: Session, model: type[M], lookup: dict[str, Any], **values: Any) -> tuple[M, bool]:
    """The row matching `lookup`, or a new one with `lookup` and `values` (flushed, so it has its id)."""
    statement = select(model)
    for column, value in lookup.items():
        statement = statement.where(getattr(model, column) == value)
    row = session.exec(statement).first()
    if row is not None:
        return row, False
    row = model(**lookup, **values)
    session.add(row)
    session.flush()
    return row, True


# --- reference data ---------------------------------------------------------------


def seed_reference(session: Session) -> None:
    """Company sizes, industries, roles, audiences, qualifications, feature flags, the referral programme."""
    for order, segment in enumerate(ref.COMPANY_SIZE_SEGMENTS):
        if session.get(CompanySize, segment.id) is None:
            session.add(
                CompanySize(
                    id=segment.id,
                    min_size=segment.min_size,
                    max_size=segment.max_size,
                    without_max_size=segment.without_max_size,
                    segment=segment.id,
                    sort_order=order,
                )
            )
    for name in ref.INDUSTRIES:
        _get_or_create(session, Industry, {"name": name}, active_for_testers=name not in ref.INACTIVE_INDUSTRIES)
    for name in ref.ROLES:
        _get_or_create(session, Role, {"name": name})
    for audience in ref.AUDIENCES:
        _get_or_create(session, Audience, {"name": audience.name}, type=audience.type)
    for qualification in ref.QUALIFICATIONS:
        _get_or_create(
            session,
            Qualification,
            {"name": qualification.name},
            level=qualification.level,
            is_public=qualification.is_public,
        )
    for key in FLAGS:
        if session.get(FeatureFlag, key) is None:
            session.add(
                FeatureFlag(
                    key=key,
                    enabled=key == REFERRAL_PROGRAM,
                    percentage=100,
                    description=key.replace("-", " ").capitalize(),
                )
            )
    _get_or_create(
        session,
        ReferralProgram,
        {"name": REFERRAL_PROGRAM_NAME},
        widget_url=REFERRAL_WIDGET_URL,
        bonus_cents=2000,
        active=True,
    )
    session.flush()


# --- demo data ----------------------------------------------------------------------


def load_demo_definitions() -> list[dict[str, Any]]:
    """The demo test definitions, in file order."""
    return [json.loads(path.read_text()) for path in sorted(DEMO_TESTS_DIR.glob("*.json"))]


def seed_demo(session: Session) -> list[tuple[str, str, str]]:
    """Reference data, demo tests and demo accounts. Returns (role, email, password) of each account."""
    seed_reference(session)
    tests = {definition["name"]: import_test(session, definition) for definition in load_demo_definitions()}
    now = utcnow()
    dana = _seed_participant(session, now)
    _seed_invites_and_rewards(session, dana, list(tests.values()), now)
    _seed_unverified(session, now)
    _seed_newcomer(session)
    _seed_admin(session, now)
    _seed_panel(session, list(tests.values()), now)
    _seed_referral_widget(session)
    session.flush()
    return [(a.role, a.email, a.password) for a in DEMO_ACCOUNTS]


def _seed_referral_widget(session: Session) -> None:
    """On a local run the demo programme's widget is the portal's stand-in page (a programme's own widget stays)."""
    url = local_referral_widget.widget_url(settings.base_url)
    program = session.exec(select(ReferralProgram).where(ReferralProgram.name == REFERRAL_PROGRAM_NAME)).first()
    if url and program is not None and not program.widget_url:
        program.widget_url = url
        session.add(program)


def _account(session: Session, demo: DemoAccount, **values: Any) -> tuple[Account, bool]:
    existing = session.exec(select(Account).where(Account.email == demo.email)).first()
    if existing is not None:
        return existing, False
    account = Account(email=demo.email, password_hash=hash_password(demo.password), **values)
    session.add(account)
    session.flush()
    return account, True


def _profile(session: Session, account: Account, **values: Any) -> None:
    if session.get(ParticipantProfile, account.id) is None:
        session.add(ParticipantProfile(account_id=account.id, **values))
        session.flush()


def _link(
    session: Session, model: type[M], account: Account, column: str, ref_model: type[Any], names: list[str]
) -> None:
    for name in names:
        target = session.exec(select(ref_model).where(ref_model.name == name)).one()
        _get_or_create(session, model, {"account_id": account.id, column: target.id})


def _seed_participant(session: Session, now: datetime) -> Account:
    dana, _ = _account(
        session,
        DEMO_PARTICIPANT,
        email_verified_at=now,
        work_email="dana.reviewer@northwind.example",
        work_email_verified_at=now,
        is_registration_complete=True,
        stage="completed",
        verified=True,
        is_subscribed_to_referral=True,
        referral_code="DANA2026",
        last_login_method=None,
    )
    _profile(
        session,
        dana,
        first_name="Dana",
        last_name="Reviewer",
        phone_number="+14155550134",
        linkedin="https://www.linkedin.com/in/dana-reviewer",
        linkedin_privacy=False,
        has_experience=True,
        birth_year=1988,
        country="US",
        state="US-CA",
        employer_hq_country="US",
        job_title="Product Marketing Manager",
        experience_levels=["middle"],
        company_size_id="medium",
        company_name="Northwind Analytics",
        languages=["english", "spanish"],
        gender="Woman",
        pronoun="She/her",
        sex_orientation="Prefer not to say",
        race="Prefer not to say",
        ethnicity="Prefer not to say",
        veteran="No",
        demo_product_opt_in_status=True,
    )
    _link(session, ProfileIndustry, dana, "industry_id", Industry, ["Computer Software", "Internet"])
    _link(session, ProfileRole, dana, "role_id", Role, ["Product Marketing Manager", "Product Manager"])
    _link(session, ProfileAudience, dana, "audience_id", Audience, ["B2B professionals"])
    return dana


# (demo test file prefix order) -> invite status, invite age in hours, reward payment status or None.
_INVITE_PLAN: tuple[tuple[int, str, int, str | None], ...] = (
    (0, "open", 2, None),  # survey: open, 22 hours left
    (1, "open", 1, None),  # landing page: open, ready to take
    (2, "open", 1, None),  # pricing test: open, ready to take
    (3, "open", 1, None),  # image preference: open, ready to take
    (4, "open", 1, None),  # text preference: open, ready to take
    (8, "open", 30, None),  # single-question survey: still open, but past its 24 hours
    (5, "filled", 3 * 24, None),  # video test: quota filled
    (9, "completed", 5 * 24, "EXECUTED"),  # full-page highlight test
    (11, "completed", 6 * 24, "PENDING"),  # B2B user testing
    (12, "completed", 8 * 24, "FAILED"),  # competitor comparison
    (6, "completed", 9 * 24, "CANCELED"),  # screener survey
    (7, "expired", 10 * 24, None),  # public-qualification survey
    (10, "canceled", 12 * 24, None),  # standard highlight test
)


def _seed_invites_and_rewards(session: Session, account: Account, tests: list[Test], now: datetime) -> None:
    for index, status, age_hours, payment in _INVITE_PLAN:
        test = tests[index]
        created = now - timedelta(hours=age_hours)
        _get_or_create(
            session,
            Invite,
            {"account_id": account.id, "test_id": test.id},
            status=status,
            amount_cents=test.payout_cents,
            created_at=created,
            expires_at=created + timedelta(hours=ref.INVITE_LIFETIME_HOURS),
        )
        if payment is None:
            continue
        kind = review_kind(test.product_type)
        review, _ = _get_or_create(
            session,
            Review,
            {"test_id": test.id, "respondent_key": f"account:{account.id}"},
            account_id=account.id,
            kind=kind,
            answers=_demo_answers(kind),
            created_at=created + timedelta(hours=1),
        )
        paid_on = created + timedelta(days=3) if payment == "EXECUTED" else None
        # Staff's decision (issue 15): paid and failed rewards were approved; canceled ones rejected.
        approved_at = created + timedelta(days=2) if payment in ("EXECUTED", "FAILED") else None
        if (approved_at is not None or payment == "CANCELED") and review.status == "submitted":  # once
            review.status = "approved" if approved_at else "rejected"
            review.decided_at = approved_at or created + timedelta(days=2)
            review.reject_reason = None if approved_at else "low-effort"
            session.add(review)
        _get_or_create(
            session,
            Reward,
            {"review_id": review.id},
            account_id=account.id,
            amount_cents=test.payout_cents,
            status=payment,
            paid_on=paid_on,
            created_at=created + timedelta(hours=1),
            test_id=test.id,
            product_type=test.product_type,
            approved_at=approved_at,
        )


_LONG_ANSWER = (
    "The page explains clearly that the product gets feedback from real buyers quickly, "
    "but I would like to see an example report before I start a trial."
)


def _demo_answers(kind: str) -> dict[str, Any]:
    if kind == "survey":
        return {
            "0": {"type": "multi-choice", "value": ["erp", "spend"]},
            "1": {"type": "long-text", "value": _LONG_ANSWER},
        }
    return {
        "first-impression": [{"type": "long-text", "value": _LONG_ANSWER, "questionKey": "fp-first-impression"}],
        "highlight-1": [{"type": "long-text", "value": _LONG_ANSWER, "questionKey": "fp-features"}],
    }


def _seed_unverified(session: Session, now: datetime) -> None:
    account, _ = _account(
        session,
        DEMO_UNVERIFIED,
        email_verified_at=now,
        work_email="uma.waiting@globex.example",
        work_email_verified_at=None,
        is_registration_complete=True,
        stage="registered",
        verified=False,
    )
    _profile(
        session,
        account,
        first_name="Uma",
        last_name="Waiting",
        country="GB",
        state="GB-ENG",
        job_title="Data Analyst",
        company_name="Globex",
        languages=["english"],
    )


def _seed_newcomer(session: Session) -> None:
    account, _ = _account(session, DEMO_NEWCOMER, is_registration_complete=False, stage="new", work_email=None)
    _profile(
        session,
        account,
        first_name="Nico",
        last_name="Newcomer",
        linkedin_profile={"firstName": "Nico", "lastName": "Newcomer", "headline": "Sales Engineer"},
    )


def _seed_admin(session: Session, now: datetime) -> None:
    account, _ = _account(
        session,
        DEMO_ADMIN,
        email_verified_at=now,
        is_registration_complete=True,
        stage="completed",
        verified=True,
        staff_role="super-admin",
    )
    _profile(session, account, first_name="Avery", last_name="Admin")


# A panel for the staff pages (issue 15): panelists without a password (they signed up with LinkedIn),
# some waiting for verification, reviews waiting for a decision, payable rewards, a change request and
# a pending review whose time ran out. (first, last, country, seniority, industry, verified)
_PANEL: tuple[tuple[str, str, str, str, str, bool], ...] = (
    ("Alex", "Morgan", "US", "senior", "Computer Software", True),
    ("Priya", "Shah", "IN", "middle", "Information Technology & Services", True),
    ("Lukas", "Becker", "DE", "specialist", "Internet", True),
    ("Sofia", "Rossi", "NL", "founder", "Advertising & Marketing", True),
    ("James", "Okafor", "GB", "middle", "Financial Services", True),
    ("Chloe", "Martin", "FR", "specialist", "Computer Software", False),
    ("Noah", "Kim", "CA", "senior", "Internet", False),
    ("Emma", "Walsh", "IE", "middle", "Computer Software", False),
    ("Mateo", "Garcia", "ES", "specialist", "Information Technology & Services", False),
    ("Olivia", "Brown", "AU", "senior", "Consulting", True),
)
# Panelists (by index) with a review: test index, days ago, decided (None: waiting; True: approved, payable).
_PANEL_REVIEWS: tuple[tuple[int, int, int, bool | None], ...] = (
    (0, 11, 2, None),
    (1, 11, 3, None),
    (2, 9, 4, None),
    (3, 9, 13, None),
    (4, 11, 5, True),
    (9, 9, 6, True),
)


def _seed_panel(session: Session, tests: list[Test], now: datetime) -> None:
    panel: list[Account] = []
    for index, (first, last, country, level, industry, verified) in enumerate(_PANEL):
        email = f"{first.lower()}.{last.lower()}@panel.example"
        account = session.exec(select(Account).where(Account.email == email)).first()
        if account is None:
            account = Account(
                email=email,
                email_verified_at=now,
                work_email=f"{first.lower()}@{last.lower()}-co.example",
                work_email_verified_at=now,
                is_registration_complete=True,
                stage="completed",
                verified=verified,
                last_login_method="linkedin",
                created_at=now - timedelta(days=40 - 3 * index),
            )
            session.add(account)
            session.flush()
        _profile(
            session,
            account,
            first_name=first,
            last_name=last,
            country=country,
            job_title="Marketing lead",
            experience_levels=[level],
            languages=["english"],
            company_name=f"{last} & Co",
        )
        _link(session, ProfileIndustry, account, "industry_id", Industry, [industry])
        _link(session, ProfileAudience, account, "audience_id", Audience, ["B2B professionals"])
        panel.append(account)
    for who, test_index, days, approved in _PANEL_REVIEWS:
        account, test = panel[who], tests[test_index]
        created = now - timedelta(days=days)
        review, made = _get_or_create(
            session,
            Review,
            {"test_id": test.id, "respondent_key": f"account:{account.id}"},
            account_id=account.id,
            kind=review_kind(test.product_type),
            answers=_demo_answers(review_kind(test.product_type)),
            created_at=created,
            status="approved" if approved else "submitted",
            decided_at=now if approved else None,
        )
        _get_or_create(
            session,
            Reward,
            {"review_id": review.id},
            account_id=account.id,
            amount_cents=test.payout_cents,
            status="PENDING",
            created_at=created,
            test_id=test.id,
            product_type=test.product_type,
            approved_at=now - timedelta(days=1) if approved else None,
        )
    first_member = panel[0]
    _get_or_create(
        session,
        ProfileChangeRequest,
        {"account_id": first_member.id, "status": "pending"},
        payload={"jobTitle": "Head of Marketing", "company": {"name": "Morgan & Co"}},
        previous={"jobTitle": "Marketing lead"},
    )
    late = panel[1]
    _get_or_create(
        session,
        ReviewSession,
        {"test_id": tests[1].id, "account_id": late.id, "status": "active"},
        respondent_key=f"account:{late.id}",
        started_at=now - timedelta(hours=3),
        deadline_at=now - timedelta(hours=2),
    )
