"""Rules of the feature-flag admin: the percentage field, per-user override values, and how a flag reads."""

from __future__ import annotations

import re
from typing import Any, TypeGuard

from portal.domain.flags import FLAGS

PERCENTAGE_MESSAGE = "Enter the percentage as a whole number from 0 to 100."
UNKNOWN_FLAG = "There is no such feature flag."
ON, OFF = "on", "off"
OVERRIDE_CHOICES = (ON, OFF)
_WHOLE = re.compile(r"[0-9]{1,3}")


def is_flag(key: object) -> TypeGuard[str]:
    return isinstance(key, str) and key in FLAGS


def parse_percentage(value: Any) -> int | None:
    """0-100 from a number or its text ('25', ' 25 ', '25%'); None for anything else (150, 2.5, '', 'x')."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        number = value
    elif isinstance(value, str):
        text = value.strip().removesuffix("%").strip()
        if not _WHOLE.fullmatch(text):
            return None
        number = int(text)
    else:
        return None
    return number if 0 <= number <= 100 else None


def parse_override(value: Any) -> bool | None:
    """'on' -> True, 'off' -> False (also real booleans); None for anything else."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value in OVERRIDE_CHOICES:
        return value == ON
    return None


_WORDS = {"icp": "ICP"}  # abbreviations kept in capitals


def flag_label(key: str) -> str:
    """'referral-program' -> 'Referral program', 'chat-with-your-icp' -> 'Chat with your ICP'."""
    return " ".join(_WORDS.get(word, word) for word in key.replace("-", " ").capitalize().split(" "))


def flag_summary(enabled: bool, percentage: int) -> str:
    """What the table's setting means for users without an override."""
    if not enabled or percentage <= 0:
        return "Off for everyone"
    if percentage >= 100:
        return "On for everyone"
    return f"On for {percentage}% of users"


def override_label(enabled: bool | None) -> str:
    return "none" if enabled is None else (ON if enabled else OFF)
