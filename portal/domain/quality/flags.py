"""Quality flags of a review (issue 36): one registry, each flag one entry with its key, its plain-language title,
its rule and its weight; every map is derived from that list.

Two entry points:
- `context_of(all_evidence_of_the_test) -> Context`: the test's medians and the texts shared between reviews,
  computed once for a test;
- `flags_for(evidence, context) -> list[Flag]`: one review's flags, the strongest first.

A flag is evidence for staff to read, never a decision: no flag rejects anything by itself, and no rule scores the
text as written by a person or a machine (no classifier anywhere). A signal that was not measured raises no flag.
The thresholds and why: docs/decisions.md, "Quality flags: the rules and their thresholds (issue 36)".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from rapidfuzz import fuzz

from portal.domain.quality import copies as copies_module
from portal.domain.quality.copies import Copy, normalised
from portal.domain.quality.evidence import Evidence, Grid
from portal.domain.quality.medians import TOTAL, Median, median_of, medians

# Thresholds (docs/decisions.md says why).
SPEED_SHARE = 1 / 4  # total time under this share of the test's median
SPEED_WORDS = "under a quarter"
PASTE_SHARE = 0.5  # an answer whose pasted characters are at least half its final text
PASTE_MIN_CHARS = 20  # ... and at least this many pasted characters (a name or a link is no flag)
AWAY_LEAVES = 2  # left the tab at least twice during text answers (one leave is an interruption)
AWAY_SECONDS = 30.0  # ... and at least this many seconds away in all
GRID_ROWS = 3  # a matrix needs at least this many answered rows to be straight-lined
RATING_ROWS = 5  # rating questions on one scale: at least this many, all answered alike
GRID_SPEED_SHARE = 0.5  # ... on a matrix answered in under half the test's median time for it (when measured)
ECHO_SIMILAR = 80.0  # an answer at least this alike to its question repeats it
SHORT_SHARE = 0.5  # under half the word minimum (different words)


@dataclass(frozen=True)
class Flag:
    key: str
    label: str  # plain language, with the value and the median where one applies
    strength: float  # to sort by: the rule's weight, plus up to 1 for how far past its threshold
    value: float
    median: float | None = None


@dataclass(frozen=True)
class Context:
    """What a review's flags are measured against: the test's medians and its reviews' shared texts."""

    medians: Mapping[str, Median] = field(default_factory=dict)
    copies: Mapping[int, Copy] = field(default_factory=dict)


@dataclass(frozen=True)
class Found:
    label: str
    value: float
    severity: float = 0.0  # 0-1: how far past the threshold
    median: float | None = None


@dataclass(frozen=True)
class Rule:
    key: str
    title: str  # the flag's name in a filter
    weight: float
    check: Callable[[Evidence, Context], Found | None]


def duration(seconds: float) -> str:
    """'43 s', '9 min 10 s', '1 h 5 min'."""
    whole = int(round(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    if minutes:
        return f"{minutes} min {secs} s" if secs else f"{minutes} min"
    return f"{secs} s"


def _times(n: int) -> str:
    return "once" if n == 1 else f"{n} times"


def _clip(value: float) -> float:
    return max(0.0, min(1.0, value))


def _quote(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return f"'{text if len(text) <= limit else text[: limit - 1].rstrip() + '…'}'"


# --- the rules ----------------------------------------------------------------------------------------------


def speeder(item: Evidence, context: Context) -> Found | None:
    median = median_of(context.medians, TOTAL)
    if item.seconds is None or median is None or median <= 0 or item.seconds >= median * SPEED_SHARE:
        return None
    share = item.seconds / median
    return Found(
        f"Finished in {duration(item.seconds)} — the median is {duration(median)} ({SPEED_WORDS})",
        item.seconds,
        _clip(1 - share / SPEED_SHARE),
        median,
    )


def pasted(item: Evidence, context: Context) -> Found | None:
    answers = [(a, min(a.pasted, len(a.text))) for a in item.texts if a.text and a.pasted]
    mostly = [a for a, chars in answers if chars >= PASTE_MIN_CHARS and chars / len(a.text) >= PASTE_SHARE]
    if not mostly:
        return None
    total = sum(len(a.text) for a in item.texts if a.text)
    chars = sum(c for _, c in answers)
    share = chars / total
    which = "1 answer" if len(mostly) == 1 else f"{len(mostly)} answers"
    return Found(
        f"Pasted {round(share * 100)}% of the typed text ({chars} of {total} characters); {which} mostly pasted",
        share,
        _clip(share),
    )


def left_tab(item: Evidence, context: Context) -> Found | None:
    measured = [a for a in item.texts if a.leaves is not None or a.away is not None]
    if not measured:
        return None
    leaves = sum(a.leaves or 0 for a in measured)
    away = sum(a.away or 0.0 for a in measured)
    if leaves < AWAY_LEAVES or away < AWAY_SECONDS:
        return None
    during = sum(1 for a in measured if (a.leaves or 0) > 0 or (a.away or 0) > 0)
    where = "a text answer" if during == 1 else f"{during} text answers"
    return Found(
        f"Left the tab {_times(leaves)} during {where}, {duration(away)} away",
        away,
        _clip(away / (10 * AWAY_SECONDS)),
    )


def _hurried(grid: Grid, context: Context) -> tuple[bool, float | None]:
    """Whether the grid was answered in under GRID_SPEED_SHARE of the test's median for it (True when either
    is unknown: the pattern alone then), and that median."""
    median = None if grid.ratings else median_of(context.medians, f"question:{grid.key}")
    if grid.seconds is None or median is None:
        return True, median
    return grid.seconds < median * GRID_SPEED_SHARE, median


def straight_lining(item: Evidence, context: Context) -> Found | None:
    lined = []
    for grid in item.grids:
        if len(grid.chosen) >= (RATING_ROWS if grid.ratings else GRID_ROWS) and len(set(grid.chosen)) == 1:
            hurried, median = _hurried(grid, context)
            if hurried:
                lined.append((grid, median))
    if not lined:
        return None
    grid, median = max(lined, key=lambda found: len(found[0].chosen))
    rows = sum(len(g.chosen) for g, _ in lined)
    more = "" if len(lined) == 1 else f" and {len(lined) - 1} more grid{'s' if len(lined) > 2 else ''}"
    timed = (
        f" in {duration(grid.seconds)} — the median is {duration(median)}"
        if grid.seconds is not None and median is not None
        else ""
    )
    return Found(
        f"The same answer ('{grid.chosen[0]}') on every row of {_quote(grid.question)} ({len(grid.chosen)} rows)"
        f"{timed}{more}",
        rows,
        _clip(rows / 12),
        median,
    )


def copied(item: Evidence, context: Context) -> Found | None:
    found = context.copies.get(item.review_id)
    if found is None:
        return None
    alike = "The same text" if found.score >= 100 else f"Nearly the same text ({round(found.score)}% alike)"
    return Found(f"{alike} as review #{found.review_id}", found.score, _clip((found.score - 90) / 10))


def repeated(item: Evidence, context: Context) -> Found | None:
    found = copies_module.repeated((a.key, a.text) for a in item.texts)
    if found is None:
        return None
    titles = {a.key: a.question for a in item.texts}
    alike = "The same text" if found[2] >= 100 else f"Nearly the same text ({round(found[2])}% alike)"
    return Found(
        f"{alike} for two questions: {_quote(titles[found[0]], 40)} and {_quote(titles[found[1]], 40)}",
        found[2],
        _clip((found[2] - 90) / 10),
    )


def echo(item: Evidence, context: Context) -> Found | None:
    best: tuple[float, str] | None = None
    for answer in item.texts:
        text, question = normalised(answer.text), normalised(answer.question)
        if not text or not question:
            continue
        score = fuzz.ratio(text, question, score_cutoff=ECHO_SIMILAR)
        if score and (best is None or score > best[0]):
            best = (score, answer.question)
    if best is None:
        return None
    return Found(
        f"An answer repeats its question {_quote(best[1])} ({round(best[0])}% alike)",
        best[0],
        _clip((best[0] - ECHO_SIMILAR) / (100 - ECHO_SIMILAR)),
    )


def _distinct_words(text: str) -> int:
    return len(set(normalised(text).split()))


def too_short(item: Evidence, context: Context) -> Found | None:
    short = [
        (_distinct_words(a.text), a.min_words)
        for a in item.texts
        if a.min_words and a.text.strip() and _distinct_words(a.text) < a.min_words * SHORT_SHARE
    ]
    if not short:
        return None
    fewest, minimum = min(short)
    which = "1 answer" if len(short) == 1 else f"{len(short)} answers"
    return Found(
        f"{which} far below the {minimum}-word minimum (fewest: {fewest} different word{'' if fewest == 1 else 's'})",
        fewest,
        _clip(1 - fewest / (minimum * SHORT_SHARE)),
    )


def earlier_decisions(item: Evidence, context: Context) -> Found | None:
    history = item.history
    if not history.rejected and not history.excluded:
        return None
    return Found(
        f"Earlier reviews: {history.rejected} rejected, {history.excluded} excluded, {history.approved} approved",
        history.rejected + history.excluded,
        _clip((history.rejected + history.excluded) / 5),
    )


RULES: tuple[Rule, ...] = (
    Rule("copied", "Same text as another review", 5.0, copied),
    Rule("speeder", "Speeder", 5.0, speeder),
    Rule("pasted", "Pasted text", 4.0, pasted),
    Rule("repeated", "Same text for two questions", 4.0, repeated),
    Rule("left-tab", "Left the tab while writing", 3.0, left_tab),
    Rule("straight-lining", "Straight-lining", 3.0, straight_lining),
    Rule("echo", "Repeats the question", 3.0, echo),
    Rule("too-short", "Far below the word minimum", 2.0, too_short),
    Rule("earlier-decisions", "Rejected or excluded before", 1.0, earlier_decisions),
)
KEYS: tuple[str, ...] = tuple(rule.key for rule in RULES)
TITLES: dict[str, str] = {rule.key: rule.title for rule in RULES}
WEIGHTS: dict[str, float] = {rule.key: rule.weight for rule in RULES}
BY_KEY: dict[str, Rule] = {rule.key: rule for rule in RULES}
assert len(BY_KEY) == len(RULES), "a flag's key is used twice"


def context_of(evidence: Iterable[Evidence]) -> Context:
    """The test's context from the evidence of all its reviews (the review flagged among them)."""
    found = list(evidence)
    return Context(medians=medians(found), copies=copies_module.copies(found))


def flags_for(item: Evidence, context: Context) -> list[Flag]:
    """The review's flags, the strongest first (ties in the registry's order)."""
    flags = []
    for rule in RULES:
        found = rule.check(item, context)
        if found is not None:
            flags.append(Flag(rule.key, found.label, rule.weight + found.severity, found.value, found.median))
    return sorted(flags, key=lambda f: -f.strength)
