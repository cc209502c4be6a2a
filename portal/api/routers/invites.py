"""/api/v1 invites: a test's invites (list), a batch sent to a filtered set (its Idempotency-Key required: 100
identical requests send one batch and get one answer), a preview of who it would reach, and an open invite canceled.
Every route needs the scope invites:write (its label: list, send and cancel invites); the services are the invite
page's (portal/services/api/invites.py)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from starlette.responses import JSONResponse

from portal import db
from portal.api import pagination
from portal.api.deps import ApiCaller, scoped
from portal.api.idempotency import OPTIONAL, REQUIRED, once
from portal.api.pagination import Cursor, Limit, Page
from portal.api.schemas.invites import (
    InviteAudienceOut,
    InviteBatchOut,
    InviteId,
    InviteOut,
    InviteStatus,
    SendInvitesIn,
)
from portal.api.schemas.tests import TestId
from portal.domain.ids import MAX_VALUE
from portal.services.api import invites as service

router = APIRouter(tags=["invites"])
SCOPE = "invites:write"


def _criteria(body: SendInvitesIn) -> dict[str, Any]:
    filters = [f.model_dump() for f in body.filters]
    return service.criteria(body.search, filters, body.participant_ids)


@router.get(
    "/tests/{test_id}/invites",
    response_model=Page[InviteOut],
    summary="List a test's invites",
    description="The test's invites newest first, `limit` a page; filter by status or participant.",
)
async def list_invites(
    caller: Annotated[ApiCaller, scoped(SCOPE)],
    test_id: TestId,
    cursor: Cursor = None,
    limit: Limit = pagination.DEFAULT_LIMIT,
    status: Annotated[InviteStatus | None, Query(description="Only invites with this status.")] = None,
    participant_id: Annotated[int | None, Query(ge=1, le=MAX_VALUE, description="Only this participant's.")] = None,
) -> Page[InviteOut]:
    after = pagination.decode(cursor)
    found = await db.run(
        service.list_invites,
        actor_id=caller.actor,
        test_id=test_id,
        after=after,
        limit=limit,
        status=status,
        participant_id=participant_id,
    )
    return pagination.page_of(InviteOut, found)


@router.post(
    "/tests/{test_id}/invites/preview",
    response_model=InviteAudienceOut,
    summary="Preview who a batch of invites would reach",
    description="The invite page's figures for these criteria: who matches, who cannot be invited and why, who a "
    "batch would invite now and what it would cost. Nothing is sent.",
)
async def preview_invites(
    caller: Annotated[ApiCaller, scoped(SCOPE)], test_id: TestId, body: SendInvitesIn
) -> InviteAudienceOut:
    chosen = _criteria(body)
    found = await db.run(
        service.preview, actor_id=caller.actor, test_id=test_id, chosen=chosen, override_cents=body.payout_cents
    )
    return InviteAudienceOut.model_validate(found)


@router.post(
    "/tests/{test_id}/invites",
    status_code=201,
    response_model=InviteBatchOut,
    summary="Invite a filtered set of participants",
    description="Sends one batch of invites to everyone the criteria choose whom the invite rule lets in, and "
    "answers the batch as it ended. Requires an `Idempotency-Key`: a repeat (or 100 identical requests at once) "
    "sends one batch and gets the same answer. A test that is not running, or whose quotas are full, answers 409; "
    "criteria that reach nobody 422.",
    responses={409: {"description": "The test is not running, or its quotas are full."}},
)
async def send_invites(
    caller: Annotated[ApiCaller, scoped(SCOPE)],
    test_id: TestId,
    body: SendInvitesIn,
    idempotency_key: REQUIRED,
) -> JSONResponse:
    chosen = _criteria(body)

    def work(session: Any) -> tuple[int, Any]:
        sent = service.send(
            session, actor_id=caller.actor, test_id=test_id, chosen=chosen, override_cents=body.payout_cents
        )
        return 201, InviteBatchOut.model_validate(sent).model_dump(mode="json")

    return await once(
        caller=caller,
        key=idempotency_key,
        method="POST",
        path=f"/tests/{test_id}/invites",
        payload=body.model_dump(mode="json"),
        work=work,
    )


@router.post(
    "/invites/{invite_id}/cancel",
    response_model=InviteOut,
    summary="Cancel an open invite",
    description="The invite can no longer be used and its place in the test's quota is free again. Only an open "
    "invite (not used, not expired) can be canceled: any other answers 409. Exactly once; an Idempotency-Key makes "
    "a retry answer the same.",
    responses={409: {"description": "The invite is not open."}},
)
async def cancel_invite(
    caller: Annotated[ApiCaller, scoped(SCOPE)], invite_id: InviteId, idempotency_key: OPTIONAL = None
) -> JSONResponse:
    def work(session: Any) -> tuple[int, Any]:
        canceled = service.cancel(session, actor_id=caller.actor, invite_id=invite_id)
        return 200, InviteOut.model_validate(canceled).model_dump(mode="json")

    return await once(
        caller=caller,
        key=idempotency_key,
        method="POST",
        path=f"/invites/{invite_id}/cancel",
        payload={},
        work=work,
    )
