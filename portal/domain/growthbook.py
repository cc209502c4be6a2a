"""GrowthBook feature evaluation for simple on/off flags, without the SDK (not installed here).

Covers what the portal's flags use: a default value, force rules with a coverage or
hash range (percentage rollouts), experiment rules (variations and weights), and
conditions made of plain equality, $eq, $ne, $in and $nin on attributes. A rule whose
condition uses anything else is skipped (it does not match). Hashing follows the
GrowthBook SDKs (FNV-1a 32 bit, hash versions 1 and 2), so a user lands in the same
bucket as with the official SDK.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def fnv1a32(text: str) -> int:
    value = 0x811C9DC5
    for char in text:
        value ^= ord(char)
        value = (value * 0x01000193) & 0xFFFFFFFF
    return value


def gb_hash(seed: str, value: str, version: int = 1) -> float | None:
    """A number in [0, 1) for (seed, value); None for an unknown hash version."""
    if version == 2:
        return (fnv1a32(str(fnv1a32(seed + value))) % 10000) / 10000
    if version == 1:
        return (fnv1a32(value + seed) % 1000) / 1000
    return None


def _in_range(n: float, bounds: Any) -> bool:
    try:
        low, high = float(bounds[0]), float(bounds[1])
    except (TypeError, ValueError, IndexError, KeyError):
        return False
    return low <= n < high


def condition_matches(condition: Any, attributes: Mapping[str, Any]) -> bool:
    if not condition:
        return True
    if not isinstance(condition, Mapping):
        return False
    for attribute, expected in condition.items():
        if attribute.startswith("$"):
            return False  # $or, $and, $not...: not supported, the rule does not match
        actual = attributes.get(attribute)
        if isinstance(expected, Mapping):
            for operator, operand in expected.items():
                if operator == "$eq":
                    ok = actual == operand
                elif operator == "$ne":
                    ok = actual != operand
                elif operator == "$in":
                    ok = isinstance(operand, list) and actual in operand
                elif operator == "$nin":
                    ok = isinstance(operand, list) and actual not in operand
                else:
                    return False
                if not ok:
                    return False
        elif actual != expected:
            return False
    return True


def _bucket(weights: list[float], coverage: float) -> list[tuple[float, float]]:
    ranges, start = [], 0.0
    for weight in weights:
        end = start + coverage * weight
        ranges.append((start, end))
        start += weight
    return ranges


def evaluate(feature_key: str, feature: Any, attributes: Mapping[str, Any]) -> Any:
    """The feature's value for a user with these attributes (GrowthBook's rule order)."""
    if not isinstance(feature, Mapping):
        return None
    for rule in feature.get("rules") or []:
        if not isinstance(rule, Mapping) or not condition_matches(rule.get("condition"), attributes):
            continue
        hash_attribute = rule.get("hashAttribute") or "id"
        hash_value = str(attributes.get(hash_attribute) or "")
        version = int(rule.get("hashVersion") or 1)
        if "force" in rule:
            if "range" in rule or rule.get("coverage") is not None:
                if not hash_value:
                    continue
                n = gb_hash(str(rule.get("seed") or feature_key), hash_value, version)
                if n is None:
                    continue
                if "range" in rule and not _in_range(n, rule["range"]):
                    continue
                if "range" not in rule and n > float(rule["coverage"]):
                    continue
            return rule["force"]
        variations = rule.get("variations")
        if isinstance(variations, list) and variations:
            if not hash_value:
                continue
            n = gb_hash(str(rule.get("seed") or rule.get("key") or feature_key), hash_value, version)
            if n is None:
                continue
            ranges = rule.get("ranges")
            if not isinstance(ranges, list):
                weights = rule.get("weights") or [1 / len(variations)] * len(variations)
                coverage = float(rule.get("coverage", 1) if rule.get("coverage") is not None else 1)
                ranges = _bucket([float(w) for w in weights], coverage)
            for index, bounds in enumerate(ranges[: len(variations)]):
                if _in_range(n, bounds):
                    return variations[index]
    return feature.get("defaultValue")


def is_on(value: Any) -> bool:
    """GrowthBook's isOn: anything but false, null, 0 and empty string."""
    return value not in (None, False, 0, "")
