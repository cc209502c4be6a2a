"""The referral programme: personal codes, members recorded at sign-up, the bonus once the referee is paid.

Keyword-only functions over a database session; the rules are in portal/domain/referrals.py.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from portal.domain import referrals as rules
from portal.domain.flags import REFERRAL_PROGRAM
from portal.models import Account, ParticipantProfile, ReferralMember, ReferralProgram, Review, Reward
from portal.models._base import utcnow
from portal.services.flags import enabled_flags
from portal.services.sessions import resolve_user

log = logging.getLogger(__name__)

PAID = "EXECUTED"
CODE_ATTEMPTS = 8


class ReferralError(Exception):
    """An expected failure with a message for the user or the operator."""


class ReferralAccessDenied(ReferralError):
    """Not signed in, not verified, or the referral flag is off for the user."""

    def __init__(self, message: str, *, signed_out: bool = False):
        super().__init__(message)
        # True when the private-route guard (sign-in) is the right answer rather than 'go home'.
        self.signed_out = signed_out


@dataclass(frozen=True)
class MemberResult:
    """The spec's create-member answer: the member, and 'Member already exists' when it was retrieved."""

    member: ReferralMember
    message: str = ""


@dataclass(frozen=True)
class RefereeRow:
    first_name: str
    joined: str
    status: str


@dataclass(frozen=True)
class ReferralOverview:
    link: str
    code: str
    widget_url: str
    bonus: str
    referees: list[RefereeRow]
    total_earned: str


# --- access ------------------------------------------------------------------------------


def referral_account_id(session: Session, *, token: str | None) -> int:
    """The account behind the session token when it may use the referral page, else ReferralAccessDenied."""
    user = resolve_user(session=session, token=token)
    if user is None or not user.may_use_private_routes:
        raise ReferralAccessDenied("Please sign in.", signed_out=True)
    if not user.is_verified:
        raise ReferralAccessDenied("Referral is not available for this account.")
    if not enabled_flags(session=session, account_id=user.account_id, keys=(REFERRAL_PROGRAM,)).get(REFERRAL_PROGRAM):
        raise ReferralAccessDenied("Referral is not available for this account.")
    return user.account_id


# --- codes --------------------------------------------------------------------------------


def active_program(session: Session) -> ReferralProgram | None:
    return session.exec(
        select(ReferralProgram).where(ReferralProgram.active == True).order_by(ReferralProgram.id)  # noqa: E712
    ).first()


def ensure_referral_code(session: Session, *, account_id: int) -> str:
    """The account's referral code, created (random, unique) the first time it is asked for."""
    account = session.get(Account, account_id)
    if account is None:
        raise ReferralError("Account not found.")
    if account.referral_code:
        return account.referral_code
    for _ in range(CODE_ATTEMPTS):
        code = rules.new_code()
        try:
            with session.begin_nested():
                # Only if still empty: two tabs opening the page at once keep one code.
                result = session.exec(
                    update(Account)
                    .where(col(Account.id) == account_id, col(Account.referral_code).is_(None))
                    .values(referral_code=code)
                )
        except IntegrityError:
            continue  # the code is taken: draw another
        session.refresh(account)
        if result.rowcount or account.referral_code:
            return account.referral_code or code
    raise ReferralError("Could not create a referral code; please try again.")


def account_for_code(session: Session, code: object) -> Account | None:
    normalized = rules.normalize_code(code)
    if normalized is None:
        return None
    account = session.exec(select(Account).where(Account.referral_code == normalized)).first()
    if account is None or account.removed_at is not None:
        return None
    return account


# --- members --------------------------------------------------------------------------------


class _ReferrerOf(Mapping[int, int]):
    """referee -> referrer, read one step at a time (a loop check walks a short chain, not the table)."""

    def __init__(self, session: Session, program_id: int):
        self._session, self._program_id = session, program_id
        self._seen: dict[int, int | None] = {}

    def __getitem__(self, referee_id: int) -> int:
        if referee_id not in self._seen:
            self._seen[referee_id] = self._session.exec(
                select(ReferralMember.referrer_account_id).where(
                    ReferralMember.program_id == self._program_id, ReferralMember.referee_account_id == referee_id
                )
            ).first()
        found = self._seen[referee_id]
        if found is None:
            raise KeyError(referee_id)
        return found

    def __iter__(self) -> Iterator[int]:  # not needed by the rule
        return iter(())

    def __len__(self) -> int:
        return 0


def _first_name(session: Session, account: Account) -> str | None:
    profile = session.get(ParticipantProfile, account.id)
    return (profile.first_name if profile else None) or None


def _member_email(account: Account) -> str:
    return account.email or account.work_email or f"account-{account.id}@referral.invalid"


def create_member(
    session: Session,
    *,
    program: ReferralProgram,
    referrer: Account,
    referee: Account,
    now: datetime | None = None,
    ttl: object = None,
) -> MemberResult:
    """Record that `referrer` referred `referee`, or raise ReferralError with the reason it is refused.

    A second call for the same pair retrieves the member ('Member already exists').
    """
    now = now or utcnow()
    existing = session.exec(select(ReferralMember).where(ReferralMember.referee_account_id == referee.id)).first()
    reason = rules.refusal(
        referrer_id=referrer.id,
        referee_id=referee.id,
        referee_already_referred_by=existing.referrer_account_id if existing else None,
        referrer_of=_ReferrerOf(session, program.id),
        expired=rules.is_expired(ttl, now),
    )
    if reason:
        raise ReferralError(reason)
    if existing is not None:
        return MemberResult(existing, rules.MEMBER_EXISTS)
    member = ReferralMember(
        program_id=program.id,
        referrer_account_id=referrer.id,
        referee_account_id=referee.id,
        first_name=_first_name(session, referee),
        email=_member_email(referee),
    )
    try:
        with session.begin_nested():
            session.add(member)
            session.flush()
    except IntegrityError as err:
        # Claimed meanwhile (same referee, or the same e-mail in this programme).
        raise ReferralError(rules.REFUSED_ALREADY_CLAIMED) from err
    return MemberResult(member)


def credit_referral_at_sign_up(session: Session, *, account: Account) -> ReferralMember | None:
    """At sign-up: link the new account to the owner of the REFERRALCODE in its sign-up tracking.

    Never fails the sign-up: a refused or broken referral is logged and ignored.
    """
    tracking = account.signup_tracking or {}
    raw_code = tracking.get("REFERRALCODE")
    if not raw_code:
        return None
    try:
        program = active_program(session)
        if program is None:
            raise ReferralError(rules.REFUSED_NO_PROGRAM)
        if rules.normalize_code(raw_code) is None:
            raise ReferralError(rules.REFUSED_BAD_CODE)
        referrer = account_for_code(session, raw_code)
        if referrer is None:
            raise ReferralError(rules.REFUSED_UNKNOWN_CODE)
        result = create_member(
            session=session, program=program, referrer=referrer, referee=account, ttl=tracking.get("RR_WCID_TTL")
        )
    except ReferralError as err:
        log.info("referral at sign-up of account %s not recorded: %s", account.id, err)
        return None
    except Exception:
        log.exception("referral at sign-up of account %s failed", account.id)
        return None
    log.info("account %s referred by account %s", account.id, result.member.referrer_account_id)
    return result.member


# --- the bonus ------------------------------------------------------------------------------------


def _reward_account_id(session: Session, reward: Reward) -> int | None:
    if reward.account_id is not None:
        return reward.account_id
    review = session.get(Review, reward.review_id)
    return review.account_id if review else None


def on_reward_paid(session: Session, *, reward_id: int) -> ReferralMember | None:
    """A reward became EXECUTED: credit the referrer's bonus if it is the referee's first paid reward.

    Idempotent: the bonus is written once per member (a conditional update), so a second
    call, or a later reward of the same referee, adds nothing. Returns the member credited now.
    """
    reward = session.get(Reward, reward_id)
    if reward is None or reward.status != PAID or reward.kind != "review":  # a bonus earns no bonus
        return None
    referee_id = _reward_account_id(session, reward)
    if referee_id is None:
        return None
    member = session.exec(select(ReferralMember).where(ReferralMember.referee_account_id == referee_id)).first()
    if member is None or member.reward_paid_at is not None:
        return None
    program = session.get(ReferralProgram, member.program_id)
    bonus = program.bonus_cents if program else 2000
    now = utcnow()
    result = session.exec(
        update(ReferralMember)
        .where(col(ReferralMember.id) == member.id, col(ReferralMember.reward_paid_at).is_(None))
        .values(reward_cents=bonus, reward_paid_at=now)
    )
    session.refresh(member)
    return member if result.rowcount else None


# --- the page ---------------------------------------------------------------------------------


def referral_overview(session: Session, *, account_id: int, base_url: str) -> ReferralOverview:
    """Everything /referral shows: the link (code created on first visit), the referees, the total."""
    code = ensure_referral_code(session=session, account_id=account_id)
    program = active_program(session)
    members = session.exec(
        select(ReferralMember)
        .where(ReferralMember.referrer_account_id == account_id)
        .order_by(col(ReferralMember.created_at).desc(), col(ReferralMember.id).desc())
    ).all()
    referee_ids = [m.referee_account_id for m in members if m.referee_account_id is not None]
    with_reward: set[int | None] = set()
    if referee_ids:
        with_reward = set(
            session.exec(select(Reward.account_id).where(col(Reward.account_id).in_(referee_ids)).distinct()).all()
        )
    # The bonus is a reward of its own (issue 37): paid when that reward is, not when it was earned.
    bonuses: dict[int, tuple[str, int]] = {}
    member_ids = [m.id for m in members]
    if member_ids:
        bonuses = {
            member_id: (status, cents)
            for member_id, status, cents in session.exec(
                select(Reward.referral_member_id, Reward.status, Reward.amount_cents).where(
                    col(Reward.referral_member_id).in_(member_ids)
                )
            ).all()
            if member_id is not None
        }
    rows = [
        RefereeRow(
            first_name=m.first_name or "-",
            joined=rules.joined_label(m.created_at),
            status=rules.referee_status(
                bonus_cents=bonuses.get(m.id, ("", m.reward_cents or 0))[1],
                bonus_paid=bonuses.get(m.id, ("", 0))[0] == PAID,
                has_reward=m.referee_account_id in with_reward,
                bonus_earned=m.id in bonuses,
            ),
        )
        for m in members
    ]
    total = sum(cents for status, cents in bonuses.values() if status == PAID)
    bonus = program.bonus_cents if program else 2000
    return ReferralOverview(
        link=rules.referral_link(base_url, code),
        code=code,
        widget_url=rules.embeddable_widget_url(program.widget_url) if program else "",
        bonus=rules.total_earned_label(bonus),
        referees=rows,
        total_earned=rules.total_earned_label(total),
    )
