import pytest

from portal.domain import onboarding, profile_rules
from portal.domain.ids import whole_number


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("42", 42),
        (" 7 ", 7),
        (0, 0),
        (12, 12),
        ("0", 0),
        ("2147483647", 2**31 - 1),
        (2**31 - 1, 2**31 - 1),
        ("99999999999", None),
        (2**31, None),
        (2**63, None),
        ("²", None),
        ("١٢", None),
        ("-3", None),
        (-3, None),
        ("1.5", None),
        ("", None),
        ("  ", None),
        ("999999999999", None),
        (True, None),
        (False, None),
        (None, None),
        (1.0, None),
        ([1], None),
    ],
)
def test_whole_number_takes_ascii_digits_and_ints_only(raw, expected):
    assert whole_number(raw) == expected


def test_a_superscript_digit_is_refused_not_a_crash():
    assert onboarding.as_step("²") is None
    form, errors = profile_rules.parse_payload({"industries": ["²"], "_id": "²"})
    assert errors["industries"] == profile_rules.LIST_UNKNOWN
    assert errors["_id"] == profile_rules.NOT_YOUR_PROFILE
    assert form.industries == ()
