"""Reference data (segments, option lists, enumerations) and geography from pycountry."""

from __future__ import annotations

import unicodedata

from portal.domain import geography
from portal.domain import reference_data as ref


def test_company_size_segments_match_the_spec() -> None:
    ranges = [(s.id, s.min_size, s.max_size) for s in ref.COMPANY_SIZE_SEGMENTS]
    assert ranges == [
        ("solo", 1, 1),
        ("micro", 2, 9),
        ("small", 10, 49),
        ("medium", 50, 199),
        ("midMarket", 200, 999),
        ("enterprise", 1000, None),
    ]
    assert [s.without_max_size for s in ref.COMPANY_SIZE_SEGMENTS] == [False] * 5 + [True]


def test_segments_are_contiguous_and_found_by_head_count() -> None:
    segments = ref.COMPANY_SIZE_SEGMENTS
    for before, after in zip(segments, segments[1:], strict=False):
        assert after.min_size == before.max_size + 1
    assert ref.segment_for_size(1).id == "solo"
    assert ref.segment_for_size(9).id == "micro"
    assert ref.segment_for_size(200).id == "midMarket"
    assert ref.segment_for_size(250_000).id == "enterprise"
    assert ref.segment_for_size(0) is None


def test_option_lists() -> None:
    assert ref.SENIORITY_KEYS == ("founder", "senior", "middle", "specialist")
    labels = {o.value: o.label for o in ref.SENIORITY_OPTIONS}
    assert "one-person" in labels["founder"] and "freelancers" in labels["specialist"]
    assert [o.value for o in ref.LANGUAGE_OPTIONS] == [
        "english",
        "dutch",
        "portuguese",
        "spanish",
        "italian",
        "french",
        "german",
        "none",
    ]
    assert all(o.label for o in ref.LANGUAGE_OPTIONS)


def test_seed_lists_are_sizeable_and_unique() -> None:
    assert 55 <= len(ref.INDUSTRIES) == len(set(ref.INDUSTRIES)) <= 70
    assert 75 <= len(ref.ROLES) == len(set(ref.ROLES)) <= 90
    assert ref.INACTIVE_INDUSTRIES < set(ref.INDUSTRIES)
    assert sorted(a.type for a in ref.AUDIENCES) == sorted(ref.AUDIENCE_TYPES)
    assert any(q.is_public for q in ref.QUALIFICATIONS) and not all(q.is_public for q in ref.QUALIFICATIONS)


def test_enumerations() -> None:
    assert len(ref.PRODUCT_TYPES) == 22 and {"landing-page", "pricing-test", "video-test"} <= set(ref.PRODUCT_TYPES)
    assert ref.PANELS == ("custom", "b2b", "mturk", "external")
    assert ref.SESSION_LENGTHS == (3600, 900, 300)
    assert len(ref.QUESTION_TYPES) == 12
    assert ref.PAYMENT_STATUSES == ("PENDING", "EXECUTED", "FAILED", "CANCELED")
    assert ref.INVITE_STATUSES == ("open", "filled", "completed", "expired", "canceled")


def _fold(name: str) -> str:
    return unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().casefold()


def test_countries_are_sorted_by_name_with_readable_names() -> None:
    countries = geography.countries()
    assert len(countries) >= 249
    assert [_fold(n) for _, n in countries] == sorted(_fold(n) for _, n in countries)
    names = dict(countries)
    assert names["US"] == "United States"
    assert names["BO"] == "Bolivia"  # the common name, not 'Bolivia, Plurinational State of'
    assert [c for c, _ in countries[:3]] == ["AF", "AX", "AL"]  # Åland sorts with A


def test_subdivisions_of_a_country() -> None:
    states = geography.subdivisions("US")
    assert ("US-CA", "California") in states and ("US-NY", "New York") in states
    assert [_fold(n) for _, n in states] == sorted(_fold(n) for _, n in states)
    assert geography.subdivisions("us") == states
    assert geography.subdivisions("GB") == [
        ("GB-ENG", "England"),
        ("GB-NIR", "Northern Ireland"),
        ("GB-SCT", "Scotland"),
        ("GB-WLS", "Wales"),
    ]
    assert geography.subdivisions("XX") == []


def test_is_state_of() -> None:
    assert geography.is_state_of("US", "US-CA")
    assert not geography.is_state_of("CA", "US-CA")
    assert geography.is_state_of("DE", "DE-BY")
    assert not geography.is_state_of("US", None)
    assert not geography.is_state_of(None, "US-CA")


def test_is_country() -> None:
    assert geography.is_country("NL")
    assert not geography.is_country("nl") and not geography.is_country("XX") and not geography.is_country(None)
    assert geography.country_name("nl") == "Netherlands"
