"""Highlight (landing-page) and pricing tests (test-taking spec sections 2, 3, 4 and 5).

The participant reads the page (the pre-check), then answers in blocks: first impression, each
highlighted area's questions, then the overall (post-test) questions. A pricing test shows the
home page first as context; its areas are on the pricing page.

The submission's answers are keyed by block: 'first-impression', 'highlight-1' ... 'highlight-N'
(the areas in order, numbered as the participant sees them) and 'post-test', each a list of
answers in question order. Errors name the answer: 'answers.<block>.<index>.value'.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from portal.domain.definition_checks import Checker, is_number, join
from portal.domain.question_definition import check_questions
from portal.domain.taking import signals as signal_rules
from portal.domain.taking import survey_view
from portal.domain.taking.kinds.base import HIGHLIGHT_VIEW, Content, Kind
from portal.domain.taking.survey_answers import clean_answer, validate_answer

FIRST_IMPRESSION, POST_TEST = "first-impression", "post-test"
BLOCKS = (FIRST_IMPRESSION, POST_TEST)
AREA_PREFIX = "highlight-"
SCROLL_OFFSET_PX = 50  # moving to an area scrolls the screenshot to 50 px above it

# Wording (spec section 2).
START_LABEL = "Start test now"
PRECHECK_TITLE = "Please read through the full page first."
PRECHECK_TEXT = "We're going to ask you questions about it once done."
PRICING_HOME_TITLE = "Please read through the home page first"
PRICING_HOME_TEXT = "It will serve as context to have a better understanding about the pricing page."
CONFIRM_READ = "I confirm that I read through the whole page"
PROCEED_TO_QUESTIONS = "Proceed to questions"
FRAME_OF_MIND = "Frame of mind"
SEE_INSTRUCTIONS = "See instructions"
SHOW_HIGHLIGHT, HIDE_HIGHLIGHT = "Show Highlight", "Hide Highlight"
OPEN_SCREENSHOT = "Open screenshot in full"
OPEN_PAGE = "Open page URL"
NEXT, NEXT_HIGHLIGHT, PROCEED, SUBMIT = "Next", "Next Highlight", "Proceed", "Submit"
FIRST_IMPRESSION_LABEL = "First impression"
OVERALL_LABEL, OVERALL_HINT = (
    survey_view.OVERALL_QUESTIONS,
    survey_view.OVERALL_HINT,
)  # the survey's final-review wording
DEFAULT_WELCOME_TITLE = "Welcome!"
INSTRUCTIONS_TITLE, INSTRUCTIONS_BUTTON = "Instructions", "Got it"
INSTRUCTIONS = (
    "Read the text in the highlighted blocks of the page.",
    "Answer the questions in the form on the right.",
    "Be thorough: thoughtful feedback earns bonuses and more paid work.",
    "Please write at least 2 sentences per question.",
)
# Panels that show the test's own welcome modal; every other panel gets the instructions.
OWN_WELCOME_PANELS = frozenset({"custom", "b2b"})

UNKNOWN_AREA = "This area is not part of the test"
TOO_MANY_ANSWERS = "There are more answers than questions in this block"
NOT_A_LIST = "The answers of a block must be a list"
NOT_AN_OBJECT = "The answers must be grouped by block"


@dataclass(frozen=True)
class Block:
    key: str  # first-impression | highlight-<n> | post-test
    area: int | None  # 0-based index of the selected area, None for the other blocks
    questions: tuple[dict[str, Any], ...]


# Where a participant is in a highlight test (block, area, question), by test id, in local storage.
PLACE_KEY = "highlight-areas-answers"


# --- the definition ----------------------------------------------------------------------------
def read(
    ck: Checker, doc: dict[str, Any], *, product_type: str, seen_keys: dict[str, str], columns: dict[str, Any]
) -> None:
    if product_type == "pricing-test":
        columns["pricing_url"] = ck.url(doc, "pricingUrl", "", required=True)
        columns["pricing_screenshot_url"] = ck.url(doc, "pricingScreenshotUrl", "", required=True, allow_path=True)
    blocks_doc = ck.optional_obj(doc, "questions", "", BLOCKS)
    total = 0
    for block in BLOCKS:
        found = ck.array(blocks_doc, block, "questions", what="questions")
        check_questions(ck, found, join("questions", block), branching=False, seen_keys=seen_keys)
        total += len(found)
    areas = ck.array(doc, "selectedAreas", "", what="areas")
    for i, raw in enumerate(areas):
        total += _read_area(ck, raw, join("selectedAreas", i), seen_keys)
    if not total:
        ck.add("questions", "a highlight test needs at least one question (in a block or a selected area)")
    columns["questions"] = dict(blocks_doc)
    columns["selected_areas"] = list(areas)


def _read_area(ck: Checker, raw: Any, path: str, seen_keys: dict[str, str]) -> int:
    area = ck.obj(raw, path, ("from", "to", "questions"))
    if area is None:
        return 0
    corners = {}
    for corner in ("from", "to"):
        point = area.get(corner)
        if not (isinstance(point, list) and len(point) == 2 and all(is_number(v) for v in point)):
            ck.add(join(path, corner), "must be [x, y] in percent of the screenshot")
        elif not all(0 <= v <= 100 for v in point):
            ck.add(join(path, corner), f"coordinates must be between 0 and 100 percent, got {point}")
        else:
            corners[corner] = point
    if len(corners) == 2 and not (corners["from"][0] < corners["to"][0] and corners["from"][1] < corners["to"][1]):
        ck.add(path, "'from' must be the top-left and 'to' the bottom-right corner of a non-empty area")
    found = ck.array(area, "questions", path, min_items=1, what="questions")
    check_questions(ck, found, join(path, "questions"), branching=False, seen_keys=seen_keys)
    return len(found)


# --- blocks and questions ----------------------------------------------------------------------
def _list(value: Any) -> list[dict[str, Any]]:
    return [q for q in value if isinstance(q, dict)] if isinstance(value, list) else []


def areas(content: Content) -> list[dict[str, Any]]:
    return [a for a in content.get("selectedAreas") or [] if isinstance(a, dict)]


def blocks(content: Content) -> list[Block]:
    """The blocks in the order they are asked; empty blocks are left out."""
    grouped = got if isinstance(got := content.get("questions"), dict) else {}
    found = [Block(FIRST_IMPRESSION, None, tuple(_list(grouped.get(FIRST_IMPRESSION))))]
    for i, area in enumerate(areas(content)):
        found.append(Block(f"{AREA_PREFIX}{i + 1}", i, tuple(_list(area.get("questions")))))
    found.append(Block(POST_TEST, None, tuple(_list(grouped.get(POST_TEST)))))
    return [b for b in found if b.questions]


def questions(content: Content) -> list[dict[str, Any]]:
    return [q for block in blocks(content) for q in block.questions]


def places(content: Content) -> list[tuple[str, int, int | None]]:
    """For each question of `questions(content)`: (block key, index in its block, area index)."""
    return [(block.key, i, block.area) for block in blocks(content) for i in range(len(block.questions))]


def group(content: Content, answers: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Answers by question key (the draft) as the submission's answers by block."""
    return {
        block.key: [
            dict(answers.get(q.get("key", "")) or {"type": q.get("type"), "value": None}) for q in block.questions
        ]
        for block in blocks(content)
    }


def validate(content: Content, answers: Any) -> dict[str, str]:
    """Every error of a submission's answers by block: unknown blocks, extra answers, and each
    answer by the question rules (section 5), named 'answers.<block>.<index>.value'."""
    if not isinstance(answers, dict):
        return {"answers": NOT_AN_OBJECT}
    errors: dict[str, str] = {}
    known = {block.key: block for block in blocks(content)}
    for key in answers:
        if key not in known:
            errors[f"answers.{key}"] = UNKNOWN_AREA
    for key, block in known.items():
        given = answers.get(key, [])
        if not isinstance(given, list):
            errors[f"answers.{key}"] = NOT_A_LIST
            continue
        if len(given) > len(block.questions):
            errors[f"answers.{key}"] = TOO_MANY_ANSWERS
        for i, question in enumerate(block.questions):
            answer = given[i] if i < len(given) else None
            if question.get("type") == "description":
                continue
            message = validate_answer(question, answer)
            if message:
                errors[f"answers.{key}.{i}.value"] = message
    return errors


def stored(content: Content, answers: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The answers kept with the review: each block's answers, cleaned, with their question keys."""
    result = {}
    for block in blocks(content):
        given = answers.get(block.key) or []
        kept = []
        for i, question in enumerate(block.questions):
            answer = given[i] if i < len(given) and isinstance(given[i], dict) else {}
            kept.append({**clean_answer(answer), "type": question.get("type"), "questionKey": question.get("key")})
        result[block.key] = kept
    return result


# --- what the screens show ---------------------------------------------------------------------
def tier_label(product_type: str) -> str:
    """'landing-page' -> 'Landing page'; a label that already ends in 'test' keeps it off."""
    text = product_type.replace("-", " ").strip()
    text = text[:1].upper() + text[1:]
    if text.lower().startswith("b2b"):
        text = "B2B" + text[3:]
    return text.removesuffix(" test")


def intro_title(product_type: str) -> str:
    return f"{tier_label(product_type)} test"


def area_word(product_type: str) -> str:
    return "Offering" if product_type == "landing-page" else "Highlight"


def area_label(product_type: str, number: int, total: int) -> str:
    """'Highlight 2 of 3' ('Offering 2 of 3' for the landing-page tier); number is 1-based."""
    return f"{area_word(product_type)} {number} of {total}"


def block_label(product_type: str, block: Block, total_areas: int) -> str:
    if block.area is not None:
        return area_label(product_type, block.area + 1, total_areas)
    return FIRST_IMPRESSION_LABEL if block.key == FIRST_IMPRESSION else OVERALL_LABEL


def instructions(panel: str, welcome_modal: Any) -> dict[str, Any]:
    """The instructions (welcome) modal: custom and B2B panels show the test's own welcome modal
    (title defaulting to 'Welcome!'); mturk and every other panel get 'Instructions' / 'Got it'."""
    own = welcome_modal if isinstance(welcome_modal, dict) else {}
    if panel in OWN_WELCOME_PANELS:
        body = str(own.get("body") or "").strip()
        return {
            "title": str(own.get("title") or "").strip() or DEFAULT_WELCOME_TITLE,
            "body": [body] if body else list(INSTRUCTIONS),
            "button": str(own.get("button") or "").strip() or INSTRUCTIONS_BUTTON,
        }
    return {"title": INSTRUCTIONS_TITLE, "body": list(INSTRUCTIONS), "button": INSTRUCTIONS_BUTTON}


def area_box(area: dict[str, Any]) -> dict[str, str]:
    """The area as CSS percentages of the screenshot: left, top, width, height."""
    (x1, y1), (x2, y2) = area.get("from") or (0, 0), area.get("to") or (0, 0)
    return {"left": f"{x1}%", "top": f"{y1}%", "width": f"{x2 - x1}%", "height": f"{y2 - y1}%"}


def next_label(content: Content, index: int, *, has_end_step: bool) -> str:
    """The forward button on the question at flat `index`: Next inside a block; at a block's last
    question 'Next Highlight' when an area follows, else 'Proceed'; Submit on the very last
    question when no personal-info step follows."""
    where = places(content)
    if not 0 <= index < len(where):
        return NEXT
    if index + 1 < len(where):
        if where[index + 1][0] == where[index][0]:
            return NEXT
        return NEXT_HIGHLIGHT if where[index + 1][2] is not None else PROCEED
    return PROCEED if has_end_step else SUBMIT


# --- reading signals (beyond the spec: quality signals for staff) ------------------------------
MAX_SIGNAL_SECONDS = 24 * 3600


def add_seconds(signals: dict[str, Any], name: str, seconds: float) -> dict[str, Any]:
    """signals with `seconds` added to the counter `name` (0.1 s, capped: portal/domain/taking/signals.py)."""
    return signal_rules.add_seconds(signals, name, seconds)


def deepest_scroll(signals: dict[str, Any], name: str, percent: Any) -> dict[str, Any]:
    """signals with the deepest scroll (0-100 percent of the screenshot) seen for `name`."""
    if not isinstance(percent, (int, float)) or isinstance(percent, bool) or percent != percent:
        return signals
    kept = dict(signals)
    before = got if isinstance(got := kept.get(name), int) else 0
    kept[name] = max(before, min(100, max(0, int(percent))))
    return kept


HIGHLIGHT = Kind(
    name="highlight",
    view=HIGHLIGHT_VIEW,
    review_kind="highlight",
    fields=("questions", "selectedAreas"),
    read=read,
    questions=questions,
    validate=validate,
    stored=stored,
    shows_page=True,
    store_suffix="-answers",
    place_key=PLACE_KEY,
)
PRICING = Kind(
    name="pricing",
    view=HIGHLIGHT_VIEW,
    review_kind="highlight",
    fields=("questions", "selectedAreas", "pricingUrl", "pricingScreenshotUrl"),
    read=read,
    questions=questions,
    validate=validate,
    stored=stored,
    shows_page=True,
    product_types=("pricing-test",),
    store_suffix="-answers",
    place_key=PLACE_KEY,
    home_page=True,
)
