"""A test's results page against the real app: every public handler of its state sent as raw websocket events by
anonymous visitors, participants and each staff role. Staff (any role: roles.VIEW, roles.EXPORT) see the results
and get both files; nobody else sees a count, an answer or the test's name, nor gets a file; hostile arguments
and bad filters get a message by their filter, an unknown test its message, and the server logs no traceback.
A check that the scenario sends every handler."""

from __future__ import annotations

import base64
import inspect
import re

import pytest

from portal.domain.results import filters as rules
from portal.domain.staff import roles
from portal.services.admin.results import NO_TEST
from portal.states.admin.results import TestResultsState
from tests.support import results as seeds
from tests.support.people import caller
from tests.support.raw_tab import RawTab, run, tracebacks

CALLERS = ("anonymous", "participant", *roles.ROLES)
R = TestResultsState.get_full_name()
HOSTILE = [None, 1, True, [], {"a": 1}, "x" * 10_000, "__proto__", "0", "-1", "999"]


async def act(base: str, cookie: str | None, test_id: int) -> dict[str, str]:
    seen: dict[str, str] = {}
    tab = RawTab(base, cookie=cookie)
    await tab.open(f"/admin/tests/{test_id}/results", {"test_id": str(test_id)}, settle=0.3)
    await tab.answer(f"{R}.load", {}, settle=0.4)
    seen["load"] = tab.text()
    tab.received.clear()
    for bad in HOSTILE:
        await tab.answer(f"{R}.set_filter", {"name": bad, "value": bad}, settle=0.05)
        await tab.answer(f"{R}.set_filter", {"name": "country", "value": bad}, settle=0.05)
        await tab.answer(f"{R}.search", {"key": bad, "query": bad}, settle=0.05)
        await tab.answer(f"{R}.search", {"key": "last-purchase", "query": bad}, settle=0.05)
        await tab.answer(f"{R}.tick", {"_shown": bad}, settle=0.05)
    await tab.answer(f"{R}.set_filter", {"name": "country", "value": ""}, settle=0.2)  # (the last one was bad)
    await tab.answer(f"{R}.set_filter", {"name": "since", "value": "yesterday"}, settle=0.2)
    await tab.answer(f"{R}.set_filter", {"name": "since", "value": ""}, settle=0.2)
    await tab.answer(f"{R}.set_filter", {"name": "version", "value": "7"}, settle=0.2)
    await tab.answer(f"{R}.clear_filters", {}, settle=0.2)
    await tab.answer(f"{R}.set_filter", {"name": "excluded", "value": True}, settle=0.2)
    await tab.answer(f"{R}.search", {"key": "last-purchase", "query": "price talks"}, settle=0.2)
    await tab.answer(f"{R}.refresh", {}, settle=0.2)
    seen["filters"] = tab.text()
    tab.received.clear()
    await tab.answer(f"{R}.export_csv", {}, settle=0.3)
    await tab.answer(f"{R}.export_excel", {}, settle=0.3)
    seen["exports"] = tab.text()
    await tab.close()

    seen["missing"] = ""
    for missing in ("999999999", "abc"):  # a test that does not exist, and an id that is not one
        tab = RawTab(base, cookie=cookie)
        await tab.open(f"/admin/tests/{missing}/results", {"test_id": missing}, settle=0.2)
        await tab.answer(f"{R}.load", {}, settle=0.3)
        seen["missing"] += tab.text() if NO_TEST in tab.text() else f"<no message for {missing}>"
        await tab.close()
    return seen


def downloads(seen: str) -> list[bytes]:
    """The files a tab was sent (Reflex's _download event with a base64 data: URL)."""
    return [base64.b64decode(m) for m in re.findall(r"data:[^;\"]+(?:;[^;\"]+)?;base64,([A-Za-z0-9+/=]+)", seen)]


@pytest.mark.parametrize("kind", CALLERS)
def test_only_staff_see_a_tests_results_and_get_its_files(app_server, kind):
    with app_server.db() as db:
        seeded = seeds.survey(db)
        who = caller(db, kind)
        test_id, name = seeded.test.id, seeded.test.name
    log_start = app_server.log_path.stat().st_size
    seen = run(act(app_server.url, who.cookie, test_id))
    staff = roles.may(kind if kind in roles.ROLES else None, roles.VIEW)
    everything = "".join(seen.values())
    assert (name in seen["load"]) == staff, kind
    assert (seeds.SURVEY_TEXTS[0] in seen["load"]) == staff, kind
    assert ("3 reviews in these results" in seen["load"]) == staff, kind
    for message in (rules.BAD_COUNTRY, rules.BAD_DATE, rules.BAD_VERSION):
        assert (message in seen["filters"]) == staff, (kind, message)
    # Rejected reviews counted when asked for; the search kept its text and found the one answer.
    assert ("4 reviews in these results" in seen["filters"]) == staff, kind
    assert ("1 of 4 answers match “price talks”." in seen["filters"]) == staff, kind
    files = downloads(seen["exports"])
    if roles.may(kind if kind in roles.ROLES else None, roles.EXPORT):
        assert f"results-test-{test_id}.csv" in seen["exports"] and f"results-test-{test_id}.xlsx" in seen["exports"]
        csv_file = next(f for f in files if not f.startswith(b"PK"))
        assert seeds.SURVEY_TEXTS[3].encode() in csv_file  # with the filters shown: excluded and rejected ones included
        assert any(f.startswith(b"PK") for f in files)  # the workbook (a zip)
    else:
        assert files == [] and f"results-test-{test_id}" not in everything, kind
        assert seeds.SURVEY_TEXTS[0] not in everything and name not in everything, kind
    assert ("<no message for" not in seen["missing"]) == staff, (kind, seen["missing"][-300:])
    log = app_server.log_path.read_bytes()[log_start:].decode(errors="replace")
    assert tracebacks(log) == [], kind


def test_the_scenario_sends_every_public_handler_of_the_results_state():
    source = inspect.getsource(act)
    missing = [h for h in TestResultsState.event_handlers if h != "setvar" and f'{{R}}.{h}"' not in source]
    assert not missing, missing
