"""Saving the profile: the change request, e-mail changes with verification, and raw bad input refused."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlmodel import select

from portal.domain import profile_rules as rules
from portal.models import (
    Account,
    AuditEntry,
    Industry,
    OutboxEmail,
    ParticipantProfile,
    ProfileChangeRequest,
    ProfileIndustry,
    ProfileRole,
    Role,
)
from portal.services import profile as service
from portal.services.admin import profiles as admin_profiles
from portal.services.admin.guard import StaffRefused
from portal.services.seeding import seed_reference
from tests.support.factories import make_participant, unique_email

TODAY = dt.date(2026, 11, 21)


@pytest.fixture
def seeded(session):
    seed_reference(session)
    session.commit()
    return session


def _industry_ids(session, n: int) -> list[int]:
    return list(
        session.exec(
            select(Industry.id).where(Industry.active_for_testers.is_(True)).order_by(Industry.name).limit(n)
        ).all()
    )


def _form(account: Account, **values) -> dict:
    form = {
        "firstName": "Avery",
        "lastName": "Tester",
        "email": account.email,
        "workEmail": account.work_email,
        "languages": ["english"],
    }
    form.update(values)
    return form


def _save(session, account, raw, **kwargs):
    outcome = service.save_profile(session=session, actor_id=account.id, raw=raw, today=TODAY, **kwargs)
    session.commit()
    return outcome


def _snapshot(session, account_id: int) -> tuple:
    session.expire_all()
    account = session.get(Account, account_id)
    profile = session.get(ParticipantProfile, account_id)
    industries = session.exec(select(ProfileIndustry.industry_id).where(ProfileIndustry.account_id == account_id)).all()
    requests = session.exec(select(ProfileChangeRequest).where(ProfileChangeRequest.account_id == account_id)).all()
    outbox = session.exec(select(OutboxEmail)).all()
    return (
        account.email,
        account.work_email,
        account.email_verified_at,
        profile.model_dump(),
        sorted(industries),
        len(requests),
        len(outbox),
    )


def test_save_stores_the_fields_and_records_a_change_request(seeded):
    session = seeded
    account = make_participant(session)
    ids = _industry_ids(session, 3)
    raw = _form(
        account,
        linkedin="linkedin.com/in/avery",
        phoneNumber="+1 415 555 0134",
        birthYear="1990",
        country="US",
        state="US-NY",
        industries=ids,
        experience={"jobTitle": "Buyer", "experienceLevels": ["middle"], "companySize": "small"},
        company={"name": "Initech"},
        languages=["english", "dutch"],
        hasAnonymizationEnabled=True,
        gender="Non-binary",
        isAdmin=True,
    )
    outcome = _save(session, account, raw)
    assert outcome.verification_sent_to == []
    session.expire_all()
    profile = session.get(ParticipantProfile, account.id)
    assert (profile.linkedin, profile.phone_number, profile.birth_year, profile.state) == (
        "https://www.linkedin.com/in/avery",
        "+14155550134",
        1990,
        "US-NY",
    )
    assert (profile.job_title, profile.company_size_id, profile.company_name, profile.experience_levels) == (
        "Buyer",
        "small",
        "Initech",
        ["middle"],
    )
    assert (
        profile.has_anonymization_enabled
        and profile.languages == ["english", "dutch"]
        and profile.gender == "Non-binary"
    )
    assert sorted(
        session.exec(select(ProfileIndustry.industry_id).where(ProfileIndustry.account_id == account.id)).all()
    ) == sorted(ids)
    request = session.exec(select(ProfileChangeRequest).where(ProfileChangeRequest.account_id == account.id)).one()
    assert request.updated_by_admin is False and request.payload["updatedByAdmin"] is False
    assert request.payload["industries"] == ids and request.payload["experience"]["companySize"] == "small"
    assert "isAdmin" not in request.payload and "roles" not in request.payload["experience"]
    # The form reads back what was saved.
    view = service.load_profile(session=session, actor_id=account.id)
    assert view.values["industries"] == ids and view.values["linkedin"] == "https://www.linkedin.com/in/avery"
    assert view.values["roles"] is None and not view.is_staff and view.old_data == {}
    assert set(view.industry_names) == set(ids)


def test_changing_the_email_unverifies_it_and_sends_a_verification_link(seeded):
    session = seeded
    account = make_participant(session)
    old_email, new_email = account.email, unique_email("moved").upper()
    outcome = _save(session, account, _form(account, email=new_email))
    assert outcome.verification_sent_to == [new_email.lower()]
    session.expire_all()
    stored = session.get(Account, account.id)
    assert stored.email == new_email.lower() and stored.email_verified_at is None
    assert stored.work_email_verified_at is not None  # the work e-mail did not change
    link = session.exec(select(OutboxEmail).where(OutboxEmail.to_address == new_email.lower())).one()
    assert link.kind == "verify-email" and "/api/account/verify-email?token=" in link.link
    notice = session.exec(select(OutboxEmail).where(OutboxEmail.to_address == old_email)).one()
    assert notice.kind == "email-changed" and new_email.lower() in notice.body_text


def test_changing_the_work_email_sends_its_own_link(seeded):
    session = seeded
    account = make_participant(session)
    new_work = "avery@initech.example"
    outcome = _save(session, account, _form(account, workEmail=new_work))
    assert outcome.verification_sent_to == [new_work]
    session.expire_all()
    stored = session.get(Account, account.id)
    assert (
        stored.work_email == new_work and stored.work_email_verified_at is None and stored.email_verified_at is not None
    )
    assert session.exec(select(OutboxEmail).where(OutboxEmail.to_address == new_work)).one().kind == "verify-work-email"


def test_an_email_of_another_account_is_refused(seeded):
    session = seeded
    other = make_participant(session)
    account = make_participant(session)
    before = _snapshot(session, account.id)
    for raw, key in (
        (_form(account, email=other.email.upper()), "email"),
        (_form(account, workEmail=other.email), "workEmail"),
        (_form(account, email=other.work_email), "email"),
    ):
        with pytest.raises(service.ProfileSaveError) as refused:
            _save(session, account, raw)
        session.rollback()
        assert refused.value.message == "Form contains error, please double check all fields"
        assert refused.value.errors == {key: "Email already exists"}
    assert _snapshot(session, account.id) == before
    # The user's own addresses are not "taken" (the current user is excluded).
    _save(session, account, _form(account, email=account.email.upper()))


@pytest.mark.parametrize(
    ("change", "errors"),
    [
        ({"industries": "FIVE"}, {"industries": rules.LIST_UNKNOWN}),
        (
            {"experience": {"experienceLevels": ["founder", "senior", "middle"]}},
            {"experienceLevels": rules.SENIORITY_LIMIT},
        ),
        ({"birthYear": "198"}, {"birthYear": "Please enter a 4-digit year between 1900 and 2010"}),
        ({"country": "XX"}, {"country": rules.COUNTRY_UNKNOWN}),
        ({"country": "US", "state": "FR-IDF"}, {"state": rules.STATE_UNKNOWN}),
        ({"phoneNumber": "12345"}, {"phoneNumber": rules.PHONE_INVALID}),
        ({"languages": ["dutch"]}, {"languages": rules.ENGLISH_REQUIRED}),
        ({"experience": {"roles": [1]}}, {"roles": rules.STAFF_ONLY}),
        ({"experience": {"companySize": "gigantic"}}, {"companySize": rules.OPTION_UNKNOWN}),
        ({"industries": [999999]}, {"industries": rules.LIST_UNKNOWN}),
        ({"firstName": "", "email": "nope"}, {"firstName": rules.FIRST_NAME_REQUIRED, "email": rules.EMAIL_INVALID}),
    ],
)
def test_raw_bad_input_is_refused_and_changes_nothing(seeded, change, errors):
    session = seeded
    account = make_participant(session)
    before = _snapshot(session, account.id)
    with pytest.raises(service.ProfileSaveError) as refused:
        _save(session, account, _form(account, **{"phoneNumber": "+14155550134", **change}))
    session.rollback()
    assert refused.value.message == rules.FORM_ERROR
    assert refused.value.errors == errors
    assert _snapshot(session, account.id) == before


def test_five_industries_are_refused(seeded):
    session = seeded
    account = make_participant(session)
    before = _snapshot(session, account.id)
    with pytest.raises(service.ProfileSaveError) as refused:
        _save(session, account, _form(account, industries=_industry_ids(session, 5)))
    session.rollback()
    assert refused.value.errors == {"industries": "You can add up to 3 industries."}
    assert _snapshot(session, account.id) == before


def test_another_participants_id_is_refused(seeded):
    session = seeded
    victim = make_participant(session)
    account = make_participant(session)
    before_victim, before = _snapshot(session, victim.id), _snapshot(session, account.id)
    with pytest.raises(service.ProfileSaveError) as refused:
        _save(session, account, _form(account, _id=victim.id, firstName="Mallory"))
    session.rollback()
    assert refused.value.errors == {"_id": rules.NOT_YOUR_PROFILE}
    # The participant's services have no way to name another account, nor to verify.
    for call in (service.save_profile, service.load_profile):
        with pytest.raises(TypeError):
            call(session=session, actor_id=account.id, raw=_form(victim), participant_id=victim.id)
    with pytest.raises(TypeError):
        _save(session, account, _form(account), verify=True)
    # The staff door refuses a participant.
    with pytest.raises(StaffRefused):
        admin_profiles.save_participant_profile(
            session=session,
            actor_id=account.id,
            participant_id=victim.id,
            raw=_form(victim, firstName="Mallory"),
            verify=True,
        )
    session.rollback()
    assert _snapshot(session, victim.id) == before_victim and _snapshot(session, account.id) == before


def test_a_removed_profile_is_told_so(seeded):
    session = seeded
    account = make_participant(session)
    account.removed_at = account.created_at
    session.add(account)
    session.commit()
    with pytest.raises(service.ProfileRemovedError) as removed:
        _save(session, account, _form(account))
    assert removed.value.message == "Sorry, your profile was removed"


def test_staff_edit_a_participant_with_roles_any_email_and_verify(seeded):
    session = seeded
    staff = make_participant(session)
    staff.staff_role = "super-admin"
    session.add(staff)
    participant = make_participant(session, verified=False)
    session.commit()
    role_ids = list(session.exec(select(Role.id).order_by(Role.name).limit(2)).all())
    raw = _form(
        participant, firstName="Renamed", workEmail="renamed@gmail.com", experience={"roles": role_ids}, audiences=[]
    )
    outcome = admin_profiles.save_participant_profile(
        session=session, actor_id=staff.id, participant_id=participant.id, raw=raw, verify=True, today=TODAY
    )
    session.commit()
    assert outcome.verified and outcome.verification_sent_to == ["renamed@gmail.com"]
    session.expire_all()
    assert session.get(Account, participant.id).verified
    assert sorted(
        session.exec(select(ProfileRole.role_id).where(ProfileRole.account_id == participant.id)).all()
    ) == sorted(role_ids)
    request = session.exec(select(ProfileChangeRequest).where(ProfileChangeRequest.account_id == participant.id)).one()
    assert request.updated_by_admin is True
    entry = session.exec(select(AuditEntry).where(AuditEntry.target_id == str(participant.id))).one()
    assert entry.action == "participant.verify-profile" and entry.actor_id == staff.id
    assert entry.before["firstName"] == "Avery" and entry.after["firstName"] == "Renamed"
    assert entry.before["verified"] is False and entry.after["verified"] is True
    view = admin_profiles.participant_profile(session=session, actor_id=staff.id, participant_id=participant.id).profile
    assert view.is_staff and view.values["roles"] == sorted(role_ids)
    assert view.old_data["firstName"] == "Avery"  # highlighted for staff
    # The participant does not see the internal parts.
    own = service.load_profile(session=session, actor_id=participant.id)
    assert own.values["roles"] is None and own.old_data == {}


def test_picker_pages_of_100_and_labels(seeded):
    session = seeded
    sizes = service.company_sizes_page(session=session)
    assert (
        sizes.total == 6
        and sizes.results[0] == ("solo", "0 - 1 employees")
        and sizes.results[-1] == ("enterprise", "1K+ employees")
    )
    first = service.industries_page(session=session, page=1, page_size=20)
    second = service.industries_page(session=session, page=2, page_size=20)
    assert first.total == second.total == 57 and len(first.results) == 20
    assert not {i for i, _ in first.results} & {i for i, _ in second.results}
    names = [n for _, n in first.results]
    assert names == sorted(names) and "Tobacco" not in names
    assert service.industries_page(session=session, search="bank").results[0][1] == "Banking"
    assert service.industries_page(session=session, search="%").total == 0
    assert len(service.industries_page(session=session, page_size=10_000).results) == 57  # capped at 100


def test_demo_opt_in_is_saved(seeded):
    session = seeded
    account = make_participant(session)
    assert service.demo_opt_in_status(session=session, account_id=account.id) is None
    service.set_demo_opt_in(session=session, account_id=account.id, status=False)
    session.commit()
    assert service.demo_opt_in_status(session=session, account_id=account.id) is False
    with pytest.raises(service.ServiceError):
        service.set_demo_opt_in(session=session, account_id=account.id, status="yes")


def test_a_free_mail_or_disposable_work_email_is_refused_for_participants(seeded):
    session = seeded
    account = make_participant(session)
    before = _snapshot(session, account.id)
    for address, message in (
        (
            "avery@gmail.com",
            "Please use your work email. Addresses from free email providers such as gmail.com are not accepted.",
        ),
        ("avery@mailinator.com", "Disposable email addresses are not accepted. Please use your work email."),
    ):
        with pytest.raises(service.ProfileSaveError) as refused:
            _save(session, account, _form(account, workEmail=address))
        session.rollback()
        assert refused.value.errors == {"workEmail": message}
        assert service.email_problem(session=session, actor_id=account.id, key="workEmail", address=address) == message
    assert _snapshot(session, account.id) == before
    # The personal e-mail may be a free-mail address.
    assert service.email_problem(session=session, actor_id=account.id, key="email", address="avery@gmail.com") == ""
