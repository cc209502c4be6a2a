"""Test images against the real app: raw HTTP uploads by anonymous visitors, participants and each staff
role (only roles with the manage-tests permission store anything; everyone else gets 403 and nothing
is stored), cross-origin uploads refused, unknown tests and slots, a declared size over 250 MB; and
every public handler of the images page's state sent as raw websocket events by each caller (nothing
of the staff side reaches a non-staff tab), with a check that the scenario sends every handler.
"""

from __future__ import annotations

import inspect
import uuid
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import select

from portal.domain import images as rules
from portal.domain.staff import roles
from portal.models import AuditEntry, Test
from portal.services.admin.guard import NOT_ALLOWED
from portal.states.admin.images import AdminImagesState
from tests.support.images import chunks_of, png
from tests.support.people import Person, caller, demo_test
from tests.support.raw_tab import RawTab, run
from tests.support.raw_upload import raw_upload

CALLERS = ("anonymous", "participant", *roles.ROLES)
S = AdminImagesState.get_full_name()


def media_files(app_server) -> set[Path]:
    media = Path(app_server.env["MEDIA_DIR"])  # the app's own (tests/e2e/conftest.py)
    return {p for p in media.rglob("*") if p.is_file()} if media.exists() else set()


def state(app_server, test_id: int) -> tuple[str | None, int]:
    with app_server.db() as db:
        test = db.get(Test, test_id)
        audited = db.exec(
            select(AuditEntry).where(AuditEntry.action == "test.image", AuditEntry.target_id == str(test_id))
        ).all()
        return test.screenshot_url, len(audited)


def unique_png() -> bytes:
    return png(1400, label=uuid.uuid4().hex)  # bytes no earlier upload had, so a stored file is new


def upload(
    app_server, who: Person, test_id: Any, data: bytes, slot: str = "screenshot", **kwargs: Any
) -> tuple[int, dict, int]:
    return raw_upload(app_server.url, f"/api/admin/tests/{test_id}/images/{slot}", [data], cookie=who.cookie, **kwargs)


@pytest.mark.parametrize("kind", CALLERS)
def test_only_staff_who_manage_tests_store_an_image(app_server, kind):
    with app_server.db() as db:
        test = demo_test(db, "02-landing-page.json")
        who = caller(db, kind)
    before, files = state(app_server, test.id), media_files(app_server)
    status, answer, _ = upload(app_server, who, test.id, unique_png())
    allowed = roles.may(kind, roles.MANAGE_TESTS)
    if allowed:
        assert status == 200, answer
        assert state(app_server, test.id) == (answer["url"], 1)
        assert len(media_files(app_server) - files) == 1
    else:
        assert (status, answer) == (403, {"errors": [{"field": "image", "message": NOT_ALLOWED}]})
        assert state(app_server, test.id) == before
        assert media_files(app_server) == files


@pytest.mark.parametrize("origin", ["https://evil.example", "http://localhost:1", "null"])
def test_a_cross_origin_upload_is_refused(app_server, origin):
    with app_server.db() as db:
        test = demo_test(db, "02-landing-page.json")
        who = caller(db, roles.SUPER_ADMIN)
    before, files = state(app_server, test.id), media_files(app_server)
    status, answer, _ = upload(app_server, who, test.id, unique_png(), origin=origin)
    assert status == 403 and answer["errors"][0]["message"] == NOT_ALLOWED
    assert state(app_server, test.id) == before and media_files(app_server) == files


@pytest.mark.parametrize(
    "test_id,slot",
    [
        ("987654321", "screenshot"),
        ("abc", "screenshot"),
        ("-1", "screenshot"),
        (None, "pricing-screenshot"),
        (None, "concept-1"),
        (None, "..%2F..%2Fetc"),
        (None, "SCREENSHOT"),
    ],
)
def test_unknown_tests_and_slots_are_not_found(app_server, test_id, slot):
    with app_server.db() as db:
        test = demo_test(db, "02-landing-page.json")
        who = caller(db, roles.SUPER_ADMIN)
    files = media_files(app_server)
    status, _, _ = upload(app_server, who, test_id or test.id, unique_png(), slot=slot)
    # A slot with an encoded '/' names no upload route at all: the pages answer 405 to a POST.
    assert status == (405 if "%2F" in slot else 404)
    assert media_files(app_server) == files


def test_a_declared_size_over_250_mb_is_refused_from_its_headers(app_server):
    with app_server.db() as db:
        test = demo_test(db, "02-landing-page.json")
        who = caller(db, roles.TEAM_MANAGER)
    before, files = state(app_server, test.id), media_files(app_server)
    # Refused from the headers: before each chunk the client waits (up to 5 s) for that early answer.
    status, answer, sent = raw_upload(
        app_server.url,
        f"/api/admin/tests/{test.id}/images/screenshot",
        chunks_of(4 * 1024 * 1024),
        cookie=who.cookie,
        content_length=rules.MAX_IMAGE_BYTES + 1,
        early_answer=5,
    )
    assert (status, answer["errors"][0]["message"]) == (413, "The image is bigger than 250 MB.")
    assert sent <= 1024 * 1024
    assert state(app_server, test.id) == before and media_files(app_server) == files


def test_refused_images_through_the_whole_app(app_server):
    with app_server.db() as db:
        test = demo_test(db, "02-landing-page.json")
        who = caller(db, roles.TEAM_OWNER)
    before, files = state(app_server, test.id), media_files(app_server)
    for data, status, message in ((png(500), 422, rules.too_narrow(500)), (b"not an image", 415, rules.NOT_AN_IMAGE)):
        answer = upload(app_server, who, test.id, data)
        assert answer[:2] == (status, {"errors": [{"field": "image", "message": message}]})
    assert state(app_server, test.id) == before and media_files(app_server) == files


# --- the page's event handlers as raw websocket events ------------------------------------------------------
async def act(base: str, cookie: str, test_id: int) -> dict[str, str]:
    seen: dict[str, str] = {}
    tab = RawTab(base, cookie=cookie)
    await tab.open(f"/admin/tests/{test_id}/images", {"test_id": str(test_id)}, settle=0.3)
    await tab.answer(f"{S}.load", {})
    seen["load"] = tab.text()
    tab.received.clear()
    await tab.answer(f"{S}.start", {"slot": "screenshot"})
    seen["start"] = tab.text()
    tab.received.clear()
    await tab.answer(f"{S}.finished", {"result": {"slot": "screenshot", "ok": False, "message": "marker-refusal"}})
    seen["finished"] = tab.text()
    tab.received.clear()
    # Hostile arguments: a slot the test has not, not a string; a result that is not an object.
    for name, payload in (
        (f"{S}.start", {"slot": "concept-9"}),
        (f"{S}.start", {"slot": {"key": "screenshot"}}),
        (f"{S}.finished", {"result": "junk"}),
        (f"{S}.finished", {"result": {"slot": ["screenshot"]}}),
    ):
        await tab.answer(name, payload)
    seen["hostile"] = tab.text()
    await tab.close()
    return seen


@pytest.mark.parametrize("kind", CALLERS)
def test_every_handler_of_the_images_page_by_each_caller(app_server, kind):
    with app_server.db() as db:
        test = demo_test(db, "02-landing-page.json")
        who = caller(db, kind)
    before = state(app_server, test.id)
    seen = run(act(app_server.url, who.cookie, test.id))
    staff = roles.may(kind, roles.VIEW)
    assert (test.name in seen["load"]) is staff  # the page's data: staff only
    assert ("window.portalImages.upload" in seen["start"]) is roles.may(kind, roles.MANAGE_TESTS)
    assert ("marker-refusal" in seen["finished"]) is staff
    assert "portalImages" not in seen["hostile"]
    assert state(app_server, test.id) == before  # events alone never change a test's images
    if not staff:
        assert test.name not in "".join(seen.values()) and "/demo/landing.png" not in "".join(seen.values())


def test_the_scenario_sends_every_public_handler_of_the_images_state():
    source = inspect.getsource(act)
    missing = [h for h in AdminImagesState.event_handlers if h != "setvar" and f'{{S}}.{h}"' not in source]
    assert not missing, missing
