"""Worker / respondent details of the personal-info step (portal/domain/taking/worker_details.py)."""

from __future__ import annotations

import pytest

from portal.domain.taking import worker_details as wd

STANDARD_DETAILS = {
    "firstName": " Ada ",
    "lastName": "Lovelace",
    "country": "US",
    "state": "US-CA",
    "email": " Ada@Example.com ",
    "paymentEmail": "",
    "linkedin": "linkedin.com/in/ada/",
    "phoneNumber": "",
}
STANDARD = wd.enabled_fields(panel="b2b", qualification_based=False, has_linkedin=False)
CROWD = wd.enabled_fields(panel="mturk", qualification_based=False, has_linkedin=False)
CUSTOM = wd.enabled_fields(panel="custom", qualification_based=True, has_linkedin=False)


# --- enablement -----------------------------------------------------------------------------------


@pytest.mark.parametrize("qualification_based", [False, True])
@pytest.mark.parametrize("has_linkedin", [False, True])
def test_crowd_work_workers_see_worker_id_first_name_and_state(qualification_based, has_linkedin):
    assert wd.enabled_fields(panel="mturk", qualification_based=qualification_based, has_linkedin=has_linkedin) == (
        "workerId",
        "firstName",
        "state",
    )


@pytest.mark.parametrize("panel", ["custom", "b2b", "external"])
@pytest.mark.parametrize("has_linkedin", [False, True])
def test_a_qualification_based_audience_shows_name_job_title_email_and_linkedin(panel, has_linkedin):
    assert wd.enabled_fields(panel=panel, qualification_based=True, has_linkedin=has_linkedin) == (
        "firstName",
        "jobTitle",
        "email",
        "linkedin",
    )


@pytest.mark.parametrize("panel", ["custom", "b2b", "external"])
def test_other_audiences_show_contact_and_payment_fields_and_linkedin_when_missing(panel):
    assert wd.enabled_fields(panel=panel, qualification_based=False, has_linkedin=False) == (
        "firstName",
        "lastName",
        "country",
        "state",
        "email",
        "paymentEmail",
        "linkedin",
        "phoneNumber",
    )


@pytest.mark.parametrize("panel", ["custom", "b2b", "external"])
def test_a_worker_who_has_a_linkedin_is_not_asked_for_it(panel):
    fields = wd.enabled_fields(panel=panel, qualification_based=False, has_linkedin=True)
    assert "linkedin" not in fields
    assert {"country", "state", "phoneNumber", "email", "paymentEmail"} <= set(fields)


def test_personal_info_is_active_only_with_enabled_fields():
    assert wd.personal_info_active(CROWD)
    assert not wd.personal_info_active(())
    assert not wd.personal_info_active(("unknown",))


def test_helper_texts_and_the_brand():
    assert wd.help_text("phoneNumber") == "Never miss a test invite, get notifications to your phone (not obligatory)"
    assert wd.help_text("lastName") == "You can use an alias if you wish."
    assert wd.EMAIL_HELP == (
        "If you don't have a Participants Portal account use the email where you received the test invite."
    )
    assert wd.help_text("email", brand="Acme") == (
        "If you don't have a Acme account use the email where you received the test invite."
    )
    assert wd.help_text("state") == ""
    assert set(wd.LABELS) == set(wd.FIELDS)


@pytest.mark.parametrize(
    ("panel", "qualification_based", "action"),
    [
        ("mturk", False, "Close this window"),
        ("mturk", True, "Close this window"),
        ("custom", True, wd.SIGN_UP_PROMO_BUTTON),
        ("b2b", False, "Back to homepage"),
        ("custom", False, "Back to homepage"),
    ],
)
def test_thank_you_variants(panel, qualification_based, action):
    assert wd.thank_you_action(panel=panel, qualification_based=qualification_based) == action


# --- values and normalisation ---------------------------------------------------------------------------


def test_empty_details_keep_only_the_country():
    assert wd.empty_details() == {**dict.fromkeys(wd.FIELDS, ""), "country": "US"}
    assert wd.empty_details("GB")["country"] == "GB"


def test_normalise_trims_lowercases_emails_and_normalises_linkedin_and_phone():
    out = wd.normalise({**STANDARD_DETAILS, "phoneNumber": " (415) 555-0134 ", "state": "us-ca"}, enabled=STANDARD)
    assert out["firstName"] == "Ada"
    assert out["email"] == "ada@example.com"
    assert out["linkedin"] == "https://www.linkedin.com/in/ada"
    assert out["phoneNumber"] == "+14155550134"
    assert out["state"] == "US-CA"
    assert set(out) == set(wd.FIELDS)


def test_normalise_keeps_invalid_values_trimmed_for_validation_and_drops_unknown_keys():
    out = wd.normalise({"linkedin": " twitter.com/ada ", "phoneNumber": " 12 ", "extra": "x", "firstName": 5})
    assert out["linkedin"] == "twitter.com/ada"
    assert out["phoneNumber"] == "12"
    assert out["firstName"] == ""
    assert "extra" not in out


def test_payment_email_becomes_the_email_when_not_different():
    out = wd.normalise({**STANDARD_DETAILS, "paymentEmail": ""}, enabled=STANDARD)
    assert out["paymentEmail"] == "ada@example.com"
    same_case = wd.normalise({**STANDARD_DETAILS, "paymentEmail": "ADA@example.com"}, enabled=STANDARD)
    assert same_case["paymentEmail"] == "ada@example.com"


def test_a_different_payment_email_is_kept_unless_the_flag_says_otherwise():
    details = {**STANDARD_DETAILS, "paymentEmail": "pay@example.com"}
    assert wd.normalise(details, enabled=STANDARD)["paymentEmail"] == "pay@example.com"
    assert wd.normalise(details, enabled=STANDARD, different_payment_email=False)["paymentEmail"] == "ada@example.com"


def test_payment_email_is_untouched_when_it_is_not_enabled():
    out = wd.normalise({**STANDARD_DETAILS, "paymentEmail": ""}, enabled=CUSTOM)
    assert out["paymentEmail"] == ""


@pytest.mark.parametrize(
    ("email", "payment", "different"),
    [
        ("a@x.com", "b@x.com", True),
        ("a@x.com", " A@X.com ", False),
        ("a@x.com", "", False),
        ("", "b@x.com", True),
        ("a@x.com", None, False),
    ],
)
def test_is_different_payment_email(email, payment, different):
    assert wd.is_different_payment_email({"email": email, "paymentEmail": payment}) is different


# --- validation --------------------------------------------------------------------------------------------


def test_complete_standard_details_are_valid_with_the_phone_left_empty():
    assert wd.validate(STANDARD_DETAILS, STANDARD) == {}
    assert wd.is_complete(STANDARD_DETAILS, STANDARD)


def test_every_enabled_field_must_be_filled_after_trimming():
    errors = wd.validate({f: "   " for f in STANDARD}, STANDARD)
    assert errors == {
        "firstName": "First name is required",
        "lastName": "Last name is required",
        "country": "Country is required",
        "email": "Email is required",
        "linkedin": "LinkedIn profile is required",
    }  # the state is checked once a country is chosen
    assert wd.validate({**STANDARD_DETAILS, "state": " "}, STANDARD) == {"state": "State is required"}


def test_a_different_payment_email_must_be_a_valid_address():
    errors = wd.validate({**STANDARD_DETAILS, "paymentEmail": "pay@"}, STANDARD)
    assert errors == {"paymentEmail": "Please enter a valid email address"}


def test_fields_that_are_not_enabled_are_not_required():
    details = {"workerId": "A1B2C3D4E5", "firstName": "Sam", "state": "US-TX"}
    assert wd.validate(details, CROWD) == {}
    assert wd.validate({"firstName": "Sam"}, CROWD) == {
        "workerId": "Worker ID is required",
        "state": "State is required",
    }


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("email", "ada@", wd.EMAIL_INVALID),
        ("email", "ada example.com", wd.EMAIL_INVALID),
        ("phoneNumber", "12345", wd.PHONE_INVALID),
        ("phoneNumber", "+1 555", wd.PHONE_INVALID),
        ("linkedin", "https://twitter.com/ada", wd.LINKEDIN_INVALID),
        ("linkedin", "https://www.linkedin.com/", wd.LINKEDIN_INVALID),
        ("country", "XX", wd.COUNTRY_UNKNOWN),
        ("country", "USA", wd.COUNTRY_UNKNOWN),
        ("state", "FR-IDF", wd.STATE_UNKNOWN),
        ("state", "California", wd.STATE_UNKNOWN),
    ],
)
def test_bad_values_get_their_message(field, value, message):
    assert wd.validate({**STANDARD_DETAILS, field: value}, STANDARD) == {field: message}


def test_a_state_is_checked_against_the_country_in_the_details():
    assert wd.validate({**STANDARD_DETAILS, "country": "GB", "state": "GB-ENG"}, STANDARD) == {}
    assert wd.validate({**STANDARD_DETAILS, "country": "GB", "state": "US-CA"}, STANDARD) == {"state": wd.STATE_UNKNOWN}


def test_a_crowd_work_state_is_a_us_state_when_no_country_is_given():
    assert wd.validate({"workerId": "A1", "firstName": "Sam", "state": "US-NY"}, CROWD) == {}
    assert wd.validate({"workerId": "A1", "firstName": "Sam", "state": "GB-ENG"}, CROWD) == {"state": wd.STATE_UNKNOWN}


def test_a_country_without_states_needs_no_state():
    # Vatican City has no subdivisions in ISO 3166-2.
    details = {**STANDARD_DETAILS, "country": "VA", "state": "", "phoneNumber": ""}
    assert wd.validate(details, STANDARD) == {}
    assert wd.validate({**details, "state": "US-CA"}, STANDARD) == {"state": wd.STATE_NONE}


def test_a_valid_phone_in_the_countrys_format_is_accepted():
    assert wd.validate({**STANDARD_DETAILS, "phoneNumber": "(415) 555-0134"}, STANDARD) == {}
    assert (
        wd.validate({**STANDARD_DETAILS, "country": "GB", "state": "GB-ENG", "phoneNumber": "020 7946 0958"}, STANDARD)
        == {}
    )


@pytest.mark.parametrize("worker_id", ["A1 B2", "A1;drop", "<script>", "x" * 65])
def test_a_worker_id_must_be_letters_and_digits(worker_id):
    errors = wd.validate({"workerId": worker_id, "firstName": "Sam", "state": "US-NY"}, CROWD)
    assert set(errors) == {"workerId"}


def test_non_text_values_and_unknown_keys_are_refused():
    errors = wd.validate({**STANDARD_DETAILS, "firstName": 7, "email": ["a@x.com"], "isAdmin": "yes"}, STANDARD)
    assert errors["firstName"] == wd.BAD_VALUE
    assert errors["email"] == wd.BAD_VALUE
    assert errors["_global"] == wd.UNREADABLE
    # a non-text value is refused even in a field that is not enabled
    assert wd.validate({"workerId": "A1", "firstName": "Sam", "state": "US-NY", "email": 3}, CROWD) == {
        "email": wd.BAD_VALUE
    }


@pytest.mark.parametrize("details", [None, "firstName=Ada", ["firstName"], 42])
def test_details_that_are_not_an_object_are_refused(details):
    assert wd.validate(details, STANDARD) == {"_global": wd.UNREADABLE}


def test_none_counts_as_empty():
    assert wd.validate({**STANDARD_DETAILS, "phoneNumber": None}, STANDARD) == {}
    assert wd.validate({**STANDARD_DETAILS, "lastName": None}, STANDARD) == {"lastName": "Last name is required"}


@pytest.mark.parametrize(
    ("field", "limit"), [("firstName", 100), ("jobTitle", 200), ("email", 320), ("linkedin", 300), ("phoneNumber", 40)]
)
def test_max_lengths(field, limit):
    details = {
        "firstName": "Ada",
        "jobTitle": "CTO",
        "email": "ada@example.com",
        "linkedin": "https://www.linkedin.com/in/ada",
        "phoneNumber": "",
    }
    errors = wd.validate({**details, field: "a" * (limit + 1)}, CUSTOM + ("phoneNumber",))
    assert errors == {field: f"Please use at most {limit} characters"}


def test_for_submission_keeps_only_the_enabled_fields_normalised():
    out = wd.for_submission({**STANDARD_DETAILS, "workerId": "A1", "jobTitle": "CTO"}, STANDARD)
    assert set(out) == set(STANDARD)
    assert out["paymentEmail"] == out["email"] == "ada@example.com"
    assert out["linkedin"] == "https://www.linkedin.com/in/ada"


# --- the look-up ----------------------------------------------------------------------------------------------


def test_an_empty_lookup_resets_the_details_but_keeps_country_and_typed_keys():
    current = {**STANDARD_DETAILS, "country": "GB", "workerId": " A1 ", "firstName": "Previous"}
    for found in (None, {}):
        out = wd.lookup_result(found, current)
        assert out == {**wd.empty_details("GB"), "workerId": "A1", "email": "Ada@Example.com"}


def test_an_empty_lookup_without_a_country_falls_back_to_us():
    assert wd.lookup_result(None, {"workerId": "A1"}) == {**wd.empty_details(), "workerId": "A1"}


def test_a_lookup_result_replaces_the_current_values_with_the_found_text():
    current = {"workerId": "A1", "firstName": "Typo", "state": "", "country": "US"}
    out = wd.lookup_result(
        {"workerId": "A1", "firstName": " Sam ", "state": "US-TX", "lastName": 5, "isAdmin": "yes"}, current
    )
    assert out["firstName"] == "Sam" and out["state"] == "US-TX"
    assert out["lastName"] == "" and "isAdmin" not in out


def test_lookup_timings():
    assert (wd.LOOKUP_DEBOUNCE_MS, wd.LOOKUP_APPLY_DELAY_MS) == (500, 1000)


@pytest.mark.parametrize(
    ("value", "cleaned"),
    [
        (" A1B2C3 ", "A1B2C3"),
        ("", None),
        ("  ", None),
        (None, None),
        (123, None),
        ("a b", None),
        ("x" * 65, None),
    ],
)
def test_clean_worker_id(value, cleaned):
    assert wd.clean_worker_id(value) == cleaned
