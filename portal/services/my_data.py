"""'Download my data' (issue 40, item 2): everything the portal holds about the caller, as a ZIP of JSON and CSV.

One list of sections, each a file: what rows it holds (the caller's own, by the session's account) and which columns
are left out (secrets and hashes: never a password hash, a session token's hash or a code's HMAC). Built in one
transaction, in memory: a person's data is small (the bench of a heavy participant, hundreds of reviews, is well
under a second).
"""

from __future__ import annotations

import csv
import io
import json
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from sqlmodel import Session, SQLModel, col, select

from portal.models import (
    Account,
    AuthSession,
    Invite,
    LoginIdentity,
    Message,
    MessageThread,
    NotificationOptOut,
    OutboxEmail,
    ParticipantProfile,
    PhoneContact,
    ProblemReport,
    ProfileChangeRequest,
    ReferralMember,
    Review,
    ReviewAppeal,
    Reward,
    SmsOptIn,
)
from portal.models._base import utcnow
from portal.services.account_settings import NotSignedIn
from portal.services.sessions import live_session

README = """Your data from {brand}, as of {when} UTC.

profile.json       your account and profile (no password: only a hash of it is kept, and not given out)
sign_ins.csv       every sign-in of your account: when, from which address and browser, until when
emails.csv         every e-mail we sent you (emails.json: with their text)
invites.csv        the tests you were invited to
reviews.json       the tests you took: every answer you gave, and the decision on it
appeals.json       your appeals of a rejection
rewards.csv        your rewards: amounts, states and dates
messages.json      your messages with the research team
notifications.json which notifications you turned off, your phone for texts and the kinds sent as texts
problem_reports.json  problems you reported while taking a test
referrals.csv      the colleagues you referred
"""


def _plain(value: Any) -> Any:
    if isinstance(value, datetime | date):
        return value.isoformat()
    return value


def _dump(row: SQLModel, leave_out: frozenset[str]) -> dict[str, Any]:
    return {k: _plain(v) for k, v in row.model_dump().items() if k not in leave_out}


@dataclass(frozen=True)
class Section:
    name: str  # the file's name
    rows: Callable[[Session, Account], Iterable[SQLModel]]
    leave_out: frozenset[str] = frozenset()


def _mine(model: Any, column: str = "account_id") -> Callable[[Session, Account], Iterable[SQLModel]]:
    def rows(session: Session, account: Account) -> Iterable[SQLModel]:
        field = getattr(model, column)
        return session.exec(select(model).where(field == account.id).order_by(*model.__table__.primary_key)).all()

    return rows


def _emails(session: Session, account: Account) -> Iterable[SQLModel]:
    addresses = [a for a in (account.email, account.work_email, account.payment_email) if a]
    if not addresses:
        return []
    return session.exec(
        select(OutboxEmail).where(col(OutboxEmail.to_address).in_(addresses)).order_by(col(OutboxEmail.id))
    ).all()


def _messages(session: Session, account: Account) -> Iterable[SQLModel]:
    threads = select(MessageThread.id).where(MessageThread.account_id == account.id)
    return session.exec(select(Message).where(col(Message.thread_id).in_(threads)).order_by(col(Message.id))).all()


def _referrals(session: Session, account: Account) -> Iterable[SQLModel]:
    return session.exec(
        select(ReferralMember).where(ReferralMember.referrer_account_id == account.id).order_by(col(ReferralMember.id))
    ).all()


SECRETS = frozenset({"password_hash", "token_hash", "code_hash", "secret"})
SECTIONS: tuple[Section, ...] = (
    Section("sign_ins.csv", _mine(AuthSession), SECRETS),
    Section("emails.csv", _emails, frozenset({"body_text", "unsubscribe_url"})),
    Section("emails.json", _emails),
    Section("invites.csv", _mine(Invite)),
    Section("reviews.json", _mine(Review)),
    Section("appeals.json", _mine(ReviewAppeal)),
    Section("rewards.csv", _mine(Reward)),
    Section("message_threads.json", _mine(MessageThread)),
    Section("messages.json", _messages),
    Section("problem_reports.json", _mine(ProblemReport)),
    Section("referrals.csv", _referrals),
)


def _csv(rows: list[dict[str, Any]]) -> bytes:
    out = io.StringIO()
    if rows:
        writer = csv.DictWriter(out, fieldnames=list(rows[0]))
        writer.writeheader()
        for row in rows:
            writer.writerow({k: json.dumps(v) if isinstance(v, dict | list) else v for k, v in row.items()})
    return out.getvalue().encode("utf-8-sig")  # Excel reads UTF-8 with the mark


def _json(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, indent=2, default=_plain).encode()


def export(session: Session, *, token: str | None, brand: str) -> bytes:
    """The caller's data as a ZIP (bytes). NotSignedIn without a live session."""
    here = live_session(session, token=token)
    account = session.get(Account, here.account_id) if here is not None else None
    if here is None or account is None or account.removed_at is not None:
        raise NotSignedIn()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("README.txt", README.format(brand=brand, when=utcnow().strftime("%Y-%m-%d %H:%M")))
        profile = session.get(ParticipantProfile, account.id)
        archive.writestr(
            "profile.json",
            _json(
                {
                    "account": _dump(account, SECRETS),
                    "profile": _dump(profile, SECRETS) if profile else None,
                    "logins": [_dump(r, SECRETS) for r in _mine(LoginIdentity)(session, account)],
                    "profile_change_requests": [
                        _dump(r, SECRETS) for r in _mine(ProfileChangeRequest)(session, account)
                    ],
                }
            ),
        )
        phone = session.get(PhoneContact, account.id)
        archive.writestr(
            "notifications.json",
            _json(
                {
                    "emails_turned_off": [
                        r.kind
                        for r in session.exec(
                            select(NotificationOptOut).where(NotificationOptOut.account_id == account.id)
                        )
                    ],
                    "phone": _dump(phone, SECRETS) if phone else None,
                    "texts_for": [
                        r.kind for r in session.exec(select(SmsOptIn).where(SmsOptIn.account_id == account.id))
                    ],
                }
            ),
        )
        for section in SECTIONS:
            rows = [_dump(row, section.leave_out | SECRETS) for row in section.rows(session, account)]
            archive.writestr(section.name, _csv(rows) if section.name.endswith(".csv") else _json(rows))
    return buffer.getvalue()
