"""An image upload over 250 MB is refused before it is stored in full, and the server never holds it.

The portal's HTTP API runs in a real server (granian, as in production) in a process of its own,
on a migrated SQLite database, with a staff member's session. The test streams a body larger than
250 MB from a generator over a raw socket (so the sender never holds it either), with chunked
transfer encoding so the server cannot know the size in advance and must count as it reads. The
answer is 413 with the spec's message; nothing was stored and nothing is left on disk; and the
server's peak memory (VmHWM, reset just before) grew by far less than the body.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

import httpx
import pytest
from sqlmodel import Session

from portal.db import make_engine
from portal.domain import images as rules
from portal.domain.staff import roles
from portal.http.client import SESSION_COOKIE
from portal.models import AuditEntry, Test
from portal.services.definition_import import import_test
from portal.services.sessions import create_session
from tests.integration.conftest import migrate
from tests.support.api_server import memory_kb, reset_peak
from tests.support.factories import make_participant
from tests.support.images import chunks_of, png
from tests.support.raw_upload import raw_upload as send_raw

ROOT = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent
OVER = rules.MAX_IMAGE_BYTES + 32 * 1024 * 1024  # 282 MB
MAX_GROWTH_KB = 64 * 1024  # the server may use some memory, nowhere near the 260 MB sent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.database_url = f"sqlite:///{tmp / 'upload.db'}"
        self.media = tmp / "media"
        self.incoming = tmp / "incoming"
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen | None = None

    def start(self) -> Server:
        env = dict(
            os.environ,
            DATABASE_URL=self.database_url,
            MEDIA_DIR=str(self.media),
            UPLOAD_TMP_DIR=str(self.incoming),
            BASE_URL=self.url,
            SECRET_KEY="upload-limit-test",
            S3_BUCKET="",
            REDIS_URL="",
        )
        log = (self.tmp / "server.log").open("w")
        self.proc = subprocess.Popen(
            [
                str(VENV_BIN / "granian"),
                "--interface",
                "asgi",
                "--factory",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--workers",
                "1",
                "--no-access-log",
                "tests.support.api_server:build",
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, (self.tmp / "server.log").read_text()[-3000:]
            try:
                if httpx.get(self.url + "/api/health", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        raise RuntimeError("the API server did not start:\n" + (self.tmp / "server.log").read_text()[-3000:])

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, 15)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, 9)
                self.proc.wait(timeout=10)

    def files(self) -> list[Path]:
        return sorted(
            p for root in (self.media, self.incoming) if root.exists() for p in root.rglob("*") if p.is_file()
        )


@pytest.fixture
def world(tmp_path: Path) -> Iterator[tuple[Server, str, int]]:
    server = Server(tmp_path)
    migrate(server.database_url)
    engine = make_engine(server.database_url)
    with Session(engine, expire_on_commit=False) as session:
        staff = make_participant(session, password_hash="!")
        staff.staff_role = roles.TEAM_MANAGER
        session.add(staff)
        session.commit()
        token = create_session(session=session, account_id=staff.id)
        data = json.loads((ROOT / "portal/data/demo_tests/02-landing-page.json").read_text())
        test = import_test(session, data)
        session.commit()
        test_id = test.id
    engine.dispose()
    server.start()
    try:
        yield server, f"{SESSION_COOKIE}={token}", test_id
    finally:
        server.stop()


def state_of(server: Server, test_id: int) -> tuple[str | None, int]:
    """The test's screenshot URL and how many audit rows there are."""
    engine = make_engine(server.database_url)
    with Session(engine) as session:
        found = session.get(Test, test_id).screenshot_url
        audited = session.query(AuditEntry).count()
    engine.dispose()
    return found, audited


def raw_upload(
    server: Server, path: str, cookie: str, body: Iterable[bytes], *, content_length: int | None = None
) -> tuple[int, dict, int]:
    return send_raw(server.url, path, body, cookie=cookie, content_length=content_length)


def test_an_upload_over_250_mb_is_refused_while_it_streams(world):
    server, cookie, test_id = world
    path = f"/api/admin/tests/{test_id}/images/screenshot"
    before = state_of(server, test_id)
    pids = memory_kb(server.proc.pid)
    assert len(pids) >= 1
    resettable = all(reset_peak(pid) for pid in pids)
    baseline = memory_kb(server.proc.pid)

    # A real 1400 px PNG at the start, so only the size can be at fault; then zeros up to 282 MB.
    status, answer, sent = raw_upload(server, path, cookie, chunks_of(OVER, start=png(1400)))

    assert status == 413
    assert answer == {"errors": [{"field": "image", "message": "The image is bigger than 250 MB."}]}
    # Refused once past the limit (the socket buffers in flight aside), and before the end was sent.
    assert rules.MAX_IMAGE_BYTES < sent < OVER
    assert server.files() == []  # nothing stored, nothing left half-written
    assert state_of(server, test_id) == before
    after = memory_kb(server.proc.pid)
    for pid, (rss_before, _) in baseline.items():
        if pid not in after:
            continue
        rss_now, peak = after[pid]
        grown = (peak if resettable else rss_now) - rss_before
        assert grown < MAX_GROWTH_KB, f"process {pid} grew by {grown} kB while receiving {OVER // 1024} kB"


def test_a_declared_length_over_250_mb_is_refused_before_the_body_is_read(world):
    server, cookie, test_id = world
    path = f"/api/admin/tests/{test_id}/images/screenshot"
    started = time.monotonic()
    # Only the first megabyte is ever sent: the answer comes from the headers alone.
    status, answer, sent = raw_upload(server, path, cookie, _slowly(chunks_of(2 * 1024 * 1024)), content_length=OVER)
    assert status == 413 and answer["errors"][0]["message"] == rules.TOO_BIG
    assert sent <= 1024 * 1024 and time.monotonic() - started < 10
    assert server.files() == []


def _slowly(chunks: Iterator[bytes]) -> Iterator[bytes]:
    for chunk in chunks:
        time.sleep(0.5)  # time for the server's early answer to arrive before the next chunk
        yield chunk


def test_an_image_under_the_limit_is_kept_by_the_same_server(world):
    """The control: the same endpoint and stream keep a valid image (so the 413 above is the size)."""
    server, cookie, test_id = world
    body = png(1400)
    status, answer, _ = raw_upload(
        server, f"/api/admin/tests/{test_id}/images/screenshot", cookie, [body[:1000], body[1000:]]
    )
    assert status == 200, answer
    assert answer["url"].startswith("/media/images/")
    stored = [p for p in server.files() if p.is_relative_to(server.media)]
    assert len(stored) == 1 and stored[0].read_bytes() == body
    assert state_of(server, test_id) == (answer["url"], 1)
    served = httpx.get(server.url + answer["url"])
    assert served.status_code == 200 and served.content == body and served.headers["content-type"] == "image/png"
