"""The profile form's rules (spec section 5, screen 10, constants of section 9), with bad inputs."""

from __future__ import annotations

import pytest

from portal.domain import profile_rules as rules
from portal.domain.reference_data import COMPANY_SIZE_SEGMENTS

YEAR = 2026


def good(**values) -> rules.ProfileForm:
    base = dict(
        firstName="Dana",
        lastName="Reviewer",
        email="dana@example.com",
        workEmail="dana@northwind.example",
        languages=("english",),
    )
    base.update(values)
    return rules.ProfileForm(**base)


def errors_of(form: rules.ProfileForm, **kwargs) -> dict[str, str]:
    kwargs.setdefault("is_staff", False)
    return rules.validate(form, current_year=YEAR, **kwargs)


def test_a_complete_form_has_no_errors() -> None:
    form = good(
        phoneNumber="+1 415 555 0134",
        linkedin="linkedin.com/in/dana",
        birthYear="1988",
        country="US",
        state="US-CA",
        industries=(1, 2, 3),
        experienceLevels=("middle", "senior"),
        companySize="small",
        gender=rules.SELF_DESCRIBE,
        gender_custom="Agender",
        veteran="No",
    )
    assert errors_of(form) == {}


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("firstName", "", "First name is required"),
        ("lastName", "", "Last name is required"),
        ("email", "", "Email is required"),
        ("workEmail", "", "Work email is required"),
        ("email", "not-an-email", rules.EMAIL_INVALID),
        ("workEmail", "dana@", rules.EMAIL_INVALID),
    ],
)
def test_required_and_email_messages(field: str, value: str, message: str) -> None:
    assert errors_of(good(**{field: value}))[field] == message


def test_at_most_three_industries_hides_submit() -> None:
    assert "industries" not in errors_of(good(industries=(1, 2, 3)))
    errors = errors_of(good(industries=(1, 2, 3, 4)))
    assert errors["industries"] == "You can add up to 3 industries."
    assert rules.submit_hidden(errors)
    assert rules.CHECK_VALUES == "Check that all values in the form are correct."
    assert errors_of(good(industries=(1, 2, 3, 4, 5)))["industries"] == rules.INDUSTRIES_LIMIT
    assert errors_of(good(industries=(1, 1)))["industries"] == rules.LIST_UNKNOWN
    assert not rules.submit_hidden(errors_of(good(firstName="")))


def test_at_most_two_seniority_levels_and_the_others_disabled() -> None:
    assert (
        errors_of(good(experienceLevels=("founder", "senior", "middle")))["experienceLevels"] == rules.SENIORITY_LIMIT
    )
    assert errors_of(good(experienceLevels=("boss",)))["experienceLevels"] == rules.LIST_UNKNOWN
    assert errors_of(good(experienceLevels=("senior", "senior")))["experienceLevels"] == rules.LIST_UNKNOWN
    chosen = rules.toggle_seniority([], "founder")
    chosen = rules.toggle_seniority(chosen, "senior")
    assert chosen == ["founder", "senior"]
    assert rules.toggle_seniority(chosen, "middle") == ["founder", "senior"]  # a third is not added
    assert rules.seniority_disabled(chosen, "middle") and rules.seniority_disabled(chosen, "specialist")
    assert not rules.seniority_disabled(chosen, "founder")
    assert rules.toggle_seniority(chosen, "founder") == ["senior"]
    assert not rules.seniority_disabled(["senior"], "middle")
    assert rules.toggle_seniority(["senior"], "ceo") == ["senior"]


def test_language_none_clears_and_is_removed_by_another_language() -> None:
    assert rules.toggle_language(["english", "dutch"], "none") == ["none"]
    assert rules.toggle_language(["none"], "german") == ["german"]
    assert rules.toggle_language(["english"], "dutch") == ["english", "dutch"]
    assert rules.toggle_language(["english", "dutch"], "dutch") == ["english"]
    assert rules.toggle_language(["english"], "klingon") == ["english"]
    assert errors_of(good(languages=("none", "english")))["languages"] == rules.NONE_WITH_OTHERS
    assert errors_of(good(languages=("english", "latin")))["languages"] == rules.LIST_UNKNOWN


def test_fluent_english_is_required_for_panelists_only() -> None:
    assert errors_of(good(languages=("none",)))["languages"] == "Fluent English is required for all panelists."
    assert errors_of(good(languages=()))["languages"] == rules.ENGLISH_REQUIRED
    assert errors_of(good(languages=("dutch",)))["languages"] == rules.ENGLISH_REQUIRED
    assert "languages" not in errors_of(good(languages=()), is_staff=True)  # a staff member's own profile
    # Staff editing a participant: the participant is a panelist.
    assert errors_of(good(languages=()), is_staff=True, is_panelist=True)["languages"] == rules.ENGLISH_REQUIRED


@pytest.mark.parametrize(
    ("typed", "stored"),
    [
        ("linkedin.com/in/dana", "https://www.linkedin.com/in/dana"),
        ("www.linkedin.com/in/dana/", "https://www.linkedin.com/in/dana"),
        ("http://linkedin.com/in/dana", "https://www.linkedin.com/in/dana"),
        ("https://uk.linkedin.com/in/dana-r", "https://www.linkedin.com/in/dana-r"),
        ("HTTPS://WWW.LINKEDIN.COM/in/Dana", "https://www.linkedin.com/in/Dana"),
        ("", ""),
    ],
)
def test_linkedin_is_normalised_to_the_www_https_address(typed: str, stored: str) -> None:
    assert rules.normalize_linkedin(typed) == stored


@pytest.mark.parametrize(
    "typed",
    [
        "https://evil.example/in/dana",
        "https://linkedin.com.evil.example/in/x",
        "https://notlinkedin.com/in/x",
        "linkedin.com",
        "https://www.linkedin.com/",
        "ftp://linkedin.com/in/x",
        "https://user@linkedin.com/in/x",
        "https://linkedin.com:8443/in/x",
        "javascript:alert(1)",
    ],
)
def test_linkedin_refuses_other_sites(typed: str) -> None:
    assert rules.normalize_linkedin(typed) is None
    assert errors_of(good(linkedin=typed))["linkedin"] == rules.LINKEDIN_INVALID


def test_birth_year_digits_only_and_four_of_them() -> None:
    assert rules.digits_only("19a8-8x") == "1988"
    assert rules.digits_only("1988123") == "1988"
    assert rules.digits_only("١٩٨٨") == ""  # ASCII digits only
    assert errors_of(good(birthYear="1988")) == {}
    assert errors_of(good(birthYear="")) == {}
    message = "Please enter a 4-digit year between 1900 and 2010"
    for bad in ("123", "19888", "1899", "2011", "19a8", "١٩٨٨", " 1988x"):
        assert errors_of(good(birthYear=bad))["birthYear"] == message, bad


def test_phone_is_optional_and_validated_with_phonenumbers() -> None:
    assert errors_of(good(phoneNumber="")) == {}
    assert rules.normalize_phone("+1 (415) 555-0134") == "+14155550134"
    assert rules.normalize_phone("020 7946 0018", country="GB") == "+442079460018"
    assert rules.normalize_phone("020 7946 0018") is None  # no country to read it in
    for bad in ("123", "+1 555", "phone me", "+99 1234567"):
        assert errors_of(good(phoneNumber=bad))["phoneNumber"] == rules.PHONE_INVALID, bad
    assert rules.PHONE_HELPER == "Never miss a test invite, get notifications to your phone (not obligatory)"


def test_country_and_state_come_from_pycountry() -> None:
    assert errors_of(good(country="XX"))["country"] == rules.COUNTRY_UNKNOWN
    assert errors_of(good(country="us"))["country"] == rules.COUNTRY_UNKNOWN  # codes are upper case
    assert errors_of(good(country="US", state="FR-IDF"))["state"] == rules.STATE_UNKNOWN
    assert errors_of(good(country="", state="US-CA"))["state"] == rules.STATE_UNKNOWN
    assert errors_of(good(country="US", state="US-ZZ"))["state"] == rules.STATE_UNKNOWN
    assert rules.state_after_country_change("US", "US-CA") == "US-CA"
    assert rules.state_after_country_change("CA", "US-CA") == ""
    assert rules.state_after_country_change("", "US-CA") == ""


def test_demographic_values_come_from_their_lists() -> None:
    assert errors_of(good(gender="Robot"))["gender"] == rules.OPTION_UNKNOWN
    assert errors_of(good(veteran="Maybe"))["veteran"] == rules.OPTION_UNKNOWN
    # A custom text only goes with 'Prefer to self-describe'.
    assert errors_of(good(gender="Woman", gender_custom="x"))["gender_custom"] == rules.OPTION_UNKNOWN
    assert errors_of(good(sex_orientation=rules.SELF_DESCRIBE, sex_orientation_custom="Pansexual")) == {}


def test_roles_and_audiences_are_staff_only() -> None:
    assert errors_of(good(roles=(1,)))["roles"] == rules.STAFF_ONLY
    assert errors_of(good(audiences=()))["audiences"] == rules.STAFF_ONLY
    assert errors_of(good(roles=(1,), audiences=(2,)), is_staff=True) == {}


def test_job_title_must_match_the_linkedin_title() -> None:
    title = "Sales Engineer at Acme"
    assert errors_of(good(jobTitle="sales  engineer"), linkedin_title=title) == {}
    assert errors_of(good(jobTitle="CEO"), linkedin_title=title)["jobTitle"] == rules.JOB_TITLE_MISMATCH.format(
        title=title
    )
    assert errors_of(good(jobTitle="CEO")) == {}  # no LinkedIn title known
    assert errors_of(good(jobTitle="CEO"), is_staff=True, linkedin_title=title) == {}


def test_company_size_labels() -> None:
    labels = [rules.company_size_label(s.id, s.min_size, s.max_size, s.without_max_size) for s in COMPANY_SIZE_SEGMENTS]
    assert labels == [
        "0 - 1 employees",
        "2 - 9 employees",
        "10 - 49 employees",
        "50 - 199 employees",
        "200 - 999 employees",
        "1K+ employees",
    ]
    assert rules.company_size_label("x", 10, 50, False) == "10 - 50 employees"
    assert rules.company_size_label("x", 1000, 5000, False) == "1K - 5K employees"
    assert rules.company_size_label("x", 1500, None, True) == "1.5K+ employees"
    assert rules.company_size_label("x", 7, 7, False) == "7 employees"
    assert rules.company_size_label("ALL", None, None, False) == "All employees"
    assert (
        rules.list_load_failed(rules.COMPANY_SIZES_LIST)
        == "Was unable to load company sizes list, please try again later"
    )
    assert rules.list_load_failed(rules.INDUSTRIES_LIST) == "Was unable to load industries list, please try again later"


def test_parse_payload_reads_the_nested_shape_and_refuses_wrong_types() -> None:
    form, errors = rules.parse_payload(
        {
            "firstName": "  Dana ",
            "experience": {
                "jobTitle": "PMM",
                "roles": [{"_id": 3}],
                "experienceLevels": ["senior"],
                "companySize": {"_id": "small"},
            },
            "company": {"name": "Northwind"},
            "industries": ["4", 5],
            "birthYear": 1988,
            "_id": "12",
            "isAdmin": True,
        }
    )
    assert errors == {}
    assert (form.firstName, form.jobTitle, form.roles, form.companySize, form.companyName) == (
        "Dana",
        "PMM",
        (3,),
        "small",
        "Northwind",
    )
    assert (form.industries, form.birthYear, form.participant_id, form.audiences, form.extra) == (
        (4, 5),
        "1988",
        12,
        None,
        ("isAdmin",),
    )
    _, errors = rules.parse_payload({"industries": "1,2", "languages": [1], "roles": [True], "firstName": "x" * 101})
    assert errors == {
        "industries": rules.LIST_UNKNOWN,
        "languages": rules.LIST_UNKNOWN,
        "roles": rules.LIST_UNKNOWN,
        "firstName": rules.TOO_LONG.format(max=100),
    }
    assert rules.parse_payload(["not", "a", "dict"])[1] == {"_global": rules.FORM_ERROR}
    assert rules.parse_payload({"_id": {"$ne": 1}})[1] == {"_id": rules.NOT_YOUR_PROFILE}


def test_the_change_request_holds_only_the_listed_fields_with_ids() -> None:
    form, _ = rules.parse_payload(
        {
            "firstName": "Dana",
            "email": "Dana@Example.COM",
            "industries": [4],
            "isAdmin": True,
            "experience": {"companySize": "small"},
            "birthYear": "1988",
        }
    )
    payload = rules.to_payload(form, updated_by_admin=False)
    assert payload["updatedByAdmin"] is False and payload["email"] == "dana@example.com"
    assert (
        payload["industries"] == [4]
        and payload["experience"]["companySize"] == "small"
        and payload["birthYear"] == 1988
    )
    assert "isAdmin" not in payload and "roles" not in payload["experience"] and "audiences" not in payload
    assert set(payload) <= {
        "firstName",
        "lastName",
        "hasAnonymizationEnabled",
        "email",
        "workEmail",
        "phoneNumber",
        "linkedin",
        "linkedinPrivacy",
        "hasExperience",
        "birthYear",
        "country",
        "state",
        "industries",
        "audiences",
        "experience",
        "company",
        "languages",
        "gender",
        "pronoun",
        "gender_custom",
        "sex_orientation",
        "sex_orientation_custom",
        "race",
        "ethnicity",
        "veteran",
        "updatedByAdmin",
    }


def test_normalised_values_and_changes() -> None:
    form = rules.normalized(
        good(
            email="Dana@Example.com",
            linkedin="linkedin.com/in/d",
            phoneNumber="(415) 555-0134",
            country="US",
            gender="Woman",
            gender_custom="left over",
        )
    )
    assert (form.email, form.linkedin, form.phoneNumber, form.gender_custom) == (
        "dana@example.com",
        "https://www.linkedin.com/in/d",
        "+14155550134",
        "",
    )
    assert rules.changed_emails("dana@example.com", "dana@northwind.example", form) == []
    moved = form.with_values(email="new@example.com", workEmail="New@Northwind.example")
    assert rules.changed_emails("dana@example.com", "dana@northwind.example", moved) == [
        ("personal", "new@example.com"),
        ("work", "new@northwind.example"),
    ]
    assert rules.changed_fields(form, moved) == {"email": "dana@example.com", "workEmail": "dana@northwind.example"}


def test_spec_strings() -> None:
    assert rules.TITLE == "Become a participant - Have an impact, get paid."
    assert rules.SAVED == "Change request has been sent successfully!"
    assert rules.VERIFY_WARNING.format(email="a@b.co") == (
        "We've sent a verification link to a@b.co. Please check your email, including spam folders."
    )
    assert rules.PROFILE_REMOVED == "Sorry, your profile was removed"
    assert rules.FORM_ERROR == "Form contains error, please double check all fields"
    assert (rules.MAX_INDUSTRIES, rules.MAX_SENIORITY, rules.PICKER_PAGE_SIZE) == (3, 2, 100)
