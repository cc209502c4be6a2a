"""The work e-mail check and the personal e-mail duplicate check against the database."""

from __future__ import annotations

from portal.services.work_email import check_work_email, email_taken, work_email_problem
from tests.support.factories import make_participant, unique_email


def test_work_email_used_by_another_account_is_taken(session):
    me = make_participant(session)
    other = make_participant(session)
    # another account's work e-mail and personal e-mail, in any case
    for value in (other.work_email, other.email.upper(), f"  {other.email}  "):
        check = check_work_email(session=session, account_id=me.id, value=value)
        assert (check.valid, check.error, check.message) == (False, "taken", "Email already exists")
        assert check.value == value.strip().lower()
    # my own addresses are not "taken" by me
    assert check_work_email(session=session, account_id=me.id, value=me.work_email).valid
    assert check_work_email(session=session, account_id=me.id, value=me.email).valid
    # without an account (nobody excluded) both are taken
    assert not check_work_email(session=session, account_id=None, value=me.email).valid


def test_domain_rule_comes_before_the_database(session):
    me = make_participant(session)
    assert check_work_email(session=session, account_id=me.id, value="me@gmail.com").error == "free_mail"
    assert check_work_email(session=session, account_id=me.id, value="me@mailinator.com").error == "disposable"
    assert check_work_email(session=session, account_id=me.id, value="not an address").error == "invalid"
    assert check_work_email(session=session, account_id=me.id, value="").error == "required"
    fresh = unique_email("fresh")
    check = check_work_email(session=session, account_id=me.id, value=fresh.upper())
    assert (check.valid, check.error, check.message, check.value) == (True, None, None, fresh)


def test_personal_email_duplicate_check_excludes_the_current_user(session):
    me = make_participant(session)
    other = make_participant(session)
    assert email_taken(session=session, account_id=me.id, email=other.email)
    assert email_taken(session=session, account_id=me.id, email=other.work_email.upper())
    assert not email_taken(session=session, account_id=me.id, email=me.email)
    assert not email_taken(session=session, account_id=me.id, email=me.work_email)
    assert not email_taken(session=session, account_id=me.id, email=unique_email())
    assert not email_taken(session=session, account_id=me.id, email="")
    assert not email_taken(session=session, account_id=me.id, email=None)  # type: ignore[arg-type]


def test_problem_text_for_the_profile_form(session):
    me = make_participant(session)
    other = make_participant(session)
    assert (
        work_email_problem(session=session, work_email=other.email, exclude_account_id=me.id) == "Email already exists"
    )
    assert work_email_problem(session=session, work_email=me.work_email, exclude_account_id=me.id) == ""
    assert "free email providers" in work_email_problem(
        session=session, work_email="a@yahoo.com", exclude_account_id=me.id
    )
