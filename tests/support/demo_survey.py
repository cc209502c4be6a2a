"""Answers to the demo survey (portal/data/demo_tests/01-survey.json) along its influencer branch."""

from __future__ import annotations

from typing import Any

WORDS_15 = " ".join(f"word{i}" for i in range(15))


def good_answers(**overrides: Any) -> dict[str, Any]:
    """A valid submission of the demo survey; `overrides` replace answers by question key."""
    return {
        "involvement": {"type": "single-choice", "value": "influencer"},
        "priorities": {"type": "rank", "value": ["price", "ease", "integrations", "support"]},
        "satisfaction": {"type": "rating", "value": 4},
        "statements": {"type": "matrix", "value": {"trust": ["agree"], "speed": ["neutral"]}},
        "discovery-channel": {"type": "editable-single-choice", "value": "peers"},
        "job-title": {"type": "short-text", "value": "Head of data"},
        "last-purchase": {"type": "long-text", "value": WORDS_15, "isLimited": True},
        **overrides,
    }
