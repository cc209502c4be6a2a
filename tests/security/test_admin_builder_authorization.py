"""The test builder's handlers (portal/states/admin/builder.py), sent as raw websocket events by anonymous
visitors, participants and each staff role: only roles with MANAGE_TESTS keep a draft or save the test
(read from the database), and hostile arguments (paths the builder never sends, wrong types, NaN, huge
values, out-of-range indexes) change nothing, even when saved afterwards."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from portal.domain.staff import roles
from portal.models import Test
from portal.states.admin.builder import BuilderState
from tests.support.people import caller, demo_test
from tests.support.raw_tab import RawTab, run

S = BuilderState.get_full_name()
CALLERS = ("anonymous", "participant", *roles.ROLES)
Q = "survey.questions"
NAN = float("nan")

HOSTILE: list[tuple[str, dict[str, Any]]] = [
    *(
        ("set_text", {"path": path, "value": "x"})
        for path in (
            "name",
            "status",
            "payoutCents",
            f"{Q}[0].type",
            f"{Q}[999].text",
            "selectedAreas[0].from",
            None,
            5,
        )
    ),
    *(("set_text", {"path": f"{Q}[0].text", "value": value}) for value in (None, 5, ["a"], {"t": 1}, NAN, True)),
    ("set_text", {"path": f"{Q}[0].numberType", "value": "percentage"}),  # not a number question
    *(("set_flag", {"path": path, "checked": True}) for path in (f"{Q}[0].text", "isFreemium", None)),
    *(("set_type", {"question_path": f"{Q}[0]", "new_type": t}) for t in ("essay", None, 5, ["rank"])),
    ("set_type", {"question_path": "survey", "new_type": "rank"}),
    *(("add_question", {"list_path": path}) for path in ("selectedAreas", "survey", None, 7, ["survey.questions"])),
    ("choose_new_type", {"list_path": "selectedAreas", "new_type": "rank"}),
    *(("remove_question", {"list_path": Q, "index": i}) for i in (-1, 999, "0", None, True, NAN, [0])),
    *(("move_question", {"list_path": Q, "index": 0, "delta": d}) for d in (2, -5, "1", True, None, NAN)),
    *(("add_item", {"list_path": path}) for path in (f"{Q}[0].key", "selectedAreas", None, f"{Q}[999].options")),
    *(("remove_item", {"list_path": f"{Q}[0].options", "index": i}) for i in (-1, 99, None, NAN)),
    *(("move_item", {"list_path": f"{Q}[0].options", "index": 0, "delta": d}) for d in (3, "x", None)),
    *(("set_screener_type", {"screener_type": t}) for t in ("grid", None, 5)),
    *(("toggle_correct", {"row": r, "column": c}) for r, c in ((0, 0), (-1, 0), (None, NAN))),
    *(("set_preference_type", {"preference_type": t}) for t in ("image", "video", None)),
    ("confirm_save", {}),
    ("cancel_save", {}),
]


def stored(app_server, test_id: int) -> tuple[Any, Any]:
    with app_server.db() as db:
        test = db.get(Test, test_id)
        return copy.deepcopy(test.survey), copy.deepcopy(test.draft_document)


async def build(base: str, cookie: str, test_id: int) -> None:
    """The builder used as a person would: a question added, changed and moved, an option, the screener
    switched on and off; then saved."""
    tab = RawTab(base, cookie=cookie)
    await tab.open(f"/admin/tests/{test_id}/build", {"test_id": str(test_id)}, settle=0.3)

    async def send(name: str, payload: dict[str, Any] | None = None) -> None:
        await tab.answer(f"{S}.{name}", payload or {}, settle=0.15)

    await send("load_page")
    await send("choose_new_type", {"list_path": Q, "new_type": "rank"})
    await send("add_question", {"list_path": Q})
    last = f"{Q}[13]"
    await send("set_type", {"question_path": last, "new_type": "single-choice"})
    await send("set_text", {"path": f"{last}.text", "value": "Added by the builder"})
    await send("set_flag", {"path": f"{last}.isRequired", "checked": True})
    await send("add_item", {"list_path": f"{last}.options"})  # A, B, C (the ranking's) and a fourth
    await send("set_text", {"path": f"{last}.options[3].label", "value": "Fourth"})
    await send("move_item", {"list_path": f"{last}.options", "index": 3, "delta": -1})
    await send("remove_item", {"list_path": f"{last}.options", "index": 1})
    await send("add_question", {"list_path": Q})
    await send("move_question", {"list_path": Q, "index": 14, "delta": -1})
    await send("remove_question", {"list_path": Q, "index": 13})
    await send("set_screener", {"on": True})
    await send("set_screener_type", {"screener_type": "matrix"})
    await send("toggle_correct", {"row": 0, "column": 0})
    await send("set_screener", {"on": False})
    await send("save")
    await tab.close()


async def attack(base: str, cookie: str, test_id: int) -> None:
    """Every hostile argument, then a save and a discard: nothing of it may reach the database."""
    tab = RawTab(base, cookie=cookie)
    await tab.open(f"/admin/tests/{test_id}/build", {"test_id": str(test_id)}, settle=0.3)
    await tab.answer(f"{S}.load_page", {}, settle=0.15)
    for name, payload in HOSTILE:
        await tab.answer(f"{S}.{name}", payload, settle=0.05)
    await tab.answer(f"{S}.save", {}, settle=0.3)
    await tab.answer(f"{S}.discard", {}, settle=0.2)
    assert await tab.alive(f"{S}.cancel_save")  # the tab still answers
    await tab.close()


@pytest.mark.parametrize("kind", CALLERS)
def test_only_roles_that_manage_tests_build_the_test(app_server, kind):
    with app_server.db() as db:
        test = demo_test(db, "01-survey.json")
        who = caller(db, kind)
    survey, draft = stored(app_server, test.id)
    assert len(survey["questions"]) == 13 and draft is None
    run(build(app_server.url, who.cookie, test.id))
    after, after_draft = stored(app_server, test.id)
    allowed = roles.may(kind if kind in roles.ROLES else None, roles.MANAGE_TESTS)
    if allowed:
        assert after_draft is None, kind  # saved: the draft is dropped
        assert after["questions"][13]["type"] == "single-choice"
        assert [o["label"] for o in after["questions"][13]["options"]] == ["A", "Fourth", "C"]
        assert after["questions"][:13] == survey["questions"]
    else:
        assert (after, after_draft) == (survey, draft), kind
    run(attack(app_server.url, who.cookie, test.id))
    assert stored(app_server, test.id) == (after, None), kind


def test_the_scenario_sends_every_public_handler_of_the_builder():
    import inspect

    source = inspect.getsource(build) + inspect.getsource(attack) + "".join(name for name, _ in HOSTILE)
    missing = [
        h
        for h in BuilderState.event_handlers
        if h != "setvar"
        and f'"{h}"' not in source
        and f'.{h}"' not in source
        and h not in {name for name, _ in HOSTILE}
    ]
    assert not missing, missing
