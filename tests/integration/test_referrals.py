"""Referral members at sign-up and the $20 bonus, against a migrated database (SQLite and PostgreSQL)."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest
from sqlmodel import Session, select

from portal.domain import referrals as rules
from portal.domain.oidc import Action, Flow
from portal.models import Account, FeatureFlag, FeatureFlagUser, ReferralMember, ReferralProgram, Review, Reward, Test
from portal.models._base import utcnow
from portal.services.admin.rewards import mark_reward_paid
from portal.services.errors import ServiceError
from portal.services.oidc_accounts import complete_login, login_from_claims
from portal.services.referrals import (
    ReferralAccessDenied,
    ReferralError,
    create_member,
    credit_referral_at_sign_up,
    ensure_referral_code,
    on_reward_paid,
    referral_account_id,
    referral_overview,
)
from portal.services.seeding import seed_reference
from portal.services.sessions import create_session
from tests.support.factories import make_participant, unique_email


@pytest.fixture
def program(session: Session) -> ReferralProgram:
    seed_reference(session)
    session.commit()
    return session.exec(select(ReferralProgram)).one()


def referrer(session: Session, first_name: str = "Rita") -> Account:
    account = make_participant(session, first_name=first_name)
    ensure_referral_code(session=session, account_id=account.id)
    session.commit()
    return account


def sign_up(session: Session, code: str | None, **tracking: str) -> Account:
    if code is not None:
        tracking["REFERRALCODE"] = code
    claims = {
        "sub": f"li-{unique_email()}",
        "email": unique_email("ref"),
        "email_verified": True,
        "given_name": "Reese",
        "family_name": "Ferral",
    }
    outcome = complete_login(
        session=session,
        login=login_from_claims("linkedin", claims),
        flow=Flow(provider="linkedin", sign_up=True, tracking=tracking),
    )
    session.commit()
    assert outcome.action is Action.CREATE
    return session.get(Account, outcome.account_id)


def members(session: Session) -> list[ReferralMember]:
    session.expire_all()
    return list(session.exec(select(ReferralMember).order_by(ReferralMember.id)).all())


_test_counter = 0


def reward_for(session: Session, account: Account, amount_cents: int = 2500) -> Reward:
    global _test_counter
    _test_counter += 1
    test = Test(name=f"Referral test {_test_counter} {unique_email()}", product_type="survey")
    session.add(test)
    session.flush()
    review = Review(test_id=test.id, account_id=account.id, respondent_key=f"account:{account.id}", kind="survey")
    session.add(review)
    session.flush()
    reward = Reward(review_id=review.id, account_id=account.id, amount_cents=amount_cents)
    session.add(reward)
    session.commit()
    return reward


# --- codes ---------------------------------------------------------------------------------


def test_code_is_created_on_first_visit_and_kept(session, program):
    account = make_participant(session)
    assert account.referral_code is None
    code = ensure_referral_code(session=session, account_id=account.id)
    session.commit()
    assert rules.normalize_code(code) == code and len(code) == rules.CODE_LENGTH
    assert ensure_referral_code(session=session, account_id=account.id) == code
    other = make_participant(session)
    assert ensure_referral_code(session=session, account_id=other.id) != code


def test_overview_shows_link_and_no_referees(session, program):
    account = make_participant(session)
    overview = referral_overview(session=session, account_id=account.id, base_url="http://portal.test")
    session.commit()
    assert overview.link == f"http://portal.test/sign-up?REFERRALCODE={overview.code}"
    assert overview.referees == [] and overview.total_earned == "$0" and overview.bonus == "$20"
    assert overview.widget_url == ""  # the default seed has no widget


# --- members at sign-up ----------------------------------------------------------------------------


def test_member_recorded_at_sign_up(session, program):
    rita = referrer(session)
    referee = sign_up(session, rita.referral_code.lower(), utm_source="friend")
    [member] = members(session)
    assert member.program_id == program.id
    assert member.referrer_account_id == rita.id and member.referee_account_id == referee.id
    assert member.first_name == "Reese" and member.email == referee.email
    assert member.reward_cents is None and member.reward_paid_at is None
    overview = referral_overview(session=session, account_id=rita.id, base_url="http://x")
    assert [(r.first_name, r.status) for r in overview.referees] == [("Reese", "Signed up")]


@pytest.mark.parametrize("code", ["NOSUCHCODE", "FRIEND-7", "", "x" * 300])
def test_unknown_or_malformed_code_records_nothing(session, program, code):
    referrer(session)
    account = sign_up(session, code)
    assert account.id is not None  # the sign-up itself goes on
    assert members(session) == []


def test_expired_link_is_refused(session, program):
    rita = referrer(session)
    past = str(int((utcnow() - timedelta(hours=1)).timestamp()))
    sign_up(session, rita.referral_code, RR_WCID="click-1", RR_WCID_TTL=past)
    assert members(session) == []
    future = str(int((utcnow() + timedelta(days=30)).timestamp() * 1000))
    sign_up(session, rita.referral_code, RR_WCID="click-2", RR_WCID_TTL=future)
    assert len(members(session)) == 1


def test_self_referral_is_refused(session, program):
    rita = referrer(session)
    rita.signup_tracking = {"REFERRALCODE": rita.referral_code}
    assert credit_referral_at_sign_up(session=session, account=rita) is None
    assert members(session) == []


def test_second_claim_for_the_same_referee_is_refused(session, program):
    rita, sam = referrer(session), referrer(session, "Sam")
    referee = sign_up(session, rita.referral_code)
    referee.signup_tracking = {"REFERRALCODE": sam.referral_code}
    assert credit_referral_at_sign_up(session=session, account=referee) is None
    [member] = members(session)
    assert member.referrer_account_id == rita.id
    # The same claim again retrieves the member: the spec's 'Member already exists'.
    again = create_member(session=session, program=program, referrer=rita, referee=referee)
    assert again.message == "Member already exists" and again.member.id == member.id


def test_loops_are_refused(session, program):
    a = referrer(session, "Ann")
    b = sign_up(session, a.referral_code)  # A -> B
    ensure_referral_code(session=session, account_id=b.id)
    session.commit()
    with pytest.raises(ReferralError, match=rules.REFUSED_LOOP):
        create_member(session=session, program=program, referrer=b, referee=a)  # B -> A
    c = sign_up(session, b.referral_code)  # A -> B -> C
    ensure_referral_code(session=session, account_id=c.id)
    session.commit()
    a.signup_tracking = {"REFERRALCODE": c.referral_code}  # C -> A would close the chain
    assert credit_referral_at_sign_up(session=session, account=a) is None
    assert [(m.referrer_account_id, m.referee_account_id) for m in members(session)] == [(a.id, b.id), (b.id, c.id)]


def test_no_active_programme_records_nothing(session, program, caplog):
    rita = referrer(session)
    program.active = False
    session.add(program)
    session.commit()
    with caplog.at_level(logging.INFO, logger="portal.services.referrals"):
        sign_up(session, rita.referral_code)
    assert members(session) == []
    assert rules.REFUSED_NO_PROGRAM in caplog.text


# --- the bonus --------------------------------------------------------------------------------------


def test_bonus_once_when_the_first_reward_is_paid(session, program):
    rita = referrer(session)
    referee = sign_up(session, rita.referral_code)
    first = reward_for(session, referee)
    second = reward_for(session, referee)

    # Not paid yet: nothing, and the referee shows 'Reward pending'.
    assert on_reward_paid(session=session, reward_id=first.id) is None
    overview = referral_overview(session=session, account_id=rita.id, base_url="http://x")
    assert [r.status for r in overview.referees] == ["Reward pending"]

    reward, bonus = mark_reward_paid(session=session, reward_id=first.id)
    session.commit()
    assert reward.status == "EXECUTED" and reward.paid_on is not None
    # The bonus is a payable reward of the referrer's own (issue 37).
    assert bonus is not None and (bonus.account_id, bonus.amount_cents, bonus.kind) == (rita.id, 2000, "referral-bonus")

    # Calling again, or paying the second reward, adds nothing.
    assert on_reward_paid(session=session, reward_id=first.id) is None
    _, again = mark_reward_paid(session=session, reward_id=first.id)
    assert again is None
    _, later = mark_reward_paid(session=session, reward_id=second.id)
    session.commit()
    assert later is None
    [member] = members(session)
    assert member.reward_cents == 2000
    # Earned, not paid yet: on its way, and nothing earned in total.
    overview = referral_overview(session=session, account_id=rita.id, base_url="http://x")
    assert [r.status for r in overview.referees] == ["Bonus on its way $20"]
    assert overview.total_earned == "$0"
    # One bonus reward (no review), paid like any reward.
    [only] = session.exec(select(Reward).where(Reward.account_id == rita.id)).all()
    assert only.id == bonus.id and only.review_id is None
    mark_reward_paid(session=session, reward_id=bonus.id)
    session.commit()
    overview = referral_overview(session=session, account_id=rita.id, base_url="http://x")
    assert [r.status for r in overview.referees] == ["Reward paid $20"]
    assert overview.total_earned == "$20"


def test_rewards_of_people_not_referred_credit_nothing(session, program):
    stranger = make_participant(session)
    reward = reward_for(session, stranger)
    _, member = mark_reward_paid(session=session, reward_id=reward.id)
    assert member is None and members(session) == []


def test_total_earned_adds_up(session, program):
    rita = referrer(session)
    for _ in range(2):
        referee = sign_up(session, rita.referral_code)
        _, bonus = mark_reward_paid(session=session, reward_id=reward_for(session, referee).id)
        session.commit()
        mark_reward_paid(session=session, reward_id=bonus.id)  # the bonus is paid like any reward
        session.commit()
    sign_up(session, rita.referral_code)
    overview = referral_overview(session=session, account_id=rita.id, base_url="http://x")
    assert overview.total_earned == "$40"
    assert sorted(r.status for r in overview.referees) == ["Reward paid $20", "Reward paid $20", "Signed up"]


def test_mark_unknown_reward(session, program):
    with pytest.raises(ServiceError, match="not found"):
        mark_reward_paid(session=session, reward_id=987654)


# --- access ---------------------------------------------------------------------------------------


def test_access_needs_the_flag_and_a_verified_user(session, program):
    verified = make_participant(session)
    token = create_session(session=session, account_id=verified.id)
    session.commit()
    assert referral_account_id(session=session, token=token) == verified.id

    unverified = make_participant(session, verified=False, work_email_verified=False)
    other = create_session(session=session, account_id=unverified.id)
    session.commit()
    with pytest.raises(ReferralAccessDenied) as denied:
        referral_account_id(session=session, token=other)
    assert not denied.value.signed_out

    with pytest.raises(ReferralAccessDenied) as signed_out:
        referral_account_id(session=session, token=None)
    assert signed_out.value.signed_out

    # The flag off for this user (a per-user override), then off for everyone.
    session.add(FeatureFlagUser(flag_key="referral-program", account_id=verified.id, enabled=False))
    session.commit()
    with pytest.raises(ReferralAccessDenied):
        referral_account_id(session=session, token=token)
    session.delete(session.get(FeatureFlagUser, ("referral-program", verified.id)))
    flag = session.get(FeatureFlag, "referral-program")
    flag.enabled = False
    session.add(flag)
    session.commit()
    with pytest.raises(ReferralAccessDenied):
        referral_account_id(session=session, token=token)
