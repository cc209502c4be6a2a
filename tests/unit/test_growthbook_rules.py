"""GrowthBook evaluation without the SDK: hashing, force rules, rollouts, experiments, conditions."""

from __future__ import annotations

import pytest

from portal.domain.growthbook import condition_matches, evaluate, gb_hash, is_on


@pytest.mark.parametrize(
    ("seed", "value", "expected"),
    [("", "a", 0.22), ("", "b", 0.077), ("b", "a", 0.946), ("ef", "d", 0.652)],
)
def test_hash_v1_matches_the_sdk(seed, value, expected):
    assert gb_hash(seed, value, 1) == expected


def test_hash_v2_range_and_unknown_version():
    for i in range(200):
        n = gb_hash("seed", str(i), 2)
        assert 0 <= n < 1
    assert gb_hash("s", "v", 3) is None


def test_default_value_only():
    assert evaluate("f", {"defaultValue": True}, {"id": "1"}) is True
    assert evaluate("f", {"defaultValue": False, "rules": []}, {"id": "1"}) is False
    assert evaluate("f", None, {"id": "1"}) is None


def test_force_rule_with_condition():
    feature = {"defaultValue": False, "rules": [{"condition": {"id": "7"}, "force": True}]}
    assert evaluate("f", feature, {"id": "7"}) is True
    assert evaluate("f", feature, {"id": "8"}) is False


def test_rollout_coverage_is_stable_and_roughly_the_percentage():
    feature = {"defaultValue": False, "rules": [{"force": True, "coverage": 0.3, "hashAttribute": "id"}]}
    on = [evaluate("referral-program", feature, {"id": str(i)}) for i in range(2000)]
    assert 0.25 < sum(on) / len(on) < 0.35
    assert on == [evaluate("referral-program", feature, {"id": str(i)}) for i in range(2000)]
    # No id: the rollout rule is skipped.
    assert evaluate("referral-program", feature, {"id": ""}) is False


def test_rollout_range():
    feature = {"defaultValue": False, "rules": [{"force": True, "range": [0, 0.5], "hashVersion": 2, "seed": "s"}]}
    values = [evaluate("f", feature, {"id": str(i)}) for i in range(1000)]
    assert 0.4 < sum(values) / len(values) < 0.6


def test_experiment_rule():
    feature = {"defaultValue": False, "rules": [{"key": "exp", "variations": [False, True], "weights": [0.5, 0.5]}]}
    values = [evaluate("f", feature, {"id": str(i)}) for i in range(1000)]
    assert 0.4 < sum(values) / len(values) < 0.6
    zero = {"defaultValue": "d", "rules": [{"key": "exp", "variations": [1, 2], "weights": [0.5, 0.5], "coverage": 0}]}
    assert evaluate("f", zero, {"id": "1"}) == "d"


def test_conditions():
    attrs = {"id": "3", "country": "US"}
    assert condition_matches({}, attrs)
    assert condition_matches({"country": {"$in": ["US", "CA"]}}, attrs)
    assert not condition_matches({"country": {"$nin": ["US"]}}, attrs)
    assert condition_matches({"country": {"$ne": "DE"}, "id": {"$eq": "3"}}, attrs)
    assert not condition_matches({"$or": [{"id": "3"}]}, attrs)  # unsupported: no match
    assert not condition_matches({"country": {"$regex": "U"}}, attrs)


@pytest.mark.parametrize(("value", "on"), [(True, True), ("on", True), (1, True), (False, False), (0, False), ("", False), (None, False)])
def test_is_on(value, on):
    assert is_on(value) is on
