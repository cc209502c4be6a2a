"""The participant profile: load it for the form, save a change request, the pickers, the demo opt-in.

Every save re-reads the request with the domain rules (`portal.domain.profile_rules`)
and adds the checks that need the database; on any error nothing is written. The
account is always the signed-in one: staff change others' profiles only through
`services/admin/profiles.py` (permission, rank, audit row), which shares `store_profile`.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, delete, select

from portal.domain import profile_rules as rules
from portal.domain.accounts import normalize_email
from portal.domain.staff import roles as staff_roles
from portal.models import (
    Account,
    Audience,
    CompanySize,
    Industry,
    ParticipantProfile,
    ProfileAudience,
    ProfileChangeRequest,
    ProfileIndustry,
    ProfileRole,
    Role,
)
from portal.models._base import utcnow
from portal.services import work_email
from portal.services.errors import ServiceError
from portal.services.verification import check_send_allowed, notify_email_changed, send_verification


class ProfileRemovedError(ServiceError):
    """The spec's 401: the profile (account) no longer exists."""

    def __init__(self) -> None:
        super().__init__(rules.PROFILE_REMOVED)


class ProfileSaveError(ServiceError):
    """Field errors: 'Form contains error, please double check all fields' plus a message per field."""

    def __init__(self, errors: dict[str, str]):
        super().__init__(rules.FORM_ERROR, errors=errors)


@dataclass(frozen=True)
class ProfileView:
    """What the form shows: the values (flat keys of `ProfileForm`) and what goes around them."""

    participant_id: int
    values: dict[str, Any]
    is_staff: bool  # the person looking is staff (admin-only parts)
    is_panelist: bool
    verified: bool
    email_verified: bool
    work_email_verified: bool
    old_data: dict[str, Any] = field(default_factory=dict)
    linkedin_title: str = ""
    # id -> name of the chosen reference rows (shown even when not on the first picker page).
    industry_names: dict[int, str] = field(default_factory=dict)
    role_names: dict[int, str] = field(default_factory=dict)
    audience_names: dict[int, str] = field(default_factory=dict)


@dataclass(frozen=True)
class SaveOutcome:
    verification_sent_to: list[str]
    verified: bool
    changed: dict[str, Any] = field(default_factory=dict)  # field -> the value before


@dataclass(frozen=True)
class PickerPage:
    results: list[tuple[str, str]]  # (id, label)
    total: int


def _is_staff(account: Account) -> bool:
    return staff_roles.is_staff(account.staff_role)


def _live_account(session: Session, account_id: Any) -> Account | None:
    if not isinstance(account_id, int) or isinstance(account_id, bool):
        return None
    account = session.get(Account, account_id)
    return None if account is None or account.removed_at is not None else account


def _own(session: Session, actor_id: Any) -> Account:
    """The signed-in person's own live account (a removed one is 'removed')."""
    actor = _live_account(session, actor_id)
    if actor is None:
        raise ProfileRemovedError()
    return actor


def _linkedin_title(profile: ParticipantProfile | None) -> str:
    data = (profile.linkedin_profile if profile else None) or {}
    title = data.get("jobTitle") or data.get("headline") or ""
    return title if isinstance(title, str) else ""


def _ids(session: Session, model: type[Any], column: Any, account_id: int) -> tuple[int, ...]:
    rows = session.exec(select(column).where(model.account_id == account_id).order_by(column)).all()
    return tuple(rows)


def current_form(session: Session, account: Account) -> rules.ProfileForm:
    profile = session.get(ParticipantProfile, account.id) or ParticipantProfile(account_id=account.id)
    return rules.ProfileForm(
        firstName=profile.first_name or "",
        lastName=profile.last_name or "",
        hasAnonymizationEnabled=bool(profile.has_anonymization_enabled),
        email=account.email or "",
        workEmail=account.work_email or "",
        phoneNumber=profile.phone_number or "",
        linkedin=profile.linkedin or "",
        linkedinPrivacy=bool(profile.linkedin_privacy),
        hasExperience=bool(profile.has_experience),
        birthYear=str(profile.birth_year) if profile.birth_year else "",
        country=profile.country or "",
        state=profile.state or "",
        industries=_ids(session, ProfileIndustry, ProfileIndustry.industry_id, account.id),
        jobTitle=profile.job_title or "",
        roles=_ids(session, ProfileRole, ProfileRole.role_id, account.id),
        experienceLevels=tuple(profile.experience_levels or ()),
        companySize=profile.company_size_id or "",
        companyName=profile.company_name or "",
        languages=tuple(profile.languages or ()),
        audiences=_ids(session, ProfileAudience, ProfileAudience.audience_id, account.id),
        gender=profile.gender or "",
        pronoun=profile.pronoun or "",
        gender_custom=profile.gender_custom or "",
        sex_orientation=profile.sex_orientation or "",
        sex_orientation_custom=profile.sex_orientation_custom or "",
        race=profile.race or "",
        ethnicity=profile.ethnicity or "",
        veteran=profile.veteran or "",
    )


def _names(session: Session, model: Any, ids: tuple[int, ...] | None) -> dict[int, str]:
    if not ids:
        return {}
    return dict(session.exec(select(model.id, model.name).where(col(model.id).in_(ids))).all())


def load_profile(session: Session, *, actor_id: int) -> ProfileView:
    """The signed-in person's own profile (staff look at others' through services/admin/profiles.py)."""
    account = _own(session, actor_id)
    return profile_view(session, account, staff_view=False)


def profile_view(session: Session, target: Account, *, staff_view: bool) -> ProfileView:
    """What the form shows of `target`: staff views add the internal fields and the old values."""
    form = current_form(session, target)
    profile = session.get(ParticipantProfile, target.id)
    values = rules.flat_values(form)
    if not staff_view:  # roles and audiences are internal
        values["roles"] = None
        values["audiences"] = None
    return ProfileView(
        participant_id=target.id,
        values=values,
        is_staff=staff_view,
        is_panelist=not _is_staff(target),
        verified=target.verified,
        email_verified=target.email_verified_at is not None,
        work_email_verified=target.work_email_verified_at is not None,
        old_data=dict(profile.old_data or {}) if (profile and staff_view) else {},
        linkedin_title=_linkedin_title(profile),
        industry_names=_names(session, Industry, form.industries),
        role_names=_names(session, Role, form.roles) if staff_view else {},
        audience_names=_names(session, Audience, form.audiences) if staff_view else {},
    )


# --- saving --------------------------------------------------------------------------------


def _unknown_ids(session: Session, model: Any, ids: tuple[int, ...] | None, *, extra_where: Any = None) -> bool:
    if not ids:
        return False
    statement = select(func.count()).select_from(model).where(col(model.id).in_(ids))
    if extra_where is not None:
        statement = statement.where(extra_where)
    return session.exec(statement).one() != len(set(ids))


def _work_email_error(session: Session, address: str, account_id: int) -> str:
    """The onboarding's work-e-mail rule (syntax, free-mail and disposable domains, used elsewhere). '' when fine."""
    return work_email.work_email_problem(session=session, work_email=address, exclude_account_id=account_id)


def _database_errors(
    session: Session, form: rules.ProfileForm, old: rules.ProfileForm, *, target: Account, staff: bool
) -> dict[str, str]:
    errors: dict[str, str] = {}
    # An industry no longer offered stays valid on a profile that already has it.
    new_industries = tuple(i for i in form.industries if i not in old.industries)
    if _unknown_ids(session, Industry, new_industries, extra_where=Industry.active_for_testers.is_(True)):
        errors["industries"] = rules.LIST_UNKNOWN
    if _unknown_ids(session, Role, form.roles):
        errors["roles"] = rules.LIST_UNKNOWN
    if _unknown_ids(session, Audience, form.audiences):
        errors["audiences"] = rules.LIST_UNKNOWN
    if form.companySize and session.get(CompanySize, form.companySize) is None:
        errors["companySize"] = rules.OPTION_UNKNOWN
    for key in ("email", "workEmail"):
        address = normalize_email(getattr(form, key))
        if address == normalize_email(getattr(old, key)):
            continue
        if work_email.email_taken(session=session, account_id=target.id, email=address):
            errors[key] = rules.EMAIL_EXISTS
        elif key == "workEmail" and not staff:  # staff may add any e-mail
            message = _work_email_error(session, address, target.id)
            if message:
                errors[key] = message
    return errors


def replace_links(session: Session, model: Any, column: str, account_id: int, ids: tuple[int, ...] | None) -> None:
    if ids is None:
        return
    session.exec(delete(model).where(model.account_id == account_id))
    for value in dict.fromkeys(ids):
        session.add(model(account_id=account_id, **{column: value}))


def write_profile(profile: ParticipantProfile, form: rules.ProfileForm) -> None:
    profile.first_name = form.firstName
    profile.last_name = form.lastName
    profile.has_anonymization_enabled = form.hasAnonymizationEnabled
    profile.phone_number = form.phoneNumber or None
    profile.linkedin = form.linkedin or None
    profile.linkedin_privacy = form.linkedinPrivacy
    profile.has_experience = form.hasExperience
    profile.birth_year = int(form.birthYear) if form.birthYear else None
    profile.country = form.country or None
    profile.state = form.state or None
    profile.job_title = form.jobTitle or None
    profile.experience_levels = list(form.experienceLevels)
    profile.company_size_id = form.companySize or None
    profile.company_name = form.companyName or None
    profile.languages = list(form.languages)
    for key, _label, _options in rules.DEMOGRAPHIC_FIELDS:
        setattr(profile, key, getattr(form, key) or None)
    for custom in rules.CUSTOM_FIELDS.values():
        setattr(profile, custom, getattr(form, custom) or None)


def save_profile(session: Session, *, actor_id: int, raw: Any, today: dt.date | None = None) -> SaveOutcome:
    """Validate and store a change of the signed-in person's own profile, recorded as a change request.

    `raw`: the form's values (flat keys, or the spec's nested shape), untrusted. A changed e-mail or work
    e-mail becomes unverified and gets a verification link; the old personal address is told. When that link
    is over the e-mail limits (`portal.domain.mail_limits`): ThrottledError, nothing saved.
    """
    account = _own(session, actor_id)
    return store_profile(session, actor=account, target=account, raw=raw, staff_view=False, verify=False, today=today)


def store_profile(
    session: Session,
    *,
    actor: Account,
    target: Account,
    raw: Any,
    staff_view: bool,
    verify: bool,
    today: dt.date | None = None,
) -> SaveOutcome:
    """The save shared by a person's own profile and the staff page (services/admin/profiles.py, which checks
    the caller's permission and rank first). `staff_view`: the staff's rules (internal fields, any e-mail)."""
    staff = staff_view
    form, errors = rules.parse_payload(raw)
    if form.participant_id is not None and form.participant_id != target.id:
        raise ProfileSaveError({"_id": rules.NOT_YOUR_PROFILE})
    if verify and not staff:
        raise ProfileSaveError({"verified": rules.STAFF_ONLY})
    profile = session.get(ParticipantProfile, target.id)
    old = current_form(session, target)
    year = (today or utcnow().date()).year
    errors.update(
        rules.validate(
            form,
            is_staff=staff,
            is_panelist=not _is_staff(target),
            current_year=year,
            linkedin_title=_linkedin_title(profile) if form.jobTitle != old.jobTitle else "",
        )
    )
    if errors:
        raise ProfileSaveError(errors)
    form = rules.normalized(form)
    errors = _database_errors(session, form, old, target=target, staff=staff)
    if errors:
        raise ProfileSaveError(errors)
    email_changes = rules.changed_emails(old.email, old.workEmail, form)
    for kind, address in email_changes:  # within the e-mail limits, or ThrottledError and nothing saved
        check_send_allowed(session=session, account_id=target.id, kind=kind, address=address)

    now = utcnow()
    if profile is None:
        profile = ParticipantProfile(account_id=target.id)
    changed = rules.changed_fields(old, form)
    if changed:
        profile.old_data = changed
    write_profile(profile, form)
    profile.updated_at = now
    session.add(profile)
    session.flush()  # the profile row exists before its links
    replace_links(session, ProfileIndustry, "industry_id", target.id, form.industries)
    replace_links(session, ProfileRole, "role_id", target.id, form.roles if staff else None)
    replace_links(session, ProfileAudience, "audience_id", target.id, form.audiences if staff else None)

    for kind, address in email_changes:
        if kind == "personal":
            target.email, target.email_verified_at = address, None
        else:
            target.work_email, target.work_email_verified_at = address, None
    if verify:
        target.verified = True
    target.updated_at = now
    session.add(target)
    by_staff = staff and target.id != actor.id
    own_staff = _is_staff(actor) and target.id == actor.id  # a staff member's own edit needs nobody's decision
    session.add(
        ProfileChangeRequest(
            account_id=target.id,
            payload=rules.to_payload(form, updated_by_admin=by_staff),
            updated_by_admin=by_staff,
            previous=changed,
            # A participant's change waits in the staff queue; staff's own edits are decided by them.
            status="pending" if not (staff or own_staff) and changed else "approved",
            decided_at=None if not (staff or own_staff) and changed else now,
            decided_by_id=actor.id if (staff or own_staff) else None,
        )
    )
    try:
        session.flush()
    except IntegrityError as err:  # another account took the address a moment ago
        raise ProfileSaveError(
            {
                key: rules.EMAIL_EXISTS
                for key in ("email", "workEmail")
                if any(k == ("personal" if key == "email" else "work") for k, _ in email_changes)
            }
            or {"_global": rules.SOMETHING_WENT_WRONG}
        ) from err
    sent_to = []
    for kind, address in email_changes:
        send_verification(session=session, account=target, kind=kind)
        previous = old.email if kind == "personal" else old.workEmail
        if previous:
            notify_email_changed(session=session, old_email=previous, new_email=address)
        sent_to.append(address)
    return SaveOutcome(verification_sent_to=sent_to, verified=target.verified, changed=changed)


def email_problem(session: Session, *, actor_id: int, key: str, address: Any) -> str:
    """The live check of the own profile's e-mail or work e-mail field. '' if fine."""
    account = _own(session, actor_id)
    return check_email(session, target=account, key=key, address=address, staff_view=False)


def check_email(session: Session, *, target: Account, key: str, address: Any, staff_view: bool) -> str:
    """Syntax, used by another account, the work rule (not for staff, who may add any e-mail). '' if fine."""
    if key not in ("email", "workEmail") or not isinstance(address, str):
        return ""
    message = rules.email_error(
        address, required_message=rules.EMAIL_REQUIRED if key == "email" else rules.WORK_EMAIL_REQUIRED
    )
    if message:
        return message
    address = normalize_email(address)
    if address == normalize_email(target.email if key == "email" else target.work_email):
        return ""
    if work_email.email_taken(session=session, account_id=target.id, email=address):
        return rules.EMAIL_EXISTS
    if key == "workEmail" and not staff_view:
        return _work_email_error(session, address, target.id)
    return ""


# --- pickers (pages of 100) ----------------------------------------------------------------------


def _page_args(page: Any, page_size: Any) -> tuple[int, int]:
    page = page if isinstance(page, int) and not isinstance(page, bool) and 1 <= page <= 10_000 else 1
    size = (
        page_size if isinstance(page_size, int) and not isinstance(page_size, bool) and 1 <= page_size <= 100 else 100
    )
    return page, size


def company_sizes_page(session: Session, *, page: int = 1, page_size: int = rules.PICKER_PAGE_SIZE) -> PickerPage:
    page, size = _page_args(page, page_size)
    total = session.exec(select(func.count()).select_from(CompanySize)).one()
    rows = session.exec(
        select(CompanySize).order_by(CompanySize.sort_order, CompanySize.id).offset((page - 1) * size).limit(size)
    ).all()
    return PickerPage(
        results=[(r.id, rules.company_size_label(r.id, r.min_size, r.max_size, r.without_max_size)) for r in rows],
        total=total,
    )


def _named_page(session: Session, model: Any, page: Any, page_size: Any, search: Any, where: Any = None) -> PickerPage:
    page, size = _page_args(page, page_size)
    statement = select(model)
    if where is not None:
        statement = statement.where(where)
    text = " ".join(search.split())[:100] if isinstance(search, str) else ""
    if text:
        escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        statement = statement.where(col(model.name).ilike(f"%{escaped}%", escape="\\"))
    total = session.exec(select(func.count()).select_from(statement.subquery())).one()
    rows = session.exec(statement.order_by(model.name, model.id).offset((page - 1) * size).limit(size)).all()
    return PickerPage(results=[(str(r.id), r.name) for r in rows], total=total)


def industries_page(
    session: Session, *, page: int = 1, page_size: int = rules.PICKER_PAGE_SIZE, search: str = ""
) -> PickerPage:
    """Industries offered to testers, by name (the spec's sortBy name, direction 1)."""
    return _named_page(session, Industry, page, page_size, search, Industry.active_for_testers.is_(True))


def roles_page(
    session: Session, *, page: int = 1, page_size: int = rules.PICKER_PAGE_SIZE, search: str = ""
) -> PickerPage:
    """Roles (internal: the staff page reads them through services/admin/profiles.py)."""
    return _named_page(session, Role, page, page_size, search)


def audiences_page(session: Session, *, page: int = 1, page_size: int = rules.PICKER_PAGE_SIZE) -> PickerPage:
    """Audiences (internal: the staff page reads them through services/admin/profiles.py)."""
    return _named_page(session, Audience, page, page_size, "")


# --- demo opt-in (screen 15) -------------------------------------------------------------------


def demo_opt_in_status(session: Session, *, account_id: int) -> bool | None:
    profile = session.get(ParticipantProfile, account_id)
    return None if profile is None else profile.demo_product_opt_in_status


def set_demo_opt_in(session: Session, *, account_id: int, status: Any) -> bool:
    """Yes (True) or No (False) to live demo meetings, recorded as a profile change request."""
    if not isinstance(status, bool):
        raise ServiceError(rules.SOMETHING_WENT_WRONG)
    account = _live_account(session, account_id)
    if account is None:
        raise ProfileRemovedError()
    profile = session.get(ParticipantProfile, account_id) or ParticipantProfile(account_id=account_id)
    profile.demo_product_opt_in_status = status
    profile.updated_at = utcnow()
    session.add(profile)
    session.add(
        ProfileChangeRequest(
            account_id=account_id,
            payload={"demoProductOptInStatus": status, "updatedByAdmin": False},
            updated_by_admin=False,
        )
    )
    return status
