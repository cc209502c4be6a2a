"""What the results page shows (issue 35), as plain texts, lists and dicts made from a test's Report.

The page only lays these out: every number it shows is formatted here, once, from the same Report the exports
read (report.py). Each chart comes with a text alternative made here too: a summary sentence that says every
number the chart draws ("I make or approve the decision: 2 of 3 (66.7%, 95% CI 20.8–93.9%); ..."), or a table.
Chart rows carry numbers for Recharts (percent values, error-bar offsets) beside the texts.

Pure: no Reflex, no database. The state (portal/states/admin/results.py) turns a service's Results into these
with `page()` and keeps them as its vars.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Protocol, TypedDict

from portal.domain.geography import countries, country_name
from portal.domain.results.filters import COMPANY_SIZES, SENIORITIES, Filters
from portal.domain.results.questions import CHOICE, MATRIX, MULTI, NUMBER, RANK, RATING, TEXT, Summary
from portal.domain.results.report import AreaResult, PreferenceResult, Report, Slot, Timing
from portal.domain.results.shares import Interval, Share
from portal.domain.taking.kinds import preference as preference_kind

MAX_TEXTS = 50  # typed answers listed per question (a search narrows them down)
SHORT_LABEL = 40  # characters of an answer's label on a chart's axis (the text alternative has all of it)
BAR_HEIGHT = 44  # px per bar (its name may wrap to three lines beside it) of a chart
CHART_PADDING = 48  # px around a chart's bars (its axis)
NBSP = "\u00a0"


# --- Numbers as the page writes them -------------------------------------------------------------------------


def pct(share: float) -> str:
    """A share (0-1) as a percentage with one decimal, without a trailing '.0': '66.7%', '100%', '0%'."""
    value = round(share * 100, 1)
    return f"{value:.0f}%" if value == int(value) else f"{value:.1f}%"


def ci(interval: Interval | None) -> str:
    """A 95% interval: '95% CI 20.8–93.9%' ('' without one: nothing was answered)."""
    if interval is None:
        return ""
    return f"95% CI {interval.low * 100:.1f}–{interval.high * 100:.1f}%"


def number(value: float | None) -> str:
    """A number with thousands separators and at most two decimals: '2,000', '3.67', '-12.5' ('—' for none)."""
    if value is None or not math.isfinite(value):
        return "—"
    rounded = round(value, 2)
    if rounded == int(rounded):
        return f"{int(rounded):,}"
    return f"{rounded:,.2f}".rstrip("0")


def plural(count: int, one: str, many: str | None = None) -> str:
    return f"{count:,} {one if count == 1 else (many or one + 's')}"


def duration(seconds: float | None) -> str:
    """Time taken: '45 s', '6 min 00 s', '1 h 02 min' ('—' for none)."""
    if seconds is None or not math.isfinite(seconds) or seconds < 0:
        return "—"
    whole = int(round(seconds))
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"


def ordinal(position: int) -> str:
    """1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, 21st."""
    if 10 <= position % 100 <= 20:
        suffix = "th"
    else:
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(position % 10, "th")
    return f"{position}{suffix}"


def share_text(count: int, total: int, share: float, interval: Interval | None) -> str:
    """'2 of 3 (66.7%, 95% CI 20.8–93.9%)'; '0 of 0' when nothing was answered."""
    if total <= 0:
        return f"{count:,} of 0"
    found = ci(interval)
    return f"{count:,} of {total:,} ({pct(share)}{', ' + found if found else ''})"


def short(label: str, limit: int = SHORT_LABEL) -> str:
    """A label cut to fit a chart's axis: 'Which analytics tools do…'."""
    label = " ".join(label.split())
    return label if len(label) <= limit else label[: limit - 1].rstrip() + "…"


def css_pct(value: float) -> str:
    """A CSS length in percent, within 0-100: '4%', '27.5%'."""
    clamped = min(100.0, max(0.0, value))
    return f"{number(clamped).replace(',', '')}%"


# --- Shapes the page reads ------------------------------------------------------------------------------------


class Figure(TypedDict):
    key: str  # names its element: results-funnel-<key>, results-timing-<key>, ...
    label: str
    value: str


class Bar(TypedDict):
    """One bar of a chart: `value` is what it draws (a percentage, or a rank's mean position)."""

    name: str
    short: str
    value: float
    count: int
    text: str  # the label beside the bar: '2 · 66.7%' (no-break spaces: Recharts wraps a label at its spaces)
    err: list[float]  # the 95% interval as offsets below and above `value` (percentage points)


class Line(TypedDict):
    """One answer of a choice or rating question as text: its label and '2 of 3 (66.7%, 95% CI …)'."""

    label: str
    text: str


class TextAnswer(TypedDict):
    text: str
    words: str


class TableRow(TypedDict):
    label: str
    cells: list[str]


class Card(TypedDict):
    key: str
    id: str  # the card's element id: results-q-<key>
    title: str
    shape: str
    answered: str  # '3 answers'
    summary: str  # the chart's text alternative (a sentence); '' where a table is shown instead
    chart: list[Bar]
    chart_height: int  # px
    axis: str  # what the chart's bars measure ('Share of answers (%)')
    lines: list[Line]
    figures: list[Figure]  # a rating's mean, a number's mean, median, lowest and highest
    columns: list[str]  # a matrix table's header
    table: list[TableRow]  # a matrix table's rows
    texts: list[TextAnswer]  # typed answers (the first MAX_TEXTS that match the search)
    texts_note: str  # '3 answers' / '2 of 3 answers match “price”' / 'Showing 50 of 1,234 answers'
    query: str  # the search the texts are for


class Section(TypedDict):
    """Questions asked together: a highlight test's area (title 'Area 2'), or the test's other questions."""

    title: str
    id: str
    cards: list[Card]


class ConceptRow(TypedDict):
    key: str
    label: str
    url: str
    votes: str
    share: str
    ci: str


class PreferenceView(TypedDict):
    prompt: str
    answered: str
    concepts: list[ConceptRow]
    chart: list[Bar]
    chart_height: int
    summary: str
    columns: list[str]  # the order table's header: 'Shown', each concept, 'Choices by position'
    order: list[TableRow]  # per shown position: its cells
    order_summary: str


NO_PREFERENCE = PreferenceView(
    prompt="",
    answered="",
    concepts=[],
    chart=[],
    chart_height=0,
    summary="",
    columns=[],
    order=[],
    order_summary="",
)


class AreaBox(TypedDict):
    number: str
    left: str
    top: str
    width: str
    height: str
    answered: str
    label: str


# --- Question cards -------------------------------------------------------------------------------------------


def _ids(slots: Sequence[Slot]) -> dict[str, str]:
    """Each question's element id, results-q-<key> (characters other than letters, digits, - and _ become -;
    a clash gets the question's position)."""
    found: dict[str, str] = {}
    taken: set[str] = set()
    for index, slot in enumerate(slots):
        name = "results-q-" + (re.sub(r"[^A-Za-z0-9_-]", "-", slot.key) or str(index))
        if name in taken:
            name = f"{name}-{index}"
        taken.add(name)
        found[slot.key] = name
    return found


def _answers(count: int) -> str:
    return plural(count, "answer") if count else "No answers yet"


def _empty_card(slot: Slot, card_id: str, summary: Summary) -> Card:
    return Card(
        key=slot.key,
        id=card_id,
        title=slot.title,
        shape=summary.shape,
        answered=_answers(summary.answered),
        summary="",
        chart=[],
        chart_height=0,
        axis="",
        lines=[],
        figures=[],
        columns=[],
        table=[],
        texts=[],
        texts_note="",
        query="",
    )


def _total(summary: Summary) -> int:
    """What a choice's shares are of: the people who answered (several choices each), else all choices."""
    return summary.answered if summary.shape == MULTI else sum(s.count for s in summary.shares)


def _bar(name: str, share: Share) -> Bar:
    value = round(share.share * 100, 1)
    interval = share.interval
    err = (
        [round(max(0.0, value - interval.low * 100), 1), round(max(0.0, interval.high * 100 - value), 1)]
        if interval is not None
        else [0.0, 0.0]
    )
    return Bar(
        name=name,
        short=short(name),
        value=value,
        count=share.count,
        text=f"{share.count:,}{NBSP}·{NBSP}{pct(share.share)}",
        err=err,
    )


def chart_height(bars: int) -> int:
    return CHART_PADDING + BAR_HEIGHT * max(1, bars)


def share_lines(summary: Summary) -> list[Line]:
    total = _total(summary)
    return [
        Line(label=summary.labels.get(s.key, s.key), text=share_text(s.count, total, s.share, s.interval))
        for s in summary.shares
    ]


def sentence(lines: Sequence[Line]) -> str:
    """'Label: 2 of 3 (66.7%, 95% CI 20.8–93.9%); Other: 1 of 3 (...).'"""
    return "; ".join(f"{line['label']}: {line['text']}" for line in lines) + "." if lines else ""


def search_texts(texts: Sequence[tuple[str, int]], query: str) -> list[tuple[str, int]]:
    """The typed answers that hold every word of `query` (any case), in the order given; all of them for an
    empty query."""
    terms = [t.casefold() for t in str(query or "").split()]
    if not terms:
        return list(texts)
    return [(text, count) for text, count in texts if all(t in text.casefold() for t in terms)]


def _texts_note(shown: int, matched: int, total: int, query: str) -> str:
    if not total:
        return "No answers yet."
    if query.strip():
        found = f"{matched:,} of {plural(total, 'answer')} match “{query.strip()}”."
    else:
        found = f"{plural(total, 'answer')}."
    if shown < matched:
        found += f" Showing the first {shown:,}: search to narrow them down."
    return found


def card(slot: Slot, summary: Summary, card_id: str, query: str = "") -> Card:
    """One question's card: its chart rows and their sentence, its figures, its table or its answers."""
    out = _empty_card(slot, card_id, summary)
    shape = summary.shape
    if shape in (CHOICE, MULTI, RATING):
        lines = share_lines(summary)
        out["lines"] = lines
        out["chart"] = [_bar(summary.labels.get(s.key, s.key), s) for s in summary.shares]
        out["chart_height"] = chart_height(len(out["chart"]))
        out["axis"] = "Share of people who answered (%)" if shape == MULTI else "Share of answers (%)"
        lead = ""
        if shape == MULTI and summary.answered:
            lead = f"Several choices each, shares of the {plural(summary.answered, 'person', 'people')} who answered. "
        if shape == RATING:
            out["figures"] = [Figure(key="mean", label="Mean", value=number(summary.mean))]
            if summary.mean is not None:
                lead = f"Mean {number(summary.mean)} from {plural(summary.answered, 'answer')}. "
        out["summary"] = (lead + sentence(lines)) if summary.answered else "No answers yet."
    elif shape == NUMBER:
        out["figures"] = [
            Figure(key="mean", label="Mean", value=number(summary.mean)),
            Figure(key="median", label="Median", value=number(summary.median)),
            Figure(key="lowest", label="Lowest", value=number(summary.low)),
            Figure(key="highest", label="Highest", value=number(summary.high)),
        ]
        out["summary"] = (
            f"Mean {number(summary.mean)}, median {number(summary.median)}, lowest {number(summary.low)}, "
            f"highest {number(summary.high)} ({plural(summary.answered, 'answer')})."
            if summary.answered
            else "No answers yet."
        )
    elif shape == RANK:
        order = sorted(summary.positions.items(), key=lambda item: item[1])
        out["chart"] = [
            Bar(
                name=(label := summary.labels.get(key, key)),
                short=short(label),
                value=round(position, 2),
                count=summary.answered,
                text=number(position),
                err=[0.0, 0.0],
            )
            for key, position in order
        ]
        out["chart_height"] = chart_height(len(order))
        out["axis"] = "Mean position (1 = ranked first)"
        out["lines"] = [Line(label=bar["name"], text=bar["text"]) for bar in out["chart"]]
        out["summary"] = (
            f"Mean position (1 = ranked first) from {plural(summary.answered, 'answer')}: "
            + "; ".join(f"{line['label']} {line['text']}" for line in out["lines"])
            + "."
            if summary.answered and order
            else "No answers yet."
        )
    elif shape == MATRIX:
        columns = list(next(iter(summary.table.values()), {}).keys())
        out["columns"] = ["Statement", *(summary.labels.get(c, c) for c in columns)]
        answered = summary.answered
        out["table"] = [
            TableRow(
                label=summary.labels.get(statement, statement),
                cells=[
                    f"{counts.get(c, 0):,} ({pct(counts.get(c, 0) / answered)})" if answered else "0" for c in columns
                ],
            )
            for statement, counts in summary.table.items()
        ]
    elif shape == TEXT:
        found = search_texts(summary.texts, query)
        out["texts"] = [TextAnswer(text=text, words=plural(count, "word")) for text, count in found[:MAX_TEXTS]]
        out["texts_note"] = _texts_note(len(out["texts"]), len(found), len(summary.texts), query)
        out["query"] = query
    return out


def sections(report: Report, queries: Mapping[str, str] | None = None, *, skip: Sequence[str] = ()) -> list[Section]:
    """The question cards, in the test's order, grouped as they were asked: consecutive questions about the same
    highlight area under 'Area N', the others untitled. `queries`: each text question's search; `skip`: keys
    shown elsewhere (a preference test's choice)."""
    queries = queries or {}
    shown = [q for q in report.questions if q.slot.key not in skip]
    ids = _ids([q.slot for q in shown])
    found: list[Section] = []
    for result in shown:
        area = result.slot.area
        title = f"Area {area + 1}" if area is not None else ""
        if not found or found[-1]["title"] != title:
            name = f"results-area-{area + 1}-questions" if area is not None else f"results-questions-{len(found) + 1}"
            found.append(Section(title=title, id=name, cards=[]))
        found[-1]["cards"].append(
            card(result.slot, result.summary, ids[result.slot.key], queries.get(result.slot.key, ""))
        )
    return found


# --- A preference test ----------------------------------------------------------------------------------------


def preference(result: PreferenceResult) -> PreferenceView:
    """Per concept its votes, share and 95% interval (chart rows with error bars, and their sentence); the order
    table: for each position shown, how often each concept shown there was chosen, and all choices there."""
    labels = {c.key: c.label for c in result.concepts}
    total = result.answered
    rows = [
        ConceptRow(
            key=c.key,
            label=c.label,
            url=c.url,
            votes=plural(s.count, "vote"),
            share=pct(s.share) if total else "—",
            ci=ci(s.interval),
        )
        for c, s in zip(result.concepts, result.shares, strict=True)
    ]
    lines = [Line(label=labels[s.key], text=share_text(s.count, total, s.share, s.interval)) for s in result.shares]
    chosen = sum(result.by_position)
    order = []
    for position, (cells, at) in enumerate(zip(result.order, result.by_position, strict=True), start=1):
        texts = []
        for concept in result.concepts:
            cell = cells[concept.key]
            texts.append(f"{cell.chosen:,} of {cell.shown:,} chosen ({pct(cell.share)})" if cell.shown else "Not shown")
        texts.append(f"{at:,} of {chosen:,} ({pct(at / chosen)})" if chosen else "0 of 0")
        order.append(TableRow(label=ordinal(position), cells=texts))
    return PreferenceView(
        prompt=result.prompt,
        answered=_answers(total).replace("answer", "vote"),
        concepts=rows,
        chart=[_bar(labels[s.key], s) for s in result.shares],
        chart_height=chart_height(len(result.shares)),
        summary=sentence(lines) if total else "No votes yet.",
        columns=["Shown", *(c.label for c in result.concepts), "Choices by position"],
        order=order,
        order_summary=(
            "Choices by the position the chosen concept was shown in: "
            + "; ".join(f"{row['label']} {row['cells'][-1]}" for row in order)
            + "."
            if chosen
            else ""
        ),
    )


# --- A highlight or pricing test's areas -------------------------------------------------------------------------


def area_boxes(areas: Sequence[AreaResult], reviews: int) -> list[AreaBox]:
    """Each numbered area where it sits on the screenshot (CSS percentages) with how many reviews answered it."""
    out = []
    for area in areas:
        left, top, right, bottom = area.box
        left, right = sorted((left, right))
        top, bottom = sorted((top, bottom))
        answered = f"{area.answered:,} of {reviews:,} answered"
        out.append(
            AreaBox(
                number=str(area.number),
                left=css_pct(left),
                top=css_pct(top),
                width=css_pct(right - left),
                height=css_pct(bottom - top),
                answered=answered,
                label=f"Area {area.number}: {answered}",
            )
        )
    return out


def areas_summary(boxes: Sequence[AreaBox]) -> str:
    return "; ".join(box["label"] for box in boxes) + "." if boxes else ""


# --- The page's head: the funnel, time taken, the filters -----------------------------------------------------


class FunnelLike(Protocol):
    @property
    def invited(self) -> int: ...
    @property
    def started(self) -> int: ...
    @property
    def submitted(self) -> int: ...
    @property
    def approved(self) -> int: ...


def funnel(found: FunnelLike) -> list[Figure]:
    return [
        Figure(key="invited", label="Invited", value=f"{found.invited:,}"),
        Figure(key="started", label="Started", value=f"{found.started:,}"),
        Figure(key="submitted", label="Submitted", value=f"{found.submitted:,}"),
        Figure(key="approved", label="Approved", value=f"{found.approved:,}"),
    ]


def timing(found: Timing) -> list[Figure]:
    return [
        Figure(key="median", label="Median", value=duration(found.median)),
        Figure(key="fastest", label="Fastest quarter: at most", value=duration(found.fastest)),
        Figure(key="slowest", label="Slowest quarter: at least", value=duration(found.slowest)),
    ]


def timing_summary(found: Timing) -> str:
    if not found.timed:
        return "No times yet."
    return (
        f"From {plural(found.timed, 'review')}: half took {duration(found.median)} or less; the fastest quarter "
        f"{duration(found.fastest)} or less; the slowest quarter {duration(found.slowest)} or more."
    )


def filter_options(versions: Sequence[int]) -> dict[str, list[list[str]]]:
    """Each select's options as [value, label] (the empty value, 'any', is the select's placeholder)."""
    return {
        "seniority": [[k, v] for k, v in SENIORITIES.items()],
        "country": [[code, name] for code, name in countries()],
        "company_size": [[k, v] for k, v in COMPANY_SIZES.items()],
        "version": [[str(n), f"Version {n}"] for n in versions],
    }


def filters_text(chosen: Filters) -> str:
    """The filters the numbers are for, in words: 'All reviews, excluded and rejected ones left out.' or
    'Seniority Senior · Country United States · From 2030-03-02, excluded and rejected ones included.'"""
    parts = []
    if chosen.seniority:
        parts.append(f"Seniority {SENIORITIES.get(chosen.seniority, chosen.seniority)}")
    if chosen.country:
        parts.append(f"Country {country_name(chosen.country) or chosen.country}")
    if chosen.company_size:
        parts.append(f"Company size {COMPANY_SIZES.get(chosen.company_size, chosen.company_size)}")
    if chosen.version is not None:
        parts.append(f"Version {chosen.version}")
    if chosen.since is not None:
        parts.append(f"From {chosen.since.isoformat()}")
    if chosen.until is not None:
        parts.append(f"To {chosen.until.isoformat()}")
    rejected = "excluded and rejected ones included" if chosen.excluded else "excluded and rejected ones left out"
    return f"{' · '.join(parts) if parts else 'All reviews'}, {rejected}."


def reviews_line(reviews: int, left_out: int, excluded: bool) -> tuple[str, str]:
    """('3 reviews in these results', '1 excluded or rejected review left out' or '')."""
    head = f"{plural(reviews, 'review')} in these results"
    if excluded:
        return head, "Excluded and rejected reviews included"
    noun = "review" if left_out == 1 else "reviews"
    return head, (f"{left_out:,} excluded or rejected {noun} left out" if left_out else "")


# --- The whole page ---------------------------------------------------------------------------------------------


class ResultsLike(Protocol):
    """What the page reads of the service's Results (portal/services/admin/results.py)."""

    @property
    def name(self) -> str: ...
    @property
    def filters(self) -> Filters: ...
    @property
    def funnel(self) -> FunnelLike: ...
    @property
    def report(self) -> Report: ...
    @property
    def versions(self) -> list[int]: ...
    @property
    def is_preference(self) -> bool: ...
    @property
    def screenshot(self) -> str: ...
    @property
    def excluded_left_out(self) -> int: ...


class Page(TypedDict):
    name: str
    funnel: list[Figure]
    reviews: str
    left_out: str
    timing: list[Figure]
    timing_summary: str
    applied: str
    sections: list[Section]
    preference: PreferenceView | None
    screenshot: str
    areas: list[AreaBox]
    areas_summary: str
    options: dict[str, list[list[str]]]


def page(found: ResultsLike, queries: Mapping[str, str] | None = None) -> Page:
    """Everything the results page shows of `found`; `queries`: the text questions' searches by key."""
    report = found.report
    reviews, left_out = reviews_line(report.reviews, found.excluded_left_out, found.filters.excluded)
    boxes = area_boxes(report.areas, report.reviews)
    choice = [preference_kind.CHOICE] if found.is_preference else []
    return Page(
        name=found.name,
        funnel=funnel(found.funnel),
        reviews=reviews,
        left_out=left_out,
        timing=timing(report.timing),
        timing_summary=timing_summary(report.timing),
        applied=filters_text(found.filters),
        sections=sections(report, queries, skip=choice),
        preference=preference(report.preference) if report.preference is not None else None,
        screenshot=found.screenshot,
        areas=boxes,
        areas_summary=areas_summary(boxes),
        options=filter_options(found.versions),
    )
