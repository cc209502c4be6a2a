"""The highlight-area editor's handlers (portal/states/admin/areas.py), sent as raw websocket events
by anonymous visitors, participants and each staff role: only roles with MANAGE_TESTS change a test's
selectedAreas (read from the database), and hostile arguments (non-lists, NaN, huge lists, strings,
out-of-range indexes) are refused with no change, even when saved afterwards."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from portal.domain.staff import roles
from portal.models import Test
from portal.states.admin.areas import AreasEditorState
from tests.support.people import caller, demo_test
from tests.support.raw_tab import RawTab, run

S = AreasEditorState.get_full_name()
CALLERS = ("anonymous", "participant", *roles.ROLES)
NEW_AREA = {
    "from": [12.5, 10],
    "to": [42, 30],
    "questions": [{"key": "area-4-q1", "type": "short-text", "text": "Why this part?", "isRequired": False}],
}

NAN = float("nan")
HOSTILE: list[tuple[str, dict[str, Any]]] = [
    *(
        ("create_area", {"box": box})
        for box in (
            "10,10,40,30",
            None,
            7,
            {"x1": 1},
            [10, 10, 40],
            [NAN, 10, 40, 30],
            [10, 10, float("inf"), 30],
            [40, 30, 10, 10],
            [10, 10, 10, 30],
            [True, 10, 40, 30],
            ["10", "10", "40", "30"],
            [1] * 20_000,
            [[10], [10], [40], [30]],
        )
    ),
    *(
        ("change_area", {"index": index, "box": [5, 5, 20, 20]})
        for index in (-1, 99, 10**30, "x", None, True, [0], 1.5, NAN)
    ),
    ("change_area", {"index": 0, "box": [NAN, NAN, NAN, NAN]}),
    ("change_area", {"index": 0, "box": list(range(20_000))}),
    *(("delete_area", {"index": index}) for index in (-1, 99, "abc", None, True, [0], {"i": 0}, NAN)),
    *(("move_area", {"index": 0, "offset": offset}) for offset in (2, -5, "1", True, None, NAN, [1])),
    ("move_area", {"index": 0, "offset": -1}),  # the first area cannot go up
    ("move_area", {"index": 2, "offset": 1}),  # nor the last one down
    *(("add_question", {"index": index}) for index in (-1, 99, None, [0], "x", NAN)),
    *(("set_question_text", {"area": 0, "question": 0, "text": text}) for text in (None, 5, ["a"], {"t": "x"}, NAN)),
    *(
        ("set_question_text", {"area": a, "question": q, "text": "x"})
        for a, q in ((99, 0), (0, 99), (-1, 0), ("0", None))
    ),
    *(
        ("set_question_type", {"area": 0, "question": 0, "kind": kind})
        for kind in ("essay", "single-choice", 5, None, ["long-text"])
    ),
    ("set_question_type", {"area": 1, "question": 0, "kind": "long-text"}),  # a multi-choice question keeps its type
    *(
        ("set_question_required", {"area": 0, "question": 0, "required": value})
        for value in ("yes", 0, None, [True], NAN)
    ),
    *(("remove_question", {"area": a, "question": q}) for a, q in ((0, 5), (9, 0), (None, None), ("x", []), (NAN, 0))),
]


def stored(app_server, test_id: int) -> list[dict[str, Any]]:
    with app_server.db() as db:
        return copy.deepcopy(db.get(Test, test_id).selected_areas)


async def edit(base: str, cookie: str, test_id: int) -> None:
    """Every editor handler as a person would use them, then saved."""
    tab = RawTab(base, cookie=cookie)
    await tab.open(f"/admin/tests/{test_id}/areas", {"test_id": str(test_id)}, settle=0.3)

    async def send(name: str, payload: dict[str, Any] | None = None) -> None:
        await tab.answer(f"{S}.{name}", payload or {}, settle=0.15)

    await send("load")
    await send("create_area", {"box": [10, 10, 40, 30]})
    await send("change_area", {"index": 3, "box": [12.5, 10, 42, 30]})
    await send("add_question", {"index": 3})
    await send("set_question_text", {"area": 3, "question": 0, "text": "Why this part?"})
    await send("set_question_type", {"area": 3, "question": 0, "kind": "short-text"})
    await send("set_question_required", {"area": 3, "question": 0, "required": False})
    await send("select_area", {"index": 3})
    await send("move_area", {"index": 3, "offset": -1})
    await send("add_question", {"index": 0})
    await send("remove_question", {"area": 0, "question": 1})
    await send("delete_area", {"index": 3})
    await send("save")
    # Nobody is taking the test: no new-version warning to answer; its two answers change nothing more.
    await send("keep_editing")
    await send("save_new_version")
    await tab.close()


async def attack(base: str, cookie: str, test_id: int) -> None:
    """Every hostile argument, then a save: nothing of it may reach the database."""
    tab = RawTab(base, cookie=cookie)
    await tab.open(f"/admin/tests/{test_id}/areas", {"test_id": str(test_id)}, settle=0.3)
    await tab.answer(f"{S}.load", {}, settle=0.15)
    for name, payload in HOSTILE:
        await tab.answer(f"{S}.{name}", payload, settle=0.05)
    await tab.answer(f"{S}.select_area", {"index": "nope"}, settle=0.05)
    await tab.answer(f"{S}.save", {}, settle=0.3)
    await tab.answer(f"{S}.revert", {}, settle=0.2)
    assert await tab.alive(f"{S}.revert")  # the tab still answers
    await tab.close()


@pytest.mark.parametrize("kind", CALLERS)
def test_only_roles_that_manage_tests_change_the_areas(app_server, kind):
    with app_server.db() as db:
        test = demo_test(db, "02-landing-page.json")
        who = caller(db, kind)
    original = stored(app_server, test.id)
    assert len(original) == 3
    run(edit(app_server.url, who.cookie, test.id))
    after = stored(app_server, test.id)
    allowed = roles.may(kind if kind in roles.ROLES else None, roles.MANAGE_TESTS)
    assert after == ([original[0], original[1], NEW_AREA] if allowed else original), kind
    run(attack(app_server.url, who.cookie, test.id))
    assert stored(app_server, test.id) == after, kind


def test_the_scenario_sends_every_public_handler_of_the_editor():
    import inspect

    source = inspect.getsource(edit) + inspect.getsource(attack) + "".join(name for name, _ in HOSTILE)
    missing = [
        h
        for h in AreasEditorState.event_handlers
        if h != "setvar"
        and f'"{h}"' not in source
        and f'.{h}"' not in source
        and h not in {name for name, _ in HOSTILE}
    ]
    assert not missing, missing
