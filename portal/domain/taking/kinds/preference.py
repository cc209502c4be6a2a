"""The preference kind: choose one of several image or text concepts, then say why
(test-taking spec sections 2, 3, 4 and 5).

The submission's answers are the spec's preference payload without the worker data:
{"preferenceTestAnswers": {selectedConcept, answer, isLimited, pasteMetadata?}, "optionsOrder": [...]}.
`selectedConcept` is an image's key, or for a text test the option's text. Image concepts are
shown in an order drawn once per participant and test (`order`, seeded with the participant's
key), lettered A, B, C ... as shown; the server stores its own order with the review.
"""

from __future__ import annotations

import random
from typing import Any

from portal.domain.definition_checks import Checker, join
from portal.domain.taking.kinds.base import PREFERENCE_VIEW, Content, Kind
from portal.domain.taking.survey_answers import (
    MAX_TEXT_LENGTH,
    MIN_WORDS,
    TEXT_TOO_LONG,
    TOO_SHORT,
    paste_metadata_ok,
    word_count,
)

MAX_IMAGES = 26  # concepts are lettered A-Z
FIELDS = (
    "preferenceType",
    "images",
    "textOptions",
    "welcomePage",
    "thankYouPage",
    "initialQuestion",
    "customInitialQuestion",
    "followUpQuestion",
    "customFollowUpQuestion",
    "isLimited",
)


def read(
    ck: Checker, doc: dict[str, Any], *, product_type: str, seen_keys: dict[str, str], columns: dict[str, Any]
) -> None:
    if doc.get("preferenceTest") is None:
        ck.add("preferenceTest", "is required for a preference test")
        return
    pref = ck.obj(doc["preferenceTest"], "preferenceTest", FIELDS) or {}
    path = "preferenceTest"
    ptype = ck.choice(pref, "preferenceType", path, ("image", "text"), required=True)
    for page in ("welcomePage", "thankYouPage"):
        ck.texts(
            ck.optional_obj(pref, page, path, ("title", "description")), join(path, page), ("title", "description")
        )
    ck.texts(pref, path, ("initialQuestion", "customInitialQuestion", "followUpQuestion", "customFollowUpQuestion"))
    ck.boolean(pref, "isLimited", path)
    if ptype == "image":
        images = ck.array(pref, "images", path, min_items=2, max_items=MAX_IMAGES, what="images")
        keys = []
        for i, raw in enumerate(images):
            ipath = join(join(path, "images"), i)
            image = ck.obj(raw, ipath, ("key", "name", "url"))
            if image is not None:
                keys.append((join(ipath, "key"), ck.string(image, "key", ipath, required=True)))
                ck.string(image, "name", ipath, required=True)
                ck.url(image, "url", ipath, required=True, allow_path=True)
        ck.unique(keys, "image key")
        if pref.get("textOptions"):
            ck.add(join(path, "textOptions"), "an image preference test has no text options")
    elif ptype == "text":
        if pref.get("textOptions") is None:
            ck.add(join(path, "textOptions"), "is required for a text preference test")
        options = ck.optional_obj(pref, "textOptions", path, ("optionOne", "optionTwo", "optionThree"))
        if options or pref.get("textOptions") is not None:
            for key in ("optionOne", "optionTwo", "optionThree"):
                ck.string(options, key, join(path, "textOptions"), required=True, max_length=2000)
        if pref.get("images"):
            ck.add(join(path, "images"), "a text preference test has no images")
    columns["preference_test"] = dict(pref)


# Wording (spec sections 2 and 5).
IMAGE_PROMPT = "Which one do you like better?"
TEXT_PROMPT = "Read these options and choose one of them."
FOLLOW_UP = "Why did you choose concept {letter}?"
PLACEHOLDER = "Type your answer here..."
SUBMIT_LABEL = "Submit feedback"
SELECT_CONCEPT = "Select this concept"
REQUIRED = "Answer is required."
TOO_LONG = TEXT_TOO_LONG
NOT_AN_OPTION = "Please choose one of the concepts."
NOT_AN_OBJECT = "The answers could not be read."
FAILED = "Unable to pass review, please try again later"
FONT_SIZES = ("small", "medium", "large")
DEFAULT_FONT_SIZE = "medium"
TEXT_OPTION_KEYS = ("optionOne", "optionTwo", "optionThree")


def _pref(content: Content) -> dict[str, Any]:
    found = content.get("preferenceTest")
    return found if isinstance(found, dict) else {}


def is_image(content: Content) -> bool:
    return _pref(content).get("preferenceType") == "image"


def is_limited(content: Content) -> bool:
    return _pref(content).get("isLimited") is True


def concepts(content: Content) -> list[dict[str, str]]:
    """The concepts in the test's own order: {key, label, url} (a text concept's key is its text)."""
    pref = _pref(content)
    if is_image(content):
        return [
            {"key": str(i.get("key")), "label": str(i.get("name") or i.get("key")), "url": str(i.get("url") or "")}
            for i in pref.get("images") or []
            if isinstance(i, dict) and i.get("key")
        ]
    options = got if isinstance(got := pref.get("textOptions"), dict) else {}
    texts = [options.get(k) for k in TEXT_OPTION_KEYS]
    return [{"key": t, "label": t, "url": ""} for t in texts if isinstance(t, str) and t.strip()]


def order(content: Content, seed: str) -> list[str]:
    """The image keys in the order this participant sees them: drawn once from `seed` (the
    participant's key and the test), so it is the same on every load, tab and device. Text
    concepts keep the test's order (the spec shuffles images only): []."""
    if not is_image(content):
        return []
    keys = [c["key"] for c in concepts(content)]
    random.Random(seed).shuffle(keys)
    return keys


def shown(content: Content, seed: str) -> list[dict[str, str]]:
    """The concepts as shown, each with its letter (A, B, C ... in the order shown)."""
    by_key = {c["key"]: c for c in concepts(content)}
    keys = order(content, seed) or list(by_key)
    return [{**by_key[k], "letter": letter(i)} for i, k in enumerate(keys)]


def letter(index: int) -> str:
    return chr(ord("A") + index) if 0 <= index < 26 else "?"


def prompt(content: Content) -> str:
    """The question over the concepts: the test's custom initial question, else the default of its type."""
    custom = str(_pref(content).get("customInitialQuestion") or "").strip()
    return custom or (IMAGE_PROMPT if is_image(content) else TEXT_PROMPT)


def follow_up(content: Content, chosen_letter: str) -> str:
    """The follow-up question: the test's custom follow-up, else 'Why did you choose concept {letter}?'."""
    custom = str(_pref(content).get("customFollowUpQuestion") or "").strip()
    return custom or FOLLOW_UP.format(letter=chosen_letter)


# The answers' keys in the draft (and the browser's copy): the chosen concept and the reason for it.
CHOICE, REASON = "selectedConcept", "answer"


def kept_value(value: Any) -> Any:
    """A choice or reason as the browser's copy may hold it: the value itself, or an object with it
    (a pending change {"value", "concept"?}, or a keystroke kept before the server answered)."""
    return value.get("value") if isinstance(value, dict) else value


def pending_choice(entry: Any, keys: set[str]) -> str | None:
    """A pending choice the browser hands back ({"value": concept key}): the key, when it is one of
    the test's concepts; else None (refused)."""
    if not isinstance(entry, dict) or set(entry) != {"value"}:
        return None
    value = entry["value"]
    return value if isinstance(value, str) and value in keys else None


def pending_reason(entry: Any, chosen: str) -> str | None:
    """A pending reason the browser hands back ({"value": text, "concept": the concept it was typed
    for}): the text, when it was typed for the concept now chosen and is not longer than an answer may
    be; else None (refused: a reason never moves to another concept)."""
    if not isinstance(entry, dict) or set(entry) != {"value", "concept"}:
        return None
    text, concept = entry["value"], entry["concept"]
    if not chosen or concept != chosen or not isinstance(text, str) or len(text) > MAX_TEXT_LENGTH:
        return None
    return text


def answer_message(text: Any, limited: bool) -> str | None:
    """The follow-up answer's rule (section 5): required, at least 15 words when limited, at most 10000."""
    if not isinstance(text, str) or not text.strip():
        return REQUIRED
    if len(text) > MAX_TEXT_LENGTH:
        return TOO_LONG
    if limited and word_count(text) < MIN_WORDS:
        return TOO_SHORT
    return None


def validate(content: Content, answers: Any) -> dict[str, str]:
    given = answers.get("preferenceTestAnswers") if isinstance(answers, dict) else None
    if not isinstance(given, dict):
        return {"answers.preferenceTestAnswers": NOT_AN_OBJECT}
    errors = {}
    if given.get("selectedConcept") not in {c["key"] for c in concepts(content)}:
        errors["answers.preferenceTestAnswers.selectedConcept"] = NOT_AN_OPTION
    message = answer_message(given.get("answer"), is_limited(content))
    if message:
        errors["answers.preferenceTestAnswers.answer"] = message
    return errors


def stored(content: Content, answers: dict[str, Any]) -> dict[str, Any]:
    given = answers["preferenceTestAnswers"]
    kept = {"selectedConcept": given["selectedConcept"], "answer": given["answer"], "isLimited": is_limited(content)}
    if paste_metadata_ok(given.get("pasteMetadata")):
        kept["pasteMetadata"] = given["pasteMetadata"]
    return kept


KIND = Kind(
    name="preference",
    view=PREFERENCE_VIEW,
    review_kind="preference",
    fields=("preferenceTest",),
    read=read,
    validate=validate,
    stored=stored,
    order=order,
    product_types=("preference-test",),
    store_suffix="-preference-answer",
)
