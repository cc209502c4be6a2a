"""/api/v1/webhooks: a key's webhook subscriptions (issue 39, item 4), and the events there are.

Each delivery is a POST of `{"type", "timestamp", "data"}` signed by the Standard Webhooks scheme (headers
webhook-id, webhook-timestamp, webhook-signature) with the subscription's secret, retried with backoff for more
than 24 hours until the receiver answers 2xx; webhook-id is the event's id, the same on every retry."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Response

from portal import db
from portal.api.deps import ApiCaller, scoped
from portal.api.errors import NotFound
from portal.api.schemas.webhooks import (
    CreatedSubscriptionOut,
    EventList,
    EventOut,
    SubscriptionIn,
    SubscriptionList,
    SubscriptionOut,
)
from portal.domain import webhooks as rules
from portal.services import webhooks as service

router = APIRouter(tags=["webhooks"])
SCOPE = "webhooks:write"


@router.get("/webhooks/events", response_model=EventList, summary="The events a subscription may receive")
async def list_webhook_events(caller: Annotated[ApiCaller, scoped(SCOPE)]) -> EventList:
    return EventList(data=[EventOut(name=name, description=label) for name, label in rules.EVENTS.items()])


@router.post(
    "/webhooks/subscriptions",
    status_code=201,
    response_model=CreatedSubscriptionOut,
    summary="Subscribe a URL to events (the signing secret is in this answer only)",
)
async def create_webhook_subscription(
    body: SubscriptionIn, caller: Annotated[ApiCaller, scoped(SCOPE)]
) -> CreatedSubscriptionOut:
    made = await db.run(service.subscribe, actor_id=caller.actor, url=body.url, events=list(body.events))
    return CreatedSubscriptionOut(
        id=made.id, url=made.url, events=made.events, created_at=made.created_at, secret=made.secret
    )


@router.get("/webhooks/subscriptions", response_model=SubscriptionList, summary="This key's subscriptions")
async def list_webhook_subscriptions(caller: Annotated[ApiCaller, scoped(SCOPE)]) -> SubscriptionList:
    found = await db.run(service.list_subscriptions, actor_id=caller.actor)
    return SubscriptionList(
        data=[SubscriptionOut(id=s.id, url=s.url, events=s.events, created_at=s.created_at) for s in found]
    )


@router.delete(
    "/webhooks/subscriptions/{subscription_id}",
    status_code=204,
    response_class=Response,
    summary="Remove one of this key's subscriptions",
)
async def delete_webhook_subscription(
    subscription_id: Annotated[int, Path(ge=1, le=2**31 - 1)], caller: Annotated[ApiCaller, scoped(SCOPE)]
) -> Response:
    try:
        await db.run(service.unsubscribe, actor_id=caller.actor, subscription_id=subscription_id)
    except service.SubscriptionNotFound as err:
        raise NotFound(err.message) from None
    return Response(status_code=204)
