"""A test import read with the API's JSON limits (portal/domain/json_text.py) and answered with at most
the first 100 problems and their count (portal/services/admin/definition_files.py), on SQLite and PostgreSQL:
a 400 KB file of nested brackets is refused with a message (no RecursionError), a file with 900,000
problems answers 100 of them and '… and 899,900 more problems', control characters are refused, and
nothing is written."""

from __future__ import annotations

import json

import pytest

from portal.domain.text import MAX_DEPTH
from portal.services.admin import definition_files as test_files
from tests.integration.test_admin_tests import admin, counts, demo  # noqa: F401 (fixture)

NESTED_MESSAGE = f"The file is nested too deeply (at most {MAX_DEPTH} levels)."


def many_problems(n: int) -> bytes:
    """A survey whose n questions are each not an object: n problems, under 5 MB."""
    doc = demo("01-survey.json")
    doc["survey"]["questions"] = [0] * n
    return json.dumps(doc, separators=(",", ":")).encode()


@pytest.mark.parametrize(
    "data",
    [
        b"[" * 200_000 + b"]" * 200_000,  # 400 KB of brackets
        b'{"name":' * 50_000 + b"1" + b"}" * 50_000,  # 400 KB of objects in objects
        b'{"a": "[[[[", "b":' + b"[" * 33 + b"]" * 33 + b"}",  # one level too deep (brackets in texts do not count)
    ],
)
def test_a_deeply_nested_file_is_refused_with_a_message(session, admin, data):
    before = counts(session)
    result = test_files.import_file(session=session, actor_id=admin, data=data)
    assert (result.outcome, result.problems, result.problem_count) == ("refused", [NESTED_MESSAGE], 1)
    assert result.message == "Nothing was imported: 1 problem to fix."
    assert counts(session) == before


def test_a_file_with_900000_problems_answers_the_first_100_and_their_count(session, admin):
    data = many_problems(900_000)
    assert len(data) < test_files.MAX_FILE_BYTES
    before = counts(session)
    result = test_files.import_file(session=session, actor_id=admin, data=data)
    assert result.outcome == "refused" and result.problem_count == 900_000
    assert result.message == "Nothing was imported: 900,000 problems to fix."
    assert len(result.problems) == test_files.MAX_PROBLEMS_SHOWN + 1 == 101
    assert result.problems[0] == "survey.questions[0]: must be an object"
    assert result.problems[99] == "survey.questions[99]: must be an object"
    assert result.problems[100] == "… and 899,900 more problems"
    assert len(json.dumps(result.problems)) < 10_000  # what a tab keeps and sends is small
    assert counts(session) == before


@pytest.mark.parametrize("n,tail", [(100, None), (101, "… and 1 more problem")])
def test_the_cap_counts_exactly(session, admin, n, tail):
    result = test_files.import_file(session=session, actor_id=admin, data=many_problems(n))
    assert result.problem_count == n and result.problems[99] == "survey.questions[99]: must be an object"
    assert (result.problems[100] if len(result.problems) > 100 else None) == tail


@pytest.mark.parametrize("text", ["bell \u0007", "escape \u001b[31m", "lone \ud800"])
def test_a_file_with_characters_that_are_not_allowed_is_refused(session, admin, text):
    data = json.dumps(demo("01-survey.json", name=text)).encode()  # \\u escapes: valid JSON, not clean text
    result = test_files.import_file(session=session, actor_id=admin, data=data)
    assert result.outcome == "refused"
    assert result.problems == [
        "The file contains characters that are not allowed (control characters or invalid Unicode)."
    ]
