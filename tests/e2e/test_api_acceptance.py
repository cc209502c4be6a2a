"""Issue 39's acceptance, as an integrator does it: a client generated from /api/v1/openapi.json by
openapi-python-client creates a survey, launches it and invites the demo participant, who takes it in the browser;
the client receives the signed `review.submitted` webhook (verified by the `standardwebhooks` package on a real
receiver), approves the review with an Idempotency-Key (twice: one decision), and reads the reward. Then the
interactive docs at /api/docs, served by the portal itself, list the same operations."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect
from sqlmodel import select

from portal.domain import api_keys
from portal.models import Account, AuditEntry, Test
from portal.services.admin.api_keys import create_key
from portal.services.seeding import DEMO_ADMIN, DEMO_PARTICIPANT
from tests.e2e.helpers import sign_in
from tests.support.generated_client import generate, submodule
from tests.support.polling import polled
from tests.support.webhook_receiver import WebhookReceiver


def definition(name: str) -> dict:
    return {
        "name": name,
        "status": "draft",
        "panel": "b2b",
        "productType": "survey",
        "audienceCountry": "US",
        "sessionSeconds": 900,
        "payoutCents": 2500,
        "survey": {
            "welcomePage": {"title": "Reporting tools", "description": "Two questions about how you read reports."},
            "questions": [
                {
                    "key": "format",
                    "type": "single-choice",
                    "text": "How do you prefer to receive research results?",
                    "isRequired": True,
                    "options": [
                        {"value": "dashboard", "label": "A live dashboard"},
                        {"value": "slides", "label": "A slide deck"},
                    ],
                },
                {"key": "tool", "type": "short-text", "text": "Which BI tool does your team use?", "isRequired": True},
            ],
        },
    }


def plain(value: object) -> object:
    """A generated enum member's value (a plain string stays as it is)."""
    return getattr(value, "value", value)


def an_api_key(app_server) -> str:
    with app_server.db() as db:
        admin = db.exec(select(Account).where(Account.email == DEMO_ADMIN.email)).one()
        made = create_key(db, actor_id=admin.id, name="acceptance client", scopes=list(api_keys.SCOPES))
        db.commit()
        return made.key


@pytest.fixture
def made_tests(app_server) -> Iterator[list[int]]:
    """The tests this run makes through the API, deleted afterwards with their invites, reviews and rewards: the demo
    participant's home tables stay as the other browser tests expect them (13 invites)."""
    made: list[int] = []
    yield made
    with app_server.db() as db:
        for test_id in made:
            found = db.get(Test, test_id)
            if found is not None:
                db.delete(found)
        db.commit()


def test_a_generated_client_runs_a_survey_from_creation_to_the_reward(
    page: Page, app_server, tmp_path: Path, made_tests: list[int]
):
    client_package = generate(f"{app_server.url}/api/v1/openapi.json", tmp_path / "client")

    def call(name: str):
        return submodule(client_package, f"api.{name}")

    models = submodule(client_package, "models")
    client = client_package.AuthenticatedClient(base_url=f"{app_server.url}/api/v1", token=an_api_key(app_server))

    with WebhookReceiver() as receiver:
        # Subscribe to review.submitted: the secret is in this answer only.
        subscribed = call("webhooks.create_webhook_subscription").sync_detailed(
            client=client,
            body=models.SubscriptionIn(url=receiver.url, events=[models.SubscriptionInEventsItem("review.submitted")]),
        )
        assert subscribed.status_code == 201, subscribed.content
        receiver.secret = subscribed.parsed.secret

        # Create the survey (a draft), then launch it.
        name = f"API survey {uuid.uuid4().hex[:8]}"
        created = call("tests.create_test").sync_detailed(
            client=client, body=models.TestDefinitionIn.from_dict(definition(name))
        )
        assert created.status_code == 201, created.content
        test_id = created.parsed.id
        made_tests.append(test_id)
        assert plain(created.parsed.status) == "draft"
        launched = call("tests.launch_test").sync_detailed(test_id, client=client)
        assert launched.status_code == 200, launched.content
        assert plain(launched.parsed.status) == "running"

        # Invite the demo participant, found by the API's participant search.
        found = call("participants.list_participants").sync_detailed(client=client, search=DEMO_PARTICIPANT.email)
        assert found.status_code == 200, found.content
        [participant] = [p for p in found.parsed.data if p.email == DEMO_PARTICIPANT.email]
        invited = call("invites.send_invites").sync_detailed(
            test_id,
            client=client,
            body=models.SendInvitesIn(participant_ids=[participant.id]),
            idempotency_key=str(uuid.uuid4()),
        )
        assert invited.status_code == 201, invited.content
        assert invited.parsed.sent == 1
        invites = call("invites.list_invites").sync_detailed(test_id, client=client)
        [invite] = invites.parsed.data
        assert invite.participant_id == participant.id

        # The participant takes it in the browser.
        sign_in(page, app_server.url, DEMO_PARTICIPANT.email, DEMO_PARTICIPANT.password)
        page.goto(f"{app_server.url}/test/{test_id}/rate")
        expect(page.locator("#survey-welcome")).to_be_visible()
        page.click("#start-survey")
        page.locator("label.survey-option", has_text="A live dashboard").click()
        page.click("#survey-continue")
        page.fill("#survey-text", "Looker")
        page.click("#survey-submit")
        expect(page.locator("#thank-you-title")).to_have_text("Thank you!")

        # The signed webhook arrives (verified by the receiver with the subscription's secret).
        events = polled(lambda: receiver.of_type("review.submitted"), bool, timeout=60)
        assert len(events) == 1, f"review.submitted arrived {len(events)} times"
        [event] = events
        assert event["data"]["test_id"] == test_id
        review_id = event["data"]["review_id"]
        assert receiver.refused == []

        # The client reads the review with its answers and approves it with an Idempotency-Key, twice: one decision.
        review = call("reviews.get_review").sync_detailed(review_id, client=client)
        assert review.status_code == 200, review.content
        assert plain(review.parsed.status) == "submitted"
        key = str(uuid.uuid4())
        first = call("reviews.approve_review").sync_detailed(review_id, client=client, idempotency_key=key)
        again = call("reviews.approve_review").sync_detailed(review_id, client=client, idempotency_key=key)
        assert first.status_code == again.status_code == 200, first.content
        assert first.content == again.content
        assert again.headers.get("idempotent-replayed") == "true"

        # The reward: the invite's amount (the incentive table's, for the day the test runs), approved.
        rewards = call("rewards.list_rewards").sync_detailed(client=client, test_id=test_id)
        assert rewards.status_code == 200, rewards.content
        [reward] = rewards.parsed.data
        assert reward.amount_cents == invite.amount_cents
        assert reward.participant_id == participant.id
        assert plain(reward.status) == "PENDING" and reward.payable  # approved, not paid yet

    with app_server.db() as db:
        approvals = db.exec(
            select(AuditEntry).where(AuditEntry.action == "review.approve", AuditEntry.target_id == str(review_id))
        ).all()
        assert len(approvals) == 1 and approvals[0].api_key_id is not None

    # The docs, served by the portal: Swagger UI lists the operations the client was generated from.
    page.goto(f"{app_server.url}/api/docs")
    expect(page.get_by_role("heading", name="Participant portal API")).to_be_visible(timeout=30000)
    expect(page.locator("#operations-reviews-approve_review")).to_be_visible()
    shots = Path(os.environ.get("SCREENSHOT_DIR", "/tmp/api-shots"))
    shots.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shots / "api-docs-1280.png"))
    page.set_viewport_size({"width": 375, "height": 800})
    expect(page.locator("#operations-reviews-approve_review")).to_be_visible()
    page.screenshot(path=str(shots / "api-docs-375.png"))
