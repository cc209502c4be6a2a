"""The kinds of question staff can add in the test builder: ONE list, every other map derived from it.

For each of the 12 question types (reference_data.QUESTION_TYPES) its label, the settings it has (derived
from question_definition.TYPE_FIELDS, so the builder never offers a field the import would refuse) and a
new question of the kind. The builder's forms, its 'Add question' menu and the type switch all read this.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from portal.domain.question_definition import COMMON_FIELDS, TYPE_FIELDS
from portal.domain.reference_data import QUESTION_TYPES


def _items(prefix: str, labels: tuple[str, ...]) -> list[dict[str, Any]]:
    return [{"value": f"{prefix}-{i}", "label": label} for i, label in enumerate(labels, start=1)]


_OPTIONS = _items("option", ("Option 1", "Option 2"))
_SCALE = [{"value": n, "label": str(n)} for n in range(1, 6)]


@dataclass(frozen=True)
class QuestionKind:
    type: str
    label: str
    hint: str  # one line in the 'Add question' menu
    # What a new question of this kind starts with (besides key, type and text).
    starts_with: Mapping[str, Any] = field(default_factory=dict)

    @property
    def settings(self) -> frozenset[str]:
        """Every field a question of this kind may carry (the import's own list)."""
        return COMMON_FIELDS | TYPE_FIELDS[self.type]

    def has(self, name: str) -> bool:
        return name in self.settings

    @property
    def answered(self) -> bool:
        """A description shows text only: nothing to answer, so it cannot be required."""
        return self.type != "description"

    def new_question(self, key: str) -> dict[str, Any]:
        """A new question: required when it asks for an answer (as a new test's first question is; staff untick it)."""
        required = {"isRequired": True} if self.answered else {}
        return {"key": key, "type": self.type, "text": "", **required, **copy.deepcopy(dict(self.starts_with))}


KINDS: tuple[QuestionKind, ...] = (
    QuestionKind("single-choice", "Single choice", "One answer from a list", {"options": _OPTIONS}),
    QuestionKind("multi-choice", "Multiple choice", "Several answers from a list", {"options": _OPTIONS}),
    QuestionKind(
        "editable-single-choice",
        "Single choice (editable)",
        "One answer; the list can be edited",
        {"options": _OPTIONS},
    ),
    QuestionKind(
        "editable-multi-choice",
        "Multiple choice (editable)",
        "Several answers; the list can be edited",
        {"options": _OPTIONS},
    ),
    QuestionKind("short-text", "Short text", "A few words"),
    QuestionKind("long-text", "Long text", "A written answer (15 words or more)", {"isLimited": True}),
    QuestionKind("editable-open-ended", "Open-ended (editable)", "A written answer", {"isLimited": True}),
    QuestionKind("number", "Number", "A value or a percentage", {"numberType": "value"}),
    QuestionKind("rank", "Ranking", "Put the options in order", {"options": _items("option", ("A", "B", "C"))}),
    QuestionKind("rating", "Rating", "A point on a scale", {"scales": _SCALE, "labels": {"low": "", "high": ""}}),
    QuestionKind("description", "Text and media", "Information to read; no answer"),
    QuestionKind(
        "matrix",
        "Matrix",
        "Statements rated on the same answers",
        {
            "statements": _items("statement", ("Statement 1", "Statement 2")),
            "answers": _items("answer", ("Disagree", "Neutral", "Agree")),
        },
    ),
)
BY_TYPE: dict[str, QuestionKind] = {k.type: k for k in KINDS}
assert tuple(BY_TYPE) == QUESTION_TYPES, "one kind per question type, in the spec's order"
for _kind in KINDS:
    assert set(_kind.starts_with) <= _kind.settings, f"{_kind.type} starts with a field it does not have"

LABELS: dict[str, str] = {k.type: k.label for k in KINDS}
TYPE_OPTIONS: list[tuple[str, str]] = [(k.type, k.label) for k in KINDS]
# The list fields whose entries staff add, remove and move (each entry {value, label}).
ITEM_LISTS: tuple[str, ...] = ("options", "statements", "answers", "scales")
# Fields every kind keeps when a question changes kind.
KEPT_ON_CHANGE = frozenset({"key", "text", "description", "hint", "embeddedLink", "images", "withImages", "page"})


def kind(question_type: Any) -> QuestionKind | None:
    return BY_TYPE.get(question_type) if isinstance(question_type, str) else None


def with_type(question: Mapping[str, Any], new_type: str) -> dict[str, Any]:
    """The question as a question of `new_type`: its common fields (and what both kinds share, such as the
    options) kept, what the new kind does not have dropped, and the new kind's starting values added."""
    target = BY_TYPE[new_type]
    kept = {k: copy.deepcopy(v) for k, v in question.items() if k in KEPT_ON_CHANGE or k in TYPE_FIELDS[new_type]}
    if kept.get("text"):
        kept.pop("textElements", None)
    if target.answered and question.get("isRequired"):
        kept["isRequired"] = True
    if "options" in kept and "withConditional" not in target.settings:
        kept["options"] = [
            {k: v for k, v in o.items() if k != "conditional"} if isinstance(o, dict) else o for o in kept["options"]
        ]
    for name, value in target.starts_with.items():
        kept.setdefault(name, copy.deepcopy(value))
    kept["type"] = new_type
    return kept
