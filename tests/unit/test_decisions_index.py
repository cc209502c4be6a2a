"""docs/decisions.md opens with an index of its decisions: every decision (a `## ` section) is listed there
with a link to its section and a status, "in force" or "(partly) replaced by" links to the decisions that
replaced it; and every link to a section of the file (`](#anchor)`) leads to one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DECISIONS = Path(__file__).resolve().parents[2] / "docs" / "decisions.md"
INDEX = "Index"

LINK = r"\[[^\]]+\]\(#[^)\s]+\)"
NOTE = r"(?: \([^()]+\))?"  # what was replaced, e.g. '(the favicon)'
REPLACED = re.compile(rf"(?:partly )?replaced by {LINK}{NOTE}(?:(?:, | and ){LINK}{NOTE})*")
ENTRY = re.compile(r"- \[(?P<title>[^\]]+)\]\(#(?P<anchor>[^)\s]+)\): (?P<status>.+)")
ANCHOR_IN_LINK = re.compile(r"\]\(#([^)\s]+)\)")


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped (hyphens kept), spaces as hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def headings(text: str) -> list[tuple[int, str, str]]:
    """(level, title, anchor) of every heading outside code fences, in order; a repeated anchor gets
    '-1', '-2', ... as GitHub gives it."""
    found, fenced, seen = [], False, {}
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and (m := re.match(r"(#{1,6}) (.+?)\s*$", line)):
            base = slug(m.group(2))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.append((len(m.group(1)), m.group(2), base if n == 0 else f"{base}-{n}"))
    return found


def index_entries(text: str) -> list[str]:
    """The index's list items, each joined into one line (an item may wrap onto indented lines)."""
    lines = text.splitlines()
    if f"## {INDEX}" not in lines:
        return []
    entries: list[str] = []
    for line in lines[lines.index(f"## {INDEX}") + 1 :]:
        if line.startswith("## "):
            break
        if line.startswith("  ") and entries:
            entries[-1] += " " + line.strip()
        elif line.strip():
            entries.append(line)  # a line that is no '- [title](#anchor): status' is reported below
    return entries


def problems_of(text: str) -> list[str]:
    """Everything wrong with the file's index and section links (empty when all is well)."""
    found = headings(text)
    sections = {anchor: title for level, title, anchor in found if level == 2 and title != INDEX}
    problems = []
    if [(level, title) for level, title, _ in found if level <= 2][:2] != [(1, "Decisions"), (2, INDEX)]:
        problems.append("the file does not open with '# Decisions' and '## Index'")
    listed = []
    for entry in index_entries(text):
        m = ENTRY.fullmatch(entry)
        if m is None:
            problems.append(f"not '- [title](#anchor): status': {entry!r}")
            continue
        anchor, status = m.group("anchor"), m.group("status")
        listed.append(anchor)
        if anchor not in sections:
            problems.append(f"links to no decision: {entry!r}")
        elif sections[anchor] != m.group("title"):
            problems.append(f"title differs from the heading {sections[anchor]!r}: {entry!r}")
        if status != "in force" and not REPLACED.fullmatch(status):
            problems.append(f"status is neither 'in force' nor '(partly) replaced by [..](#..)': {entry!r}")
        for target in ANCHOR_IN_LINK.findall(status):
            if target not in sections or target == anchor:
                problems.append(f"replaced by no other decision (#{target}): {entry!r}")
    problems += [f"not in the index: {title!r}" for anchor, title in sections.items() if anchor not in listed]
    problems += [f"in the index twice: #{a}" for a in sorted({a for a in listed if listed.count(a) > 1})]
    known = {anchor for _, _, anchor in found}
    problems += [f"a link to no heading: #{a}" for a in sorted(set(ANCHOR_IN_LINK.findall(text)) - known)]
    return problems


def test_the_decisions_index_lists_every_decision_with_its_status():
    assert problems_of(DECISIONS.read_text(encoding="utf-8")) == []


GOOD = """# Decisions

## Index

- [A (issue 1)](#a-issue-1): partly replaced by [B](#b-issue-2) (the flags)
- [B (issue 2)](#b-issue-2): in force

## A (issue 1)

- See [B](#b-issue-2).

## B (issue 2)
"""


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (("- [B (issue 2)](#b-issue-2): in force\n", ""), "not in the index: 'B (issue 2)'"),
        (("(#b-issue-2): in force", "(#b-issue-3): in force"), "links to no decision"),
        (("(#b-issue-2): in force", "(#b-issue-2): superseded"), "status is neither"),
        (("replaced by [B](#b-issue-2) (the flags)", "replaced by B"), "status is neither"),
        (("replaced by [B](#b-issue-2)", "replaced by [B](#c)"), "replaced by no other decision (#c)"),
        (("- [B (issue 2)](#b-issue-2): in force\n", "- [B](#b-issue-2): in force\n"), "title differs"),
        (("- See [B](#b-issue-2).", "- See [B](#b)."), "a link to no heading: #b"),
        (("## Index\n\n", "## Index\n\nThe decisions:\n"), "not '- [title](#anchor): status'"),
        (("## Index\n", "## Contents\n"), "does not open with"),
    ],
)
def test_a_broken_index_is_caught(change, problem):
    old, new = change
    assert problems_of(GOOD) == []
    assert any(problem in p for p in problems_of(GOOD.replace(old, new, 1)))


@pytest.mark.parametrize(
    ("heading", "anchor"),
    [
        ("Foundation", "foundation"),
        ("Accounts: e-mail, verification, captcha", "accounts-e-mail-verification-captcha"),
        ("A page load's snapshot (issue 18, items 2 and 4)", "a-page-loads-snapshot-issue-18-items-2-and-4"),
        ("Feature flags: GrowthBook's `SDK`", "feature-flags-growthbooks-sdk"),
    ],
)
def test_anchors_are_githubs(heading, anchor):
    assert slug(heading) == anchor
