"""A labelled set of reviews of one survey (issue 36, item 5), seeded: honest, speeder, paster, tab-leaver,
straight-liner and copied-text reviews, stored as a Review holds them (answers, signals, total seconds).

Honest reviews are meant to look like people: their times are log-normal around the median (sigma 0.5, so a few
are fast and a few slow), their texts are distinct sentences built from many parts, one in ten pastes a little
(a tool's name, a link, a phrase) and a few paste a whole answer drafted elsewhere, one in six leaves the tab for
a few seconds while writing and a few are interrupted for minutes, and their grid answers follow an attitude
(with a reversed statement answered the other way). bench/flags.py reads the set; tests use small ones.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any

KINDS = ("honest", "speeder", "paster", "tab-leaver", "straight-liner", "copied-text")
MEDIAN_SECONDS = 540.0

SCALE = [{"value": v, "label": str(v)} for v in range(1, 6)]
AGREE = ["strongly-disagree", "disagree", "neutral", "agree", "strongly-agree"]
STATEMENTS = [
    ("trust", "I trust the numbers in our dashboards", False),
    ("speed", "I get answers fast enough", False),
    ("setup", "Setting up a new report is easy", False),
    ("cost", "Our tools cost more than they are worth", True),  # reversed
    ("share", "Sharing results with my team is simple", False),
]
QUESTIONS: list[dict[str, Any]] = [
    {
        "key": "role",
        "type": "single-choice",
        "text": "What is your role in choosing analytics tools?",
        "options": [{"value": v, "label": v} for v in ("decide", "recommend", "use")],
    },
    {"key": "ease", "type": "rating", "text": "How easy are your current tools to use?", "scales": SCALE},
    {"key": "value", "type": "rating", "text": "How good a value are they for their price?", "scales": SCALE},
    {"key": "support", "type": "rating", "text": "How helpful is their vendor's support?", "scales": SCALE},
    {
        "key": "statements",
        "type": "matrix",
        "text": "How much do you agree with each statement?",
        "statements": [{"value": k, "label": label} for k, label, _ in STATEMENTS],
        "answers": [{"value": a, "label": a} for a in AGREE],
    },
    {"key": "switch", "type": "long-text", "text": "What would make you switch to another analytics tool?"},
    {"key": "process", "type": "long-text", "text": "Describe how your team chose the tool it uses today."},
    {"key": "title", "type": "short-text", "text": "What is your job title?"},
]
TEXT_KEYS = ("switch", "process")
# The median seconds on each question (the signals 'question:<key>'), about MEDIAN_SECONDS in all with reading.
QUESTION_SECONDS = {
    "role": 10,
    "ease": 8,
    "value": 8,
    "support": 8,
    "statements": 40,
    "switch": 150,
    "process": 170,
    "title": 10,
}

_OPEN = [
    "Honestly,",
    "For us,",
    "In my experience",
    "Mostly",
    "I would say",
    "To be fair,",
    "At my company",
    "Right now",
    "From what I have seen,",
    "In our case",
    "Looking back,",
    "Frankly",
]
_SUBJECT = [
    "the biggest factor",
    "what mattered most",
    "the deciding point",
    "the main reason",
    "the thing my manager cared about",
    "what pushed us",
    "the first question",
    "what finance asked about",
    "the real driver",
    "what the data team wanted",
]
_REASON = [
    "was how long it took to build a dashboard from scratch",
    "was the price per seat once we passed fifty users",
    "was whether it connected to our warehouse without extra work",
    "was how quickly support answered during the trial",
    "was the way permissions worked across departments",
    "was that the sales team could read reports on their phones",
    "was the export to spreadsheets that finance relies on",
    "was a clear roadmap and a vendor that listened to feedback",
    "was the single sign-on and the audit log security asked for",
    "was the learning curve for people who do not write SQL",
    "was how the pricing changed when we added more data sources",
    "was an incident where our old tool lost a week of events",
    "was a trial where two of us rebuilt our weekly report",
    "was the reference call with another company of our size",
    "was the alerting, because we missed a drop in sign-ups last year",
    "was whether the charts matched what our board expects to see",
]
_DETAIL = [  # {n}: a number, {m}: a month, {team}: a team, {noun}: a topic
    "We compared {n} vendors over about {n} weeks.",
    "A colleague in {team} had used it at a previous job.",
    "The contract renewal in {m} forced the conversation.",
    "Nobody wanted another tool that only one person in {team} understood.",
    "We ran a small pilot with {team} first, about {n} people.",
    "Budget approval took longer than the evaluation itself, roughly {n} weeks.",
    "Our CTO wrote a short scoring sheet with {n} criteria.",
    "I still think we should have looked harder at {noun}.",
    "The migration of about {n} old reports was the painful part.",
    "We asked for a discount in {m} and got {n} extra weeks free.",
    "Integrations with our CRM ended up mattering more than {noun}.",
    "The demo looked great but our real data about {noun} was messier.",
    "It was mostly a bottom-up choice by {team}.",
    "Procurement insisted on a security questionnaire of {n} pages.",
    "We wrote down what annoyed {team} about the previous tool.",
    "A few power users in {team} tested it for {n} days.",
    "Half of {team} was sceptical at first, mostly about {noun}.",
    "We still export to spreadsheets more often than I would like, maybe {n} times a week.",
    "Since {m} we have had {n} support tickets, mostly about {noun}.",
    "My own view changed after I spent a weekend with {noun}.",
    "The finance lead only cared about {noun}, which I understand.",
    "Next year I would push for a longer trial, at least {n} weeks.",
]
_TEAMS = ["marketing", "sales ops", "finance", "the data team", "customer success", "product", "engineering", "HR"]
_MONTHS = ["January", "March", "April", "June", "September", "October", "November", "December"]
_NOUNS = ["dashboards", "pricing", "support", "exports", "alerts", "permissions", "onboarding", "reports"]
_PASTE_BITS = ["Looker Studio", "https://example.com/pricing", "Power BI Pro", "SOC 2 Type II", "Amplitude", "dbt"]
_TITLES = ["Head of data", "Data analyst", "Marketing manager", "CFO", "Product manager", "BI lead", "CTO"]
_AI_TEXT = [  # the fluent, generic register of a generated answer, with its own variety
    "As a data-driven organization, we prioritize {a}, {b} and {c}.",
    "Ultimately, the decision hinged on {a}, {b} and long-term vendor support.",
    "A comprehensive evaluation framework ensured alignment on {a} across departments.",
    "Key considerations included {a}, {b} and an intuitive user experience.",
    "Switching would require a compelling value proposition, including {a} and minimal disruption.",
    "Furthermore, {a} empowers teams to make informed decisions about {b}.",
    "In conclusion, the chosen solution strikes an optimal balance between {a} and {b}.",
    "Additionally, {a} and responsive customer success were decisive factors.",
    "It is worth noting that {a} played a pivotal role alongside {b}.",
    "Moreover, stakeholders emphasized {a} as well as {b} throughout the process.",
]
_AI_TERMS = [
    "scalability",
    "seamless integrations",
    "robust security",
    "total cost of ownership",
    "ease of adoption",
    "data governance",
    "real-time insights",
    "measurable ROI",
    "flexible pricing tiers",
    "democratized data access",
    "enterprise-grade reliability",
    "cross-functional collaboration",
    "actionable dashboards",
    "self-service analytics",
]


def ai_text(rng: random.Random, sentences: int) -> str:
    out = []
    for template in rng.sample(_AI_TEXT, sentences):
        a, b, c = rng.sample(_AI_TERMS, 3)
        out.append(template.format(a=a, b=b, c=c))
    return " ".join(out)


def _timed(rng: random.Random, signals: dict[str, Any], seconds: float, **scale: float) -> dict[str, Any]:
    """signals with each question's seconds: its median scaled by the review's pace (its total against the
    median), with a spread of its own; `scale` changes a question's (a grid rushed)."""
    pace = seconds / MEDIAN_SECONDS
    for key, median in QUESTION_SECONDS.items():
        signals[f"question:{key}"] = round(median * pace * scale.get(key, 1.0) * math.exp(rng.gauss(0, 0.4)), 1)
    return signals


@dataclass(frozen=True)
class Labelled:
    kind: str
    review_id: int
    answers: dict[str, Any]
    signals: dict[str, Any]
    seconds: float


_WHO = [
    "our team",
    "my manager",
    "the analysts",
    "finance",
    "our CTO",
    "the sales lead",
    "I",
    "the marketing folks",
    "our ops person",
    "procurement",
    "the founders",
    "two of my colleagues",
]
_VERB = [
    "cared most about",
    "kept asking about",
    "underestimated",
    "complained about",
    "wanted to understand",
    "spent weeks comparing",
    "was surprised by",
    "argued a lot about",
    "needed clarity on",
    "ended up prioritising",
]
_OBJECT = [
    "the price per seat",
    "the warehouse connector",
    "how long a new dashboard takes",
    "the permissions model",
    "mobile reports",
    "the spreadsheet export",
    "the vendor's roadmap",
    "single sign-on",
    "the learning curve",
    "support response times",
    "data freshness",
    "the alerting",
    "the contract terms",
    "how charts look in board decks",
    "the API limits",
    "the migration of old reports",
    "event tracking",
    "the onboarding calls",
    "the free trial length",
    "the audit log",
]
_QUALIFIER = [
    "during the trial",
    "after the renewal in {m}",
    "because {team} complained",
    "more than anything else",
    "once we passed {n} users",
    "when we compared {n} vendors",
    "which I did not expect",
    "and that took {n} weeks",
    "in every meeting",
    "since {m}",
    "for {team} especially",
    "after a bad quarter",
    "right from the first demo",
    "even though it was not on our list",
    "and I agreed with that",
]


def _sentence(rng: random.Random) -> str:
    """A sentence of five parts drawn apart (more than 400,000 sentences before the numbers and months)."""
    text = " ".join(
        [rng.choice(_OPEN), rng.choice(_WHO), rng.choice(_VERB), rng.choice(_OBJECT), rng.choice(_QUALIFIER)]
    )
    return _detail(rng, text) + "."


def _detail(rng: random.Random, template: str) -> str:
    while "{" in template:
        slot = template[template.index("{") : template.index("}") + 1]
        value = {
            "{n}": lambda: str(rng.randint(2, 40)),
            "{m}": lambda: rng.choice(_MONTHS),
            "{team}": lambda: rng.choice(_TEAMS),
            "{noun}": lambda: rng.choice(_NOUNS),
        }[slot]()
        template = template.replace(slot, value, 1)
    return template


def honest_text(rng: random.Random) -> str:
    parts = [_sentence(rng) for _ in range(rng.randint(1, 3))]
    parts += [_detail(rng, t) for t in rng.sample(_DETAIL, rng.randint(1, 2))]
    rng.shuffle(parts)
    return " ".join(parts)


def _lognormal(rng: random.Random, median: float, sigma: float) -> float:
    return median * math.exp(rng.gauss(0.0, sigma))


def _grid(rng: random.Random) -> tuple[dict[str, list[str]], dict[str, int]]:
    attitude = rng.gauss(3.2, 0.8)

    def point(reversed_: bool = False) -> int:
        base = 6 - attitude if reversed_ else attitude
        return max(1, min(5, round(base + rng.gauss(0, 0.9))))

    matrix = {key: [AGREE[point(rev) - 1]] for key, _, rev in STATEMENTS}
    ratings = {key: point() for key in ("ease", "value", "support")}
    return matrix, ratings


def _answers(
    rng: random.Random, texts: dict[str, str], matrix: dict[str, list[str]], ratings: dict[str, int]
) -> dict[str, Any]:
    answers: dict[str, Any] = {
        "role": {"type": "single-choice", "value": rng.choice(["decide", "recommend", "use"])},
        "statements": {"type": "matrix", "value": matrix},
        "title": {"type": "short-text", "value": rng.choice(_TITLES)},
    }
    for key, value in ratings.items():
        answers[key] = {"type": "rating", "value": value}
    for key, text in texts.items():
        answers[key] = {"type": "long-text", "value": text, "isLimited": True}
    return answers


def _paste(answer: dict[str, Any], length: int) -> None:
    answer["pasteMetadata"] = {"wasPasted": True, "pasteTimestamp": "2026-11-26T10:00:00Z", "pastedLength": length}


def _typing(rng: random.Random, text: str) -> float:
    return round(len(text) / rng.uniform(2.5, 6.0), 1)


def _honest(rng: random.Random, review_id: int) -> Labelled:
    texts = {key: honest_text(rng) for key in TEXT_KEYS}
    matrix, ratings = _grid(rng)
    answers = _answers(rng, texts, matrix, ratings)
    signals: dict[str, Any] = {}
    for key in TEXT_KEYS:
        signals[f"typing:{key}"] = _typing(rng, texts[key])
        roll = rng.random()
        if roll < 0.005:  # interrupted: a call, a colleague
            signals[f"leaves:{key}"], signals[f"away:{key}"] = 1, round(rng.uniform(60, 300))
        elif roll < 0.17:  # a glance at a message
            signals[f"leaves:{key}"] = rng.choice([1, 1, 1, 2])
            signals[f"away:{key}"] = round(min(60.0, _lognormal(rng, 5, 0.6)))
        else:
            signals[f"leaves:{key}"], signals[f"away:{key}"] = 0, 0
    roll = rng.random()
    key = rng.choice(TEXT_KEYS)
    if roll < 0.003:  # drafted the answer elsewhere and pasted it
        _paste(answers[key], len(texts[key]))
    elif roll < 0.10:  # a name, a link or a phrase
        bit = rng.choice(_PASTE_BITS)
        answers[key]["value"] = texts[key] = f"{texts[key]} We also looked at {bit}."
        _paste(answers[key], len(bit))
    seconds = _lognormal(rng, MEDIAN_SECONDS, 0.5)
    return Labelled("honest", review_id, answers, _timed(rng, signals, seconds), seconds)


def _speeder(rng: random.Random, review_id: int) -> Labelled:
    words = f"good tool {rng.choice(_NOUNS)} ok price fine support good reports fine nothing else to add here".split()
    rng.shuffle(words)
    base = " ".join(words)
    roll = rng.random()
    if roll < 0.3:
        texts = {k: " ".join([rng.choice(["good", "ok", "fine"])] * 15) for k in TEXT_KEYS}  # padding
    elif roll < 0.6:
        texts = {k: base for k in TEXT_KEYS}  # one answer for both
    else:
        texts = {k: f"{q['text']} {rng.choice(_NOUNS)} and price mostly" for k, q in _questions(TEXT_KEYS)}
    matrix, ratings = _grid(rng)
    answers = _answers(rng, texts, matrix, ratings)
    signals = {f"typing:{k}": round(len(t) / rng.uniform(6, 10), 1) for k, t in texts.items()}
    seconds = MEDIAN_SECONDS * math.exp(rng.uniform(math.log(0.03), math.log(0.25)))
    return Labelled("speeder", review_id, answers, _timed(rng, signals, seconds), seconds)


def _questions(keys: tuple[str, ...]) -> list[tuple[str, dict[str, Any]]]:
    by_key = {q["key"]: q for q in QUESTIONS}
    return [(k, by_key[k]) for k in keys]


def _paster(rng: random.Random, review_id: int) -> Labelled:
    texts = {k: ai_text(rng, rng.randint(2, 4)) for k in TEXT_KEYS}
    matrix, ratings = _grid(rng)
    answers = _answers(rng, texts, matrix, ratings)
    signals: dict[str, Any] = {}
    for key in TEXT_KEYS:
        if rng.random() < 0.8 or key == TEXT_KEYS[0]:
            typed = rng.randint(0, 20)
            answers[key]["value"] = texts[key] = texts[key] + " ok" * (typed // 3)
            _paste(answers[key], len(texts[key]) - 3 * (typed // 3))
            signals[f"typing:{key}"] = round(rng.uniform(0, 4), 1)
        else:
            signals[f"typing:{key}"] = _typing(rng, texts[key])
        leaves = rng.random() < 0.6
        signals[f"leaves:{key}"] = 1 if leaves else 0
        signals[f"away:{key}"] = round(rng.uniform(10, 90)) if leaves else 0
    seconds = _lognormal(rng, MEDIAN_SECONDS * 0.7, 0.5)
    return Labelled("paster", review_id, answers, _timed(rng, signals, seconds), seconds)


def _tab_leaver(rng: random.Random, review_id: int) -> Labelled:
    texts = {k: ai_text(rng, rng.randint(2, 3)) for k in TEXT_KEYS}
    matrix, ratings = _grid(rng)
    answers = _answers(rng, texts, matrix, ratings)
    signals: dict[str, Any] = {}
    for key in TEXT_KEYS:  # reads the answer in another window and types it over
        signals[f"typing:{key}"] = _typing(rng, texts[key])
        signals[f"leaves:{key}"] = rng.randint(1, 4)
        signals[f"away:{key}"] = round(rng.uniform(8, 120))
    seconds = _lognormal(rng, MEDIAN_SECONDS * 1.1, 0.5)
    return Labelled("tab-leaver", review_id, answers, _timed(rng, signals, seconds), seconds)


def _straight_liner(rng: random.Random, review_id: int) -> Labelled:
    texts = {key: honest_text(rng) for key in TEXT_KEYS}
    column = rng.choice(AGREE[1:4])
    matrix = {key: [column] for key, _, _ in STATEMENTS}
    point = rng.randint(2, 4)
    answers = _answers(rng, texts, matrix, {k: point for k in ("ease", "value", "support")})
    signals = {f"typing:{k}": _typing(rng, t) for k, t in texts.items()}
    seconds = _lognormal(rng, MEDIAN_SECONDS * 0.7, 0.5)
    return Labelled(
        "straight-liner", review_id, answers, _timed(rng, signals, seconds, statements=rng.uniform(0.15, 0.6)), seconds
    )


_HOMOGLYPHS = {"'": "\u2019", " ": "\u00a0"}


def copy_text(rng: random.Random, text: str) -> str:
    """A copy made to look different: a word or two changed, case, spacing and typography touched."""
    words = text.split()
    for _ in range(rng.randint(0, 2)):
        words[rng.randrange(len(words))] = rng.choice(["really", "quite", "also", "just"])
    out = " ".join(words)
    if rng.random() < 0.3:
        out = out.lower()
    if rng.random() < 0.3:
        out = out.replace(" ", "  ", 3)
    if rng.random() < 0.3:
        out = "".join(_HOMOGLYPHS.get(c, c) if rng.random() < 0.2 else c for c in out)
    return out


def _copied(rng: random.Random, review_id: int, source: Labelled) -> Labelled:
    texts = {k: copy_text(rng, source.answers[k]["value"]) for k in TEXT_KEYS}
    matrix, ratings = _grid(rng)
    answers = _answers(rng, texts, matrix, ratings)
    signals = {f"typing:{k}": _typing(rng, t) for k, t in texts.items()}
    for key in TEXT_KEYS:
        signals[f"leaves:{key}"], signals[f"away:{key}"] = 0, 0
    seconds = _lognormal(rng, MEDIAN_SECONDS * 0.8, 0.5)
    return Labelled("copied-text", review_id, answers, _timed(rng, signals, seconds), seconds)


def labelled_set(honest: int = 2000, others: int = 200, seed: int = 36) -> list[Labelled]:
    """`honest` honest reviews and `others` of each other kind, shuffled; review ids 1..n."""
    rng = random.Random(seed)
    plan = ["honest"] * honest + [k for k in KINDS[1:] for _ in range(others)]
    rng.shuffle(plan)
    if honest and plan[0] != "honest":  # a copy needs an honest review before it to copy
        plan.insert(0, plan.pop(plan.index("honest")))
    makers = {"speeder": _speeder, "paster": _paster, "tab-leaver": _tab_leaver, "straight-liner": _straight_liner}
    made: list[Labelled] = []
    sources: list[Labelled] = []
    for review_id, kind in enumerate(plan, start=1):  # ids in the order submitted: a copy after its source
        if kind == "honest":
            item = _honest(rng, review_id)
            sources.append(item)
        elif kind == "copied-text":
            item = _copied(rng, review_id, rng.choice(sources)) if sources else _speeder(rng, review_id)
        else:
            item = makers[kind](rng, review_id)
        made.append(item)
    return made
