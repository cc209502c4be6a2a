"""The onboarding (finish sign-up): load what the three steps show, save the sign-up fields, resend.

`finish_sign_up` is the spec's POST /account/sign-up/finish: it checks every sign-up field again
(`portal.domain.sign_up_fields`) plus what needs the database (an e-mail or work e-mail used by
another account), and with any error writes nothing. On success it stores the fields, marks the
registration complete and writes verification links for the addresses that need one (outbox,
same transaction).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from portal.domain import onboarding as steps
from portal.domain import sign_up_fields as fields
from portal.domain.accounts import normalize_email
from portal.models import Account, ParticipantProfile
from portal.models._base import utcnow
from portal.services import verification
from portal.services.errors import ServiceError
from portal.services.work_email import check_work_email, email_taken

log = logging.getLogger(__name__)

REGISTERED_STAGE = "registered"


class ProfileRemovedError(ServiceError):
    def __init__(self) -> None:
        super().__init__(steps.PROFILE_REMOVED)


class ResendRefused(ServiceError):
    """A resend refused; `already_verified` when the address turned out to be verified meanwhile."""

    def __init__(self, message: str, *, already_verified: bool) -> None:
        super().__init__(message)
        self.already_verified = already_verified


@dataclass(frozen=True)
class OnboardingData:
    values: dict[str, str]
    registration_complete: bool
    email_verified: bool
    work_email_verified: bool
    stored_email: str
    stored_work_email: str
    from_linkedin: bool


@dataclass(frozen=True)
class FinishResult:
    ok: bool
    errors: dict[str, str] = field(default_factory=dict)
    first_time: bool = False  # this save completed the registration
    sent_to: tuple[str, ...] = ()  # addresses that got a verification link


def _account(session: Session, account_id: int) -> Account:
    account = session.get(Account, account_id)
    if account is None or account.removed_at is not None:
        raise ProfileRemovedError()
    return account


def _profile(session: Session, account_id: int) -> ParticipantProfile:
    profile = session.get(ParticipantProfile, account_id)
    if profile is None:
        profile = ParticipantProfile(account_id=account_id)
        session.add(profile)
    return profile


def load_onboarding(session: Session, *, account_id: int) -> OnboardingData:
    """The step values: what is stored, else the LinkedIn profile; the work e-mail prefill rule."""
    account = _account(session, account_id)
    profile = session.get(ParticipantProfile, account_id)
    claims = (profile.linkedin_profile if profile else None) or {}
    prefill = fields.linkedin_prefill(claims)
    stored = {
        "firstName": (profile.first_name if profile else None) or "",
        "lastName": (profile.last_name if profile else None) or "",
        "jobTitle": (profile.job_title if profile else None) or "",
        "email": account.email or "",
        "companyName": (profile.company_name if profile else None) or "",
        "workEmail": account.work_email or "",
        "employerHqCountry": (profile.employer_hq_country if profile else None) or "",
    }
    values = {key: stored[key] or prefill.get(key, "") for key in fields.FIELDS}
    values["workEmail"] = fields.work_email_prefill(
        work_email_value=values["workEmail"],
        account_email=account.email or "",
        account_email_verified=account.email_verified_at is not None,
    )
    return OnboardingData(
        values=values,
        registration_complete=account.is_registration_complete,
        email_verified=account.email_verified_at is not None,
        work_email_verified=account.work_email_verified_at is not None,
        stored_email=account.email or "",
        stored_work_email=account.work_email or "",
        from_linkedin=bool(claims),
    )


def database_errors(session: Session, *, account: Account, form: fields.SignUpForm) -> dict[str, str]:
    """The checks that need the database, for fields whose own rules passed."""
    errors: dict[str, str] = {}
    if form.email and form.email != normalize_email(account.email):
        if email_taken(session=session, account_id=account.id, email=form.email):
            errors["email"] = fields.EMAIL_EXISTS
    if account.work_email_verified_at is not None:
        if form.workEmail != normalize_email(account.work_email):
            errors["workEmail"] = fields.WORK_EMAIL_LOCKED  # the field is disabled once verified
    elif form.workEmail:
        check = check_work_email(session=session, account_id=account.id, value=form.workEmail)
        if not check.valid and check.message:
            errors["workEmail"] = check.message
    return errors


def finish_sign_up(session: Session, *, account_id: int, raw: object) -> FinishResult:
    """Check and save the sign-up fields; the registration becomes complete. Any error: nothing written.

    Raises ThrottledError (nothing written) when a verification e-mail it would send is over the
    e-mail limits (`portal.domain.mail_limits`); the message says how long to wait.
    """
    account = _account(session, account_id)
    form = fields.parse(raw)
    errors = fields.validate(form)
    for key, message in database_errors(session=session, account=account, form=form).items():
        errors.setdefault(key, message)
    if errors:
        return FinishResult(ok=False, errors=errors)

    now = utcnow()
    first_time = not account.is_registration_complete
    work_changed = form.workEmail != normalize_email(account.work_email)
    email_changed = form.email != normalize_email(account.email)
    # A newcomer whose provider did not vouch for the address gets a link too: the banner says one was sent.
    send_personal = email_changed or (first_time and account.email_verified_at is None)
    if send_personal:
        verification.check_send_allowed(session=session, account_id=account.id, kind="personal", address=form.email)
    if work_changed or (first_time and account.work_email_verified_at is None):
        verification.check_send_allowed(session=session, account_id=account.id, kind="work", address=form.workEmail)
    profile = _profile(session, account.id)
    profile.first_name = form.firstName
    profile.last_name = form.lastName
    profile.job_title = form.jobTitle
    profile.company_name = form.companyName or None
    profile.employer_hq_country = form.employerHqCountry
    profile.updated_at = now

    old_email = normalize_email(account.email)
    if email_changed:
        account.email = form.email
        account.email_verified_at = None
    if work_changed:
        account.work_email = form.workEmail
        account.work_email_verified_at = None
    account.is_registration_complete = True
    if account.stage == "new":
        account.stage = REGISTERED_STAGE
    account.updated_at = now
    session.add(profile)
    session.add(account)
    try:
        session.flush()
    except IntegrityError:  # another account took the address meanwhile
        session.rollback()
        taken = "workEmail" if work_changed and not email_changed else "email"
        return FinishResult(ok=False, errors={taken: fields.EMAIL_EXISTS})

    sent: list[str] = []
    if send_personal:
        sent.append(verification.send_verification(session=session, account=account, kind="personal"))
    if email_changed and old_email:
        verification.notify_email_changed(session=session, old_email=old_email, new_email=form.email)
    if account.work_email_verified_at is None and (work_changed or first_time):
        sent.append(verification.send_verification(session=session, account=account, kind="work"))
    if first_time:
        log.info("sign-up completed: account %s registered", account.id)
    return FinishResult(ok=True, first_time=first_time, sent_to=tuple(sent))


def resend_work_email(session: Session, *, account_id: int, kind: str = "work") -> str:
    """'Resend email' of the last step: the onboarding's success text, or ServiceError with the spec's texts."""
    if kind not in ("work", "personal"):
        raise ServiceError(steps.RESEND_FAILED)
    _account(session, account_id)
    try:
        verification.resend(session=session, account_id=account_id, kind=kind)
    except verification.ResendError as err:
        message = err.messages[0] if err.messages and err.messages[0] else steps.RESEND_FAILED
        raise ResendRefused(message, already_verified=err.already_verified) from err
    return steps.RESEND_SENT
