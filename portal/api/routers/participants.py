"""/api/v1/participants: search and read participants (as the staff pages do); verify or unverify one."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query
from sqlmodel import Session
from starlette.responses import JSONResponse

from portal import db
from portal.api import pagination
from portal.api.deps import ApiCaller, scoped
from portal.api.idempotency import OPTIONAL, once
from portal.api.pagination import DEFAULT_LIMIT, Cursor, Limit, Page, decode
from portal.api.schemas.participants import ParticipantDetailOut, ParticipantOut, VerifiedOut
from portal.domain.ids import MAX_VALUE
from portal.services.api import participants as service

router = APIRouter(tags=["participants"])

ParticipantId = Annotated[int, Path(ge=1, le=MAX_VALUE, description="The participant's account id.")]


@router.get("/participants", response_model=Page[ParticipantOut], summary="Search participants")
async def list_participants(
    caller: Annotated[ApiCaller, scoped("participants:read")],
    search: Annotated[
        str | None, Query(max_length=service.SEARCH_MAX, description="Part of an e-mail, work e-mail or name.")
    ] = None,
    verified: Annotated[bool | None, Query(description="Only verified (true) or unverified (false) ones.")] = None,
    cursor: Cursor = None,
    limit: Limit = DEFAULT_LIMIT,
) -> Page[ParticipantOut]:
    """Participants (accounts without a staff role) newest first."""
    listed = await db.run(
        service.list_participants,
        actor_id=caller.actor,
        search=search,
        verified=verified,
        after=decode(cursor),
        limit=limit,
    )
    return pagination.page_of(ParticipantOut, listed)


@router.get("/participants/{participant_id}", response_model=ParticipantDetailOut, summary="Read one participant")
async def get_participant(
    caller: Annotated[ApiCaller, scoped("participants:read")], participant_id: ParticipantId
) -> ParticipantDetailOut:
    """The participant's profile as the staff page shows it."""
    found = await db.run(service.read_participant, actor_id=caller.actor, participant_id=participant_id)
    return ParticipantDetailOut.model_validate(found)


async def _verify(caller: ApiCaller, key: str | None, participant_id: int, verified: bool) -> JSONResponse:
    def work(session: Session) -> tuple[int, Any]:
        answer = service.set_verified(session, actor_id=caller.actor, participant_id=participant_id, verified=verified)
        return 200, VerifiedOut.model_validate(answer).model_dump(mode="json")

    path = f"/participants/{participant_id}/{'verify' if verified else 'unverify'}"
    return await once(caller=caller, key=key, method="POST", path=path, payload={}, work=work)


@router.post("/participants/{participant_id}/verify", response_model=VerifiedOut, summary="Verify a participant")
async def verify_participant(
    caller: Annotated[ApiCaller, scoped("participants:write")],
    participant_id: ParticipantId,
    idempotency_key: OPTIONAL = None,
) -> JSONResponse:
    """The participant is verified (one audit row; `changed` is false when they were already)."""
    return await _verify(caller, idempotency_key, participant_id, True)


@router.post("/participants/{participant_id}/unverify", response_model=VerifiedOut, summary="Unverify a participant")
async def unverify_participant(
    caller: Annotated[ApiCaller, scoped("participants:write")],
    participant_id: ParticipantId,
    idempotency_key: OPTIONAL = None,
) -> JSONResponse:
    """The participant's verification is taken away (one audit row; `changed` is false when they were not)."""
    return await _verify(caller, idempotency_key, participant_id, False)
