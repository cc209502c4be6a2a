"""Reflex's upload endpoint (/_upload) against the real app, as a script would call it: every request
is refused before its body is read unless a signed-in staff member with the handler's permission
uploads one file to a declared upload handler (portal/http/upload_guard.py); an oversize body is
refused while it arrives and the server's memory does not grow by it; each refusal is a 4xx with a
message, and the server log has no traceback. A staff import of a 400 KB nested file or of a file
with 900,000 problems answers with a message and at most 100 problems (the tab keeps no more).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from sqlmodel import select

from portal.domain import upload_limits
from portal.domain.staff import roles
from portal.http.upload_guard import NOT_ALLOWED, NOT_AN_UPLOAD
from portal.models import Test
from portal.states.admin.tests import AdminTestsState
from tests.integration.test_admin_tests import DEMO
from tests.support.api_server import memory_kb, reset_peak
from tests.support.people import ANONYMOUS, Person, caller
from tests.support.raw_tab import RawTab, run
from tests.support.raw_upload import raw_upload

T = AdminTestsState.get_full_name()
IMPORT = f"{T}.import_file"
BOUNDARY = "portal-upload-door"
OVERSIZE = 48 * 1024 * 1024  # far over the import's 5 MB
MAX_GROWTH_KB = 24 * 1024  # the server may use some memory, nowhere near the 48 MB sent


def part(name: str, content: bytes, filename: str | None = "test.json") -> bytes:
    file = f'; filename="{filename}"' if filename is not None else ""
    return (
        (
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{name}"{file}\r\n'
            "Content-Type: application/json\r\n\r\n"
        ).encode()
        + content
        + b"\r\n"
    )


def end() -> bytes:
    return f"--{BOUNDARY}--\r\n".encode()


def definition(name: str) -> bytes:
    document = json.loads((DEMO / "01-survey.json").read_text())
    document["name"] = name
    return json.dumps(document).encode()


def headers(token: str = "a-made-up-tab", handler: str = IMPORT) -> dict[str, str]:
    return {"Reflex-Client-Token": token, "Reflex-Event-Handler": handler}


def send(
    app_server,
    who: Person,
    body: Any,
    *,
    handler: str = IMPORT,
    content_length: int | None = None,
    early_answer: float = 0,
) -> tuple[int, dict, int]:
    chunks = [body] if isinstance(body, bytes) else body
    if content_length is None and isinstance(body, bytes):
        content_length = len(body)
    return raw_upload(
        app_server.url,
        "/_upload",
        chunks,
        cookie=who.cookie,
        content_length=content_length,
        content_type=f"multipart/form-data; boundary={BOUNDARY}",
        headers=headers(handler=handler),
        early_answer=early_answer,
    )


def imported(app_server, name: str) -> bool:
    with app_server.db() as db:
        return db.exec(select(Test).where(Test.name == name)).first() is not None


@pytest.fixture
def log_is_clean(app_server) -> Iterator[None]:
    """The server log gains no traceback during the test."""
    start = app_server.log_path.stat().st_size
    yield
    added = app_server.log_path.read_bytes()[start:].decode(errors="replace")
    assert "Traceback" not in added, added[-3000:]


@pytest.mark.parametrize("kind", ["anonymous", "participant", "made-up session"])
def test_an_upload_by_anyone_but_staff_is_refused_before_it_is_read(app_server, log_is_clean, kind):
    with app_server.db() as db:
        who = ANONYMOUS if kind == "anonymous" else caller(db, "participant")
    if kind == "made-up session":
        who = Person(None, f"portal_session={uuid.uuid4().hex}")
    name = f"Door {uuid.uuid4().hex[:10]}"
    status, answer, _ = send(app_server, who, part("files", definition(name)) + end())
    assert (status, answer) == (403, {"detail": NOT_ALLOWED})
    assert not imported(app_server, name)


@pytest.mark.parametrize(
    "handler",
    [
        f"{T}.open_import",  # a real handler that takes no file
        f"{T}.export",
        f"{T}.nope",
        "reflex___state____state.setvar",
        "",
    ],
)
def test_a_handler_that_takes_no_upload_is_refused(app_server, log_is_clean, handler):
    with app_server.db() as db:
        who = caller(db, roles.SUPER_ADMIN)
    status, answer, _ = send(app_server, who, part("files", b"{}") + end(), handler=handler)
    assert (status, answer) == (400, {"detail": NOT_AN_UPLOAD})


@pytest.mark.parametrize(
    "body",
    [
        part("__reflex_event_args", b'{"extra": "argument"}', filename=None) + part("files", b"{}") + end(),
        part("files", b"{}") + part("files", b"{}") + end(),
        part("files", b"{}") + part("other", b"x", filename=None) + end(),
        part("files", b"{}"),  # never ends
        b"plain text",
    ],
)
def test_extra_arguments_and_anything_but_one_file_are_refused(app_server, log_is_clean, body):
    with app_server.db() as db:
        who = caller(db, roles.SUPER_ADMIN)
    status, answer, _ = send(app_server, who, body)
    assert status == 400 and answer["detail"]


def test_a_declared_length_over_the_limit_is_refused_from_the_headers(app_server, log_is_clean):
    with app_server.db() as db:
        who = caller(db, roles.TEAM_MANAGER)
    # Refused from the headers: before each chunk the client waits (up to 5 s) for that early answer.
    status, answer, sent = send(app_server, who, _oversize_body(), content_length=OVERSIZE, early_answer=5)
    assert (status, answer) == (413, {"detail": "The file is bigger than 5 MB."})
    assert sent <= 1024 * 1024  # only what was on its way before the answer


@pytest.mark.parametrize("declared", [None, 1024 * 1024], ids=["chunked", "a Content-Length that lies"])
def test_an_oversize_body_is_refused_while_it_arrives_and_the_server_does_not_hold_it(
    app_server, log_is_clean, declared
):
    with app_server.db() as db:
        who = caller(db, roles.SUPER_ADMIN)
    pgid = app_server.proc.pid
    resettable = all(reset_peak(pid) for pid in memory_kb(pgid))
    baseline = memory_kb(pgid)
    status, answer, sent = send(app_server, who, _oversize_body(), content_length=declared)
    if declared is None:
        # Counted as it arrived: refused past the limit, long before the end was sent.
        assert (status, answer) == (413, {"detail": "The file is bigger than 5 MB."})
        assert sent < OVERSIZE // 2
    else:
        # The server reads what was declared: a multipart body cut short, refused; the rest is not a request.
        assert 400 <= status < 500
    after = memory_kb(pgid)
    for pid, (rss_before, _) in baseline.items():
        if pid in after:
            rss_now, peak = after[pid]
            grown = (peak if resettable else rss_now) - rss_before
            assert grown < MAX_GROWTH_KB, (
                f"process {pid} grew by {grown} kB while receiving up to {OVERSIZE // 1024} kB"
            )


def _oversize_body() -> Iterator[bytes]:
    yield part("files", b"")[:-2]  # the file part's headers, then its content without end
    chunk = b" " * (1024 * 1024)
    for _ in range(OVERSIZE // len(chunk)):
        yield chunk


# --- what a staff import answers, through the real endpoint ---------------------------------------------


def staff_import(app_server, content: bytes) -> dict[str, Any]:
    """A super-admin's import through /_upload from a real tab on /admin/tests: the tab's import vars."""
    with app_server.db() as db:
        who = caller(db, roles.SUPER_ADMIN)

    async def upload() -> str:
        tab = RawTab(app_server.url, cookie=who.cookie)
        await tab.open("/admin/tests", settle=0.3)
        try:
            async with httpx.AsyncClient(timeout=60) as client:
                response = await client.post(
                    f"{app_server.url}/_upload",
                    headers={**headers(tab.token), "cookie": who.cookie},
                    files={"files": ("test.json", content, "application/json")},
                )
            assert response.status_code == 200, response.text
            return response.text
        finally:
            await tab.close()

    answer = run(upload())
    found: dict[str, Any] = {}
    for line in answer.splitlines():
        for values in json.loads(line).get("delta", {}).values():
            found.update({k.removesuffix("_rx_state_"): v for k, v in values.items() if k.startswith("import_")})
    found["_bytes"] = len(answer)
    return found


def test_a_staff_import_of_deeply_nested_brackets_answers_with_a_message(app_server, log_is_clean):
    found = staff_import(app_server, b"[" * 200_000 + b"]" * 200_000)  # 400 KB
    assert found["import_outcome"] == "refused"
    assert found["import_message"] == "Nothing was imported: 1 problem to fix."
    assert found["import_problems"] == ["The file is nested too deeply (at most 32 levels)."]


def test_a_staff_import_with_900000_problems_answers_the_first_100_and_the_count(app_server, log_is_clean):
    document = json.loads((DEMO / "01-survey.json").read_text())
    document["survey"]["questions"] = [0] * 900_000
    content = json.dumps(document, separators=(",", ":")).encode()
    assert len(content) < upload_limits.TEST_FILE_BYTES
    found = staff_import(app_server, content)
    assert found["import_message"] == "Nothing was imported: 900,000 problems to fix."
    problems = found["import_problems"]
    assert len(problems) == 101 and problems[0] == "survey.questions[0]: must be an object"
    assert problems[-1] == "… and 899,900 more problems"
    assert found["_bytes"] < 50_000  # the answer (and what the tab keeps) is small, not 42 MB


def test_a_staff_import_of_a_good_file_still_creates_the_test(app_server, log_is_clean):
    name = f"Door import {uuid.uuid4().hex[:10]}"
    found = staff_import(app_server, definition(name))
    assert found["import_outcome"] == "created" and imported(app_server, name)
