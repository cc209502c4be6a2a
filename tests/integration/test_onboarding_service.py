"""Finishing the sign-up: the sign-up fields saved, registration complete, verification links; bad input refused."""

from __future__ import annotations

import re

import pytest
from sqlmodel import select

from portal.models import Account, OutboxEmail, ParticipantProfile
from portal.services import onboarding as service
from portal.services.errors import ServiceError
from tests.support.factories import make_participant, unique_email
from tests.support.throttle import rewind


def _newcomer(session, *, email_verified=True, claims=None):
    account = make_participant(session, registration_complete=False, email_verified=email_verified, verified=False)
    if claims is not None:
        profile = session.get(ParticipantProfile, account.id)
        profile.linkedin_profile = claims
        session.add(profile)
        session.commit()
    return account


def _fields(account, **changes):
    return {
        "firstName": "Nia",
        "lastName": "Newman",
        "jobTitle": "Head of Finance",
        "email": account.email,
        "companyName": "Northwind",
        "workEmail": unique_email("work").replace("example.com", "northwind.example"),
        "employerHqCountry": "DE",
        **changes,
    }


def _mails(session, to):
    session.expire_all()
    return session.exec(select(OutboxEmail).where(OutboxEmail.to_address == to)).all()


def test_load_prefills_from_linkedin_and_the_work_email_rule(session):
    account = _newcomer(session, email_verified=False, claims={"given_name": "Lin", "headline": "CFO", "sub": "x"})
    profile = session.get(ParticipantProfile, account.id)
    profile.first_name = None
    session.add(profile)
    session.commit()
    data = service.load_onboarding(session=session, account_id=account.id)
    assert data.values["firstName"] == "Lin"  # nothing stored: LinkedIn's
    assert data.values["lastName"] == "Tester"  # stored wins
    assert data.values["jobTitle"] == "CFO"
    assert data.values["workEmail"] == account.email  # empty work e-mail, unverified account e-mail
    assert data.from_linkedin and not data.registration_complete

    verified = _newcomer(session, email_verified=True)
    assert service.load_onboarding(session=session, account_id=verified.id).values["workEmail"] == ""


def test_finish_saves_completes_registration_and_sends_the_work_link(session):
    account = _newcomer(session)
    fields = _fields(account, workEmail="Nia.Newman@Northwind.example")
    result = service.finish_sign_up(session=session, account_id=account.id, raw=fields)
    session.commit()
    assert result.ok and result.first_time and result.sent_to == ("nia.newman@northwind.example",)
    session.expire_all()
    saved = session.get(Account, account.id)
    assert saved.is_registration_complete and saved.stage == "registered"
    assert saved.work_email == "nia.newman@northwind.example" and saved.work_email_verified_at is None
    assert saved.email_verified_at is not None  # the personal e-mail did not change
    profile = session.get(ParticipantProfile, account.id)
    assert (
        profile.first_name,
        profile.last_name,
        profile.job_title,
        profile.company_name,
        profile.employer_hq_country,
    ) == ("Nia", "Newman", "Head of Finance", "Northwind", "DE")
    [mail] = _mails(session, "nia.newman@northwind.example")
    assert "verify-email?token=" in mail.body_text

    # Sending the same profile again sends no new link.
    again = service.finish_sign_up(session=session, account_id=account.id, raw=fields)
    session.commit()
    assert again.ok and not again.first_time and again.sent_to == ()


def test_changed_personal_email_becomes_unverified_with_a_link(session):
    account = _newcomer(session)
    new = unique_email("new-personal")
    result = service.finish_sign_up(session=session, account_id=account.id, raw=_fields(account, email=new.upper()))
    session.commit()
    assert result.ok and new in result.sent_to
    session.expire_all()
    saved = session.get(Account, account.id)
    assert saved.email == new and saved.email_verified_at is None
    assert _mails(session, new) and _mails(session, account.email)  # the link, and the notice to the old address


def test_a_newcomer_whose_address_was_not_vouched_for_gets_a_personal_link(session):
    """The banner says 'We sent you a link': finishing the sign-up sends it, without a Resend."""
    account = _newcomer(session, email_verified=False)
    fields = _fields(account)
    result = service.finish_sign_up(session=session, account_id=account.id, raw=fields)
    session.commit()
    assert result.ok and account.email in result.sent_to
    [mail] = _mails(session, account.email)
    assert "verify-email?token=" in mail.body_text
    # Saving again later sends nothing new: the link stays the one sent at sign-up (Resend gives another).
    again = service.finish_sign_up(session=session, account_id=account.id, raw=fields)
    session.commit()
    assert again.ok and again.sent_to == ()
    assert len(_mails(session, account.email)) == 1


@pytest.mark.parametrize(
    ("changes", "errors"),
    [
        ({"firstName": ""}, {"firstName": "First name is required"}),
        ({"jobTitle": None}, {"jobTitle": "Experience is required"}),
        ({"employerHqCountry": "ZZ"}, {"employerHqCountry": "Please choose a country from the list"}),
        ({"workEmail": ""}, {"workEmail": "Work email is required"}),
        (
            {"workEmail": "me@gmail.com"},
            {
                "workEmail": (
                    "Please use your work email. Addresses from free email providers such as gmail.com are not "
                    "accepted."
                )
            },
        ),
        ({"email": "", "lastName": "   "}, {"email": "Email is required", "lastName": "Last name is required"}),
    ],
)
def test_raw_bad_input_is_refused_and_stores_nothing(session, changes, errors):
    account = _newcomer(session)
    result = service.finish_sign_up(session=session, account_id=account.id, raw=_fields(account, **changes))
    session.commit()
    assert not result.ok and result.errors == errors
    session.expire_all()
    saved = session.get(Account, account.id)
    assert not saved.is_registration_complete and saved.work_email is None
    assert session.get(ParticipantProfile, account.id).job_title is None


def test_addresses_of_other_accounts_are_refused(session):
    other = make_participant(session)
    account = _newcomer(session)
    result = service.finish_sign_up(
        session=session,
        account_id=account.id,
        raw=_fields(account, email=other.work_email, workEmail=other.email.upper()),
    )
    assert result.errors == {"email": "Email already exists", "workEmail": "Email already exists"}
    assert (
        service.finish_sign_up(session=session, account_id=account.id, raw="garbage").errors["firstName"]
        == "First name is required"
    )


def test_a_verified_work_email_cannot_be_changed_here(session):
    account = make_participant(session)  # registration complete, work e-mail verified
    fields = _fields(account, workEmail=unique_email("w").replace("example.com", "acme.example"))
    result = service.finish_sign_up(session=session, account_id=account.id, raw=fields)
    assert result.errors == {"workEmail": "Your work email is verified and cannot be changed here."}
    assert service.finish_sign_up(
        session=session, account_id=account.id, raw=_fields(account, workEmail=account.work_email)
    ).ok


def test_removed_account_and_resend(session):
    account = _newcomer(session)
    with pytest.raises(service.ProfileRemovedError):
        service.finish_sign_up(session=session, account_id=account.id + 999, raw=_fields(account))
    work = "resend-" + unique_email().replace("example.com", "northwind.example")
    assert service.finish_sign_up(session=session, account_id=account.id, raw=_fields(account, workEmail=work)).ok
    session.commit()
    with pytest.raises(ServiceError) as err:  # the link has just been sent
        service.resend_work_email(session=session, account_id=account.id)
    # 60 seconds from the send, counted down by the clock (a slow machine may have spent a second since)
    waited = re.fullmatch(r"Please wait (\d+) seconds before asking for another email\.", err.value.message)
    assert waited is not None and 50 <= int(waited.group(1)) <= 60, err.value.message
    rewind(session, seconds=61)
    assert (
        service.resend_work_email(session=session, account_id=account.id)
        == "Verification email has been sent successfully!"
    )
    session.commit()
    assert len(_mails(session, work)) == 2
    with pytest.raises(ServiceError) as err:
        service.resend_work_email(session=session, account_id=account.id, kind="personal")  # already verified
    assert err.value.already_verified  # type: ignore[attr-defined]
    with pytest.raises(ServiceError) as err:
        service.resend_work_email(session=session, account_id=account.id, kind="other")
    assert err.value.message == "Please check email address"


def test_work_link_of_a_sign_up_leads_to_the_thank_you_page(session):
    from urllib.parse import urlsplit

    from portal.domain.verification import after_link
    from portal.services.verification import use_link

    account = _newcomer(session)
    work = "link-" + unique_email().replace("example.com", "northwind.example")
    assert service.finish_sign_up(session=session, account_id=account.id, raw=_fields(account, workEmail=work)).ok
    session.commit()
    [mail] = _mails(session, work)
    token = mail.body_text.split("token=", 1)[1].split()[0]
    outcome = use_link(session=session, token=token)
    session.commit()
    assert outcome.status == "verified" and outcome.sign_up
    target = urlsplit(after_link(outcome.status, outcome.email, sign_up=outcome.sign_up))
    assert target.path == "/thank-you" and "ev=1" in target.query
    # a verified participant's work link still goes home
    assert urlsplit(after_link("verified", work)).path == "/"
    session.expire_all()
    assert session.get(Account, account.id).work_email_verified_at is not None
