"""The 95% interval of a share (Wilson) and the order-effect table against values worked out by hand."""

from __future__ import annotations

import pytest

from portal.domain.results.shares import chosen_at, order_table, shares, wilson


@pytest.mark.parametrize(
    ("successes", "n", "low", "high"),
    [
        (0, 10, 0.0, 0.2775),  # z^2 / (n + z^2)
        (5, 10, 0.2366, 0.7634),
        (10, 10, 0.7225, 1.0),
        (1, 3, 0.0615, 0.7923),
        (45, 100, 0.3561, 0.5476),
    ],
)
def test_wilson_interval_against_known_values(successes, n, low, high):
    interval = wilson(successes, n)
    assert interval is not None
    assert (round(interval.low, 4), round(interval.high, 4)) == (low, high)


def test_no_answers_no_interval_and_impossible_counts_refused():
    assert wilson(0, 0) is None
    with pytest.raises(ValueError):
        wilson(4, 3)


def test_one_concept_of_three_with_no_votes_keeps_its_row_and_a_positive_upper_bound():
    found = shares({"a": 6, "b": 4}, ["a", "b", "c"])
    assert [(s.key, s.count, round(s.share, 4)) for s in found] == [("a", 6, 0.6), ("b", 4, 0.4), ("c", 0, 0.0)]
    c = found[2].interval
    assert c is not None and c.low == 0.0 and round(c.high, 4) == 0.2775
    assert [round(s.interval.low, 4) for s in found[:2]] == [0.3127, 0.1682]


def test_the_order_table_counts_where_each_concept_was_shown_and_chosen():
    reviews = [
        (["a", "b", "c"], "a"),
        (["a", "c", "b"], "a"),
        (["b", "a", "c"], "b"),
        (["c", "b", "a"], "c"),
        (["b", "c", "a"], None),  # no choice: counted as shown only
    ]
    table = order_table(reviews, ["a", "b", "c"])
    first = table[0]
    assert (first["a"].shown, first["a"].chosen, first["a"].share) == (2, 2, 1.0)
    assert (first["b"].shown, first["b"].chosen, first["b"].share) == (2, 1, 0.5)
    assert (first["c"].shown, first["c"].chosen) == (1, 1)
    assert (table[2]["a"].shown, table[2]["a"].chosen, table[2]["a"].share) == (2, 0, 0.0)
    assert chosen_at(table) == [4, 0, 0]  # every choice fell on the first position: an order effect
