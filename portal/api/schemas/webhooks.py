"""Request and answer models of /api/v1/webhooks (issue 39, item 4)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal, get_args

from pydantic import BaseModel, Field

from portal.domain import webhooks as rules

EventName = Literal[
    "review.submitted", "review.decided", "reward.paid", "reward.failed", "test.full", "problem.reported"
]
assert set(get_args(EventName)) == set(rules.EVENTS)  # the API documents every event, and only those


class SubscriptionIn(BaseModel):
    url: str = Field(
        max_length=rules.URL_MAX,
        description="Where the events are POSTed: an https:// URL of a public host.",
        examples=["https://example.com/hooks/portal"],
    )
    events: list[EventName] = Field(min_length=1, description="The events to receive (see GET /webhooks/events).")


class SubscriptionOut(BaseModel):
    id: int
    url: str
    events: list[str]
    created_at: datetime


class CreatedSubscriptionOut(SubscriptionOut):
    secret: str = Field(
        description="The Standard Webhooks signing secret (`whsec_...`): shown in this answer only. Verify each "
        "delivery's webhook-signature with it, e.g. `standardwebhooks.Webhook(secret).verify(body, headers)`."
    )


class SubscriptionList(BaseModel):
    data: list[SubscriptionOut]


class EventOut(BaseModel):
    name: str
    description: str


class EventList(BaseModel):
    data: list[EventOut]
