"""The rules of webhooks (issue 39, item 4): the retry schedule reaches beyond a day and then gives up, URLs are
https to a public host (http and loopback only when the portal itself runs on loopback), the event names, and the
secret and event id forms Standard Webhooks uses."""

from __future__ import annotations

import base64
from datetime import UTC, datetime, timedelta

import pytest
from standardwebhooks import Webhook

from portal.domain import webhooks as rules
from portal.services.webhook_sender import body_of, signed_headers


def test_the_schedule_retries_for_more_than_a_day_then_gives_up():
    delays = []
    made = 0
    while (delay := rules.next_delay(made)) is not None:
        delays.append(delay)
        made += 1
    assert made == rules.MAX_ATTEMPTS == 9
    assert delays[0] == timedelta(0)  # the first attempt at once
    assert delays == sorted(delays)  # backing off, never sooner
    span = sum(delays, timedelta(0))
    assert span == rules.schedule_span() > timedelta(hours=24)
    assert span - delays[-1] > timedelta(hours=24)  # even the last-but-one attempt is more than a day later
    assert rules.next_delay(rules.MAX_ATTEMPTS) is None
    assert rules.next_delay(100) is None


def test_an_attempt_an_hour_into_an_outage_is_still_scheduled():
    elapsed, made = timedelta(0), 0
    while elapsed <= timedelta(hours=1):
        delay = rules.next_delay(made)
        assert delay is not None
        elapsed += delay
        made += 1
    assert made < rules.MAX_ATTEMPTS  # attempts remain after an hour of failures


@pytest.mark.parametrize(
    ("url", "local", "message"),
    [
        ("", False, rules.URL_REQUIRED),
        (None, False, rules.URL_REQUIRED),
        (42, False, rules.URL_REQUIRED),
        ("https://" + "a" * 2000 + ".com", False, rules.URL_TOO_LONG),
        ("ftp://example.com/x", False, rules.URL_INVALID),
        ("example.com/hooks", False, rules.URL_INVALID),
        ("https://exa mple.com/", False, rules.URL_INVALID),
        ("https://example.com:port/", False, rules.URL_INVALID),
        ("http://example.com/hooks", False, rules.URL_NOT_HTTPS),
        ("http://example.com/hooks", True, rules.URL_NOT_HTTPS),
        ("https://user:pw@example.com/hooks", False, rules.URL_CREDENTIALS),
        ("https://127.0.0.1/hooks", False, rules.URL_PRIVATE),
        ("https://localhost/hooks", False, rules.URL_PRIVATE),
        ("https://10.1.2.3/hooks", False, rules.URL_PRIVATE),
        ("https://192.168.0.10/hooks", False, rules.URL_PRIVATE),
        ("https://169.254.169.254/latest/meta-data", False, rules.URL_PRIVATE),
        ("https://[::1]/hooks", False, rules.URL_PRIVATE),
        ("https://intranet/hooks", False, rules.URL_PRIVATE),
        ("https://db.internal/hooks", False, rules.URL_PRIVATE),
        ("http://10.1.2.3/hooks", True, rules.URL_NOT_HTTPS),
    ],
)
def test_urls_that_are_refused_say_why(url, local, message):
    assert rules.clean_url(url, local=local) == ("", message)


@pytest.mark.parametrize(
    ("url", "local"),
    [
        ("https://example.com/hooks/portal", False),
        ("  https://hooks.example.org:8443/p?x=1  ", False),
        ("https://93.184.216.34/hooks", False),
        ("http://127.0.0.1:8123/hooks", True),
        ("http://localhost:8123/hooks", True),
        ("https://example.com/hooks", True),
    ],
)
def test_urls_that_are_accepted(url, local):
    clean, problem = rules.clean_url(url, local=local)
    assert problem is None
    assert clean == url.strip()


def test_event_names_and_their_order():
    assert list(rules.EVENTS) == [
        "review.submitted",
        "review.decided",
        "reward.paid",
        "reward.failed",
        "test.full",
        "problem.reported",
    ]
    assert all(rules.EVENTS.values())
    assert rules.clean_events(["test.full", "review.submitted", "test.full"]) == (
        ["review.submitted", "test.full"],
        None,
    )
    assert rules.clean_events([]) == ([], rules.EVENTS_REQUIRED)
    assert rules.clean_events(None) == ([], rules.EVENTS_REQUIRED)
    assert rules.clean_events(["review.deleted"]) == ([], rules.UNKNOWN_EVENT.format(event="review.deleted"))


def test_statuses():
    assert rules.status_of(delivered=False, given_up=False, attempts=0) == rules.PENDING
    assert rules.status_of(delivered=False, given_up=False, attempts=3) == rules.RETRYING
    assert rules.status_of(delivered=True, given_up=False, attempts=3) == rules.DELIVERED
    assert rules.status_of(delivered=False, given_up=True, attempts=9) == rules.FAILED
    assert set(rules.STATUS_LABELS) == set(rules.STATUSES)


def test_secret_and_event_id_forms():
    secret = rules.new_secret()
    assert secret.startswith("whsec_")
    assert len(base64.b64decode(secret.removeprefix("whsec_"))) == 32
    assert secret != rules.new_secret()
    event_id = rules.new_event_id()
    assert event_id.startswith("msg_") and len(event_id) <= 64
    assert event_id != rules.new_event_id()


def test_a_signed_delivery_verifies_with_the_official_package_and_fails_when_changed():
    secret = rules.new_secret()
    body = body_of({"type": "review.submitted", "timestamp": "2026-12-02T10:00:00Z", "data": {"review_id": 7}})
    headers = signed_headers(secret, "msg_abc", body, datetime.now(UTC))
    assert headers["webhook-id"] == "msg_abc"
    assert Webhook(secret).verify(body, headers)["data"] == {"review_id": 7}
    with pytest.raises(Exception, match="signature"):
        Webhook(secret).verify(body.replace("7", "8"), headers)
    with pytest.raises(Exception, match="signature"):
        Webhook(rules.new_secret()).verify(body, headers)
    with pytest.raises(Exception, match="signature"):
        Webhook(secret).verify(body, {**headers, "webhook-id": "msg_other"})


def test_a_host_is_checked_again_by_the_addresses_it_resolves_to_when_sent():
    assert rules.resolved_problem(["93.184.215.14"]) is None
    assert rules.resolved_problem(["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"]) is None
    for private in (["127.0.0.1"], ["10.1.2.3"], ["93.184.215.14", "169.254.169.254"], ["::1"], ["fe80::1%eth0"], []):
        assert rules.resolved_problem(private) == rules.RESOLVED_PRIVATE, private
