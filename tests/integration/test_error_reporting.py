"""Error reporting in this process, against a real Sentry stand-in on loopback (tests/support/sentry_server.py):
the SDK's envelopes arrive there over HTTP and the tests read what they carry."""

from __future__ import annotations

import dataclasses
import logging
import secrets
from collections.abc import Iterator

import httpx
import pytest
import sentry_sdk
from fastapi import FastAPI

from portal.http import errors
from portal.services import error_reporting
from portal.settings import settings
from portal.states.event_guard import on_backend_exception
from portal.states.render_failure import on_frontend_exception
from tests.support.sentry_server import SentryServer, event_text, exception_types

EMAIL = "dana.reviewer@example.com"
TOKEN = secrets.token_urlsafe(32)


@pytest.fixture
def stand_in() -> Iterator[SentryServer]:
    server = SentryServer().start()
    yield server
    server.stop()


@pytest.fixture
def sentry(stand_in: SentryServer) -> Iterator[SentryServer]:
    """Error reporting on, sending to the stand-in; off again afterwards."""
    assert error_reporting.init(
        dataclasses.replace(settings, sentry_dsn=stand_in.dsn, sentry_environment="test", sentry_release="portal@test")
    )
    yield stand_in
    client = sentry_sdk.get_client()
    client.close(timeout=5)
    sentry_sdk.get_global_scope().set_client(None)


def assert_scrubbed(event: dict) -> None:
    text = event_text(event)
    assert EMAIL not in text and TOKEN not in text


def test_with_no_dsn_the_sdk_is_not_initialised_and_nothing_is_sent(stand_in: SentryServer, caplog):
    assert error_reporting.init(dataclasses.replace(settings, sentry_dsn="")) is False
    assert not sentry_sdk.is_initialized() and not error_reporting.enabled()
    logging.getLogger("portal.test").error("no account for %s", EMAIL)
    error_reporting.report_exception(ValueError("boom"), "unhandled error")
    error_reporting.report_browser_error("page", "TypeError: boom", "at Page")
    sentry_sdk.flush(timeout=5)
    assert stand_in.raw == []
    assert "the browser failed to render page: TypeError: boom (at Page)" in caplog.text  # still logged


def test_init_happens_once_with_environment_release_and_no_personal_data_collection(sentry: SentryServer):
    client = sentry_sdk.get_client()
    assert error_reporting.init(dataclasses.replace(settings, sentry_dsn=sentry.dsn)) is True
    assert sentry_sdk.get_client() is client
    assert client.should_send_default_pii() is False
    logging.getLogger("portal.test").error("marker")
    event = sentry.wait_for_event(lambda e: (e.get("logentry") or {}).get("message") == "marker")
    assert (event["environment"], event["release"]) == ("test", "portal@test")


@pytest.mark.asyncio
async def test_an_unhandled_api_error_reaches_sentry_once_with_its_stack_and_scrubbed(sentry: SentryServer, caplog):
    api = FastAPI()
    errors.install(api)

    @api.get("/explode")
    async def explode() -> None:
        raise LookupError(f"no session {TOKEN} for {EMAIL}")

    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=api), base_url="http://portal.test") as client:
        answer = await client.get(
            f"/explode?token={TOKEN}", headers={"Cookie": f"portal_session={TOKEN}", "Authorization": f"Bearer {TOKEN}"}
        )
    assert answer.status_code == 500 and TOKEN not in answer.text
    event = sentry.wait_for_event(lambda e: "LookupError" in exception_types(e))
    assert_scrubbed(event)
    frames = event["exception"]["values"][0]["stacktrace"]["frames"]
    assert any(f.get("function") == "explode" for f in frames) and not any("vars" in f for f in frames)
    assert "Traceback" not in caplog.text and "unhandled error in GET /explode: LookupError" in caplog.text
    sentry_sdk.flush(timeout=5)
    assert len(sentry.events) == 1  # the log line is not sent a second time


def test_an_event_handler_error_reaches_sentry_scrubbed(sentry: SentryServer):
    try:
        raise RuntimeError(f"could not save the draft of {EMAIL}")
    except RuntimeError as exc:
        on_backend_exception(exc)
    event = sentry.wait_for_event(lambda e: "RuntimeError" in exception_types(e))
    assert_scrubbed(event)
    assert event["logger"] == "portal.events" and "could not save the draft of [email]" in event_text(event)


def test_logged_errors_become_events_and_warnings_log_lines_scrubbed(sentry: SentryServer):
    logging.getLogger("portal.sign_in").error("no account for %s with token=%s", EMAIL, TOKEN)
    logging.getLogger("portal.mail").warning("slow delivery to %s", EMAIL)
    event = sentry.wait_for_event(lambda e: (e.get("logentry") or {}).get("message", "").startswith("no account for"))
    assert_scrubbed(event)
    assert event["logentry"]["formatted"] == "no account for [email] with token=[Filtered]"
    assert event["level"] == "error" and event["logger"] == "portal.sign_in"
    sentry_sdk.flush(timeout=5)  # log lines go in batches
    line = sentry.wait_for_log(lambda entry: "slow delivery to" in entry.get("body", ""))
    assert line["body"] == "slow delivery to [email]" and line["level"] == "warn"
    assert EMAIL not in event_text(line)
    assert not any("slow delivery" in event_text(e) for e in sentry.events)  # a warning is no issue


def test_what_a_browser_boundary_caught_reaches_sentry_scrubbed(sentry: SentryServer, caplog):
    error_reporting.report_browser_error(
        "table AdminTestsState",
        f"TypeError: Cannot read properties of undefined (reading '{EMAIL}')\n    at Row (table.js:3:9)",
        "\n    at Row\n    at DataTable",
    )
    on_frontend_exception(Exception(f"[SID: abc] state_update: failed /reset?token={TOKEN}"))
    table = sentry.wait_for_event(lambda e: "TypeError" in exception_types(e))
    assert_scrubbed(table)
    assert table["tags"] == {"source": "browser", "boundary": "table AdminTestsState"}
    assert table["contexts"]["browser_error"]["component_stack"] == "\n    at Row\n    at DataTable"
    assert table["exception"]["values"][0]["value"] == "Cannot read properties of undefined (reading '[email]')"
    reflex = sentry.wait_for_event(lambda e: "state_update" in event_text(e))
    assert_scrubbed(reflex)
    sentry_sdk.flush(timeout=5)
    assert len(sentry.events) == 2  # their log lines are not sent again
    assert "the browser failed to render table AdminTestsState: TypeError" in caplog.text
