"""What an error report may carry (portal/domain/error_scrubbing.py) and how a browser's crash report
is read (portal/domain/browser_errors.py)."""

from __future__ import annotations

import json

import pytest

from portal.domain import browser_errors
from portal.domain.error_scrubbing import FILTERED, scrub_breadcrumb, scrub_event, scrub_log, scrub_text, scrub_url

# A fixed value shaped like secrets.token_urlsafe(32): test ids must be the same in every pytest-xdist worker.
TOKEN = "KqIFAM4suQhRm4_8q2xDVoQi8hfmeQdEbf4Hha72Vqg"


@pytest.mark.parametrize(
    "text, gone, kept",
    [
        ("no account for dana.reviewer+x@example.co.uk", "dana.reviewer+x@example.co.uk", "no account for [email]"),
        (
            f"GET /api/account/verify-email?token={TOKEN}&next=/",
            TOKEN,
            "/api/account/verify-email?token=[Filtered]&next=/",
        ),
        ("callback?code=abc123&state=xyz789", "abc123", "code=[Filtered]&state=[Filtered]"),
        ('{"token": "opaque-value", "test_id": 7}', "opaque-value", '"test_id": 7'),
        ("Authorization: Bearer eyJhbGciOi.payload.sig", "eyJhbGciOi", "Authorization: [Filtered]"),
        ("sent with Bearer eyJhbGciOi.payload.sig", "eyJhbGciOi", "sent with Bearer [Filtered]"),
        (f"Cookie: portal_session={TOKEN}; theme=light", TOKEN, "theme=light"),
        (f"reset link /reset/{TOKEN} used twice", TOKEN, "reset link /reset/[Filtered] used twice"),
        ("failed sign-in from 203.0.113.9", "203.0.113.9", "failed sign-in from [ip]"),
    ],
)
def test_a_text_loses_e_mails_tokens_and_addresses(text, gone, kept):
    scrubbed = scrub_text(text)
    assert gone not in scrubbed
    assert kept in scrubbed


@pytest.mark.parametrize(
    "text",
    [
        "TypeError: Cannot read properties of undefined (reading 'read')",
        "unhandled error in POST /api/account/sign-in: OperationalError: database is locked",
        "File portal/services/_apply_data_collection_filtering_to_query_string.py, line 12",
        "trace 0123456789abcdef0123456789abcdef, test 5b0c1f7e-3f7a-4c1e-9a57-0d3c9a1f2b44",
        "version 3.11.4",
    ],
)
def test_what_helps_find_the_error_is_kept(text):
    assert scrub_text(text) == text


def test_a_url_keeps_its_path_only():
    assert scrub_url(f"https://user:pw@portal.example.com/reset?token={TOKEN}#x") == "https://portal.example.com/reset"
    assert scrub_url(None) is None


def event_with_everything() -> dict:
    return {
        "event_id": "0" * 32,
        "level": "error",
        "user": {"id": "7", "email": "dana@example.com", "ip_address": "203.0.113.9"},
        "request": {
            "method": "POST",
            "url": f"http://localhost:3000/api/account/sign-in?token={TOKEN}",
            "query_string": f"token={TOKEN}",
            "headers": {
                "User-Agent": "Chromium",
                "Cookie": f"portal_session={TOKEN}",
                "Authorization": "Bearer abc.def.ghi",
                "X-Forwarded-For": "203.0.113.9",
            },
            "cookies": {"portal_session": TOKEN},
            "data": {"email": "dana@example.com", "password": "Demo-Participant-2026!"},
            "env": {"REMOTE_ADDR": "203.0.113.9"},
        },
        "exception": {
            "values": [
                {
                    "type": "OperationalError",
                    "value": (
                        "database is locked [SQL: INSERT INTO login_failure (email) VALUES (?)] "
                        "[parameters: ('dana@example.com',)]"
                    ),
                    "stacktrace": {
                        "frames": [
                            {
                                "function": "sign_in",
                                "filename": "portal/http/account_routes.py",
                                "lineno": 60,
                                "context_line": "    email, password = _text(body, 'email'), _text(body, 'password')",
                                "vars": {"email": "dana@example.com", "password": "Demo-Participant-2026!"},
                            }
                        ]
                    },
                }
            ]
        },
        "logentry": {
            "message": "sign-in failed for %s",
            "params": ["dana@example.com"],
            "formatted": "sign-in failed for dana@example.com",
        },
        "breadcrumbs": {
            "values": [
                {
                    "category": "httplib",
                    "data": {"url": f"https://oidc.example/token?code={TOKEN}", "http.query": f"code={TOKEN}"},
                },
                {
                    "category": "query",
                    "message": "SELECT 1 WHERE email = 'dana@example.com'",
                    "data": {"db.params": ["dana@example.com"]},
                },
            ]
        },
        "extra": {
            "answers": {"q1": "We pay too much for software"},
            "draft": "text",
            "count": 3,
            "note": "from dana@example.com",
        },
        "contexts": {
            "trace": {"trace_id": "a" * 32, "span_id": "b" * 16},
            "browser_error": {"component_stack": "at Survey"},
        },
        "tags": {"boundary": "page"},
    }


def test_an_event_leaves_without_personal_data_or_credentials():
    event = scrub_event(event_with_everything())
    text = json.dumps(event)
    for secret in (
        "dana@example.com",
        TOKEN,
        "Demo-Participant-2026!",
        "203.0.113.9",
        "abc.def.ghi",
        "We pay too much",
    ):
        assert secret not in text
    assert "user" not in event
    assert event["request"] == {
        "method": "POST",
        "url": "http://localhost:3000/api/account/sign-in",
        "headers": {"User-Agent": "Chromium"},
    }
    frame = event["exception"]["values"][0]["stacktrace"]["frames"][0]
    assert "vars" not in frame and frame["function"] == "sign_in" and frame["lineno"] == 60
    assert event["exception"]["values"][0]["type"] == "OperationalError"
    assert "database is locked" in event["exception"]["values"][0]["value"]
    assert event["logentry"]["formatted"] == "sign-in failed for [email]"
    assert (
        event["extra"]["answers"] == FILTERED and event["extra"]["draft"] == FILTERED and event["extra"]["count"] == 3
    )
    assert event["contexts"]["trace"] == {"trace_id": "a" * 32, "span_id": "b" * 16}
    assert event["contexts"]["browser_error"] == {"component_stack": "at Survey"}
    assert event["tags"] == {"boundary": "page"} and event["event_id"] == "0" * 32


def test_odd_shapes_never_raise():
    assert scrub_event(
        {
            "request": "x",
            "exception": {"values": ["x", {"stacktrace": None}]},
            "breadcrumbs": [1, {"message": 2}],
            "logentry": None,
            "contexts": [],
            "extra": {1: "dana@example.com"},
        }
    ) == {
        "request": {},
        "exception": {"values": ["x", {"stacktrace": None}]},
        "breadcrumbs": [{"message": 2}],
        "logentry": None,
        "contexts": [],
        "extra": {1: "[email]"},
    }
    assert scrub_breadcrumb("not a breadcrumb") is None


def test_a_breadcrumb_loses_its_query_and_secrets():
    crumb = scrub_breadcrumb(
        {
            "message": f"sent the link /reset?token={TOKEN} to dana@example.com",
            "data": {"url": f"http://localhost/api?token={TOKEN}", "status_code": 200, "cookie": "a=b"},
        }
    )
    assert crumb == {
        "message": "sent the link /reset?token=[Filtered] to [email]",
        "data": {"url": "http://localhost/api", "status_code": 200, "cookie": FILTERED},
    }


def test_a_log_line_loses_its_secrets():
    record = scrub_log(
        {
            "body": "no account for dana@example.com",
            "severity_text": "warning",
            "attributes": {"sentry.message.parameter.0": "dana@example.com", "logger.name": "portal.sign_in"},
        }
    )
    assert record == {
        "body": "no account for [email]",
        "severity_text": "warning",
        "attributes": {"sentry.message.parameter.0": "[email]", "logger.name": "portal.sign_in"},
    }


def test_a_browser_report_is_read_as_type_message_and_stacks():
    crash = browser_errors.parse(
        "page",
        "TypeError: Cannot read properties of undefined (reading 'read')\n    at Component (x.js:1:2)",
        "\n    at Component\n    at Layout",
    )
    assert (crash.error_type, crash.message) == ("TypeError", "Cannot read properties of undefined (reading 'read')")
    assert crash.stack == "    at Component (x.js:1:2)"
    assert crash.summary == "page: TypeError: Cannot read properties of undefined (reading 'read') (at Component)"


@pytest.mark.parametrize(
    "error, component_stack, expected",
    [
        ({"not": "text"}, ["x"], ("Error", "(no message)", "")),
        ("Script error.", None, ("Error", "Script error.", "")),
        ("[SID: abc] state_update: failed", "", ("Error", "[SID: abc] state_update: failed", "")),
        ("x" * 5000, "y" * 5000, ("Error", "x" * browser_errors.MAX_MESSAGE, "y" * browser_errors.MAX_STACK)),
    ],
)
def test_a_browser_report_of_anything_is_bounded_text(error, component_stack, expected):
    crash = browser_errors.parse("  table\nAdminTestsState ", error, component_stack)
    assert (crash.error_type, crash.message, crash.component_stack) == expected
    assert crash.where == "table AdminTestsState"
