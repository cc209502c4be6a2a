"""/api/v1/rewards: list and read rewards; mark one paid, failed or canceled; give a bonus. Every write takes an
Idempotency-Key: a repeat gets the first answer and moves no money twice."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query
from sqlmodel import Session
from starlette.responses import JSONResponse

from portal import db
from portal.api import pagination
from portal.api.deps import ApiCaller, scoped
from portal.api.idempotency import REQUIRED, once
from portal.api.pagination import DEFAULT_LIMIT, Cursor, Limit, Page, decode
from portal.api.schemas.rewards import BonusIn, PaymentStatus, RewardKind, RewardOut
from portal.domain.ids import MAX_VALUE
from portal.services.api import rewards as service

router = APIRouter(tags=["rewards"])

RewardId = Annotated[int, Path(ge=1, le=MAX_VALUE, description="The reward's id.")]
IdFilter = Annotated[int | None, Query(ge=1, le=MAX_VALUE)]


@router.get("/rewards", response_model=Page[RewardOut], summary="List rewards")
async def list_rewards(
    caller: Annotated[ApiCaller, scoped("rewards:read")],
    status: Annotated[PaymentStatus | None, Query(description="Only rewards in this payment status.")] = None,
    kind: Annotated[RewardKind | None, Query(description="Only rewards of this kind.")] = None,
    test_id: IdFilter = None,
    participant_id: IdFilter = None,
    cursor: Cursor = None,
    limit: Limit = DEFAULT_LIMIT,
) -> Page[RewardOut]:
    """Rewards newest first, of one test, one participant, one payment status or kind when asked."""
    listed = await db.run(
        service.list_rewards,
        actor_id=caller.actor,
        status=status,
        kind=kind,
        test_id=test_id,
        participant_id=participant_id,
        after=decode(cursor),
        limit=limit,
    )
    return pagination.page_of(RewardOut, listed)


@router.get("/rewards/{reward_id}", response_model=RewardOut, summary="Read one reward")
async def get_reward(caller: Annotated[ApiCaller, scoped("rewards:read")], reward_id: RewardId) -> RewardOut:
    return RewardOut.model_validate(await db.run(service.read_reward, actor_id=caller.actor, reward_id=reward_id))


async def _mark(caller: ApiCaller, key: str, reward_id: int, mark: str) -> JSONResponse:
    def work(session: Session) -> tuple[int, Any]:
        answer = service.mark(session, actor_id=caller.actor, reward_id=reward_id, mark=mark)
        return 200, RewardOut.model_validate(answer).model_dump(mode="json")

    return await once(caller=caller, key=key, method="POST", path=f"/rewards/{reward_id}/{mark}", payload={}, work=work)


@router.post("/rewards/{reward_id}/paid", response_model=RewardOut, summary="Mark a reward paid")
async def mark_reward_paid(
    caller: Annotated[ApiCaller, scoped("rewards:write")], reward_id: RewardId, idempotency_key: REQUIRED
) -> JSONResponse:
    """An approved, unpaid reward (or a failed payment retried) is marked paid today; others answer 409."""
    return await _mark(caller, idempotency_key, reward_id, "paid")


@router.post("/rewards/{reward_id}/failed", response_model=RewardOut, summary="Mark a reward's payment failed")
async def mark_reward_failed(
    caller: Annotated[ApiCaller, scoped("rewards:write")], reward_id: RewardId, idempotency_key: REQUIRED
) -> JSONResponse:
    """Only a payment that was due (approved, unpaid) can fail; others answer 409."""
    return await _mark(caller, idempotency_key, reward_id, "failed")


@router.post("/rewards/{reward_id}/canceled", response_model=RewardOut, summary="Cancel a reward")
async def cancel_reward(
    caller: Annotated[ApiCaller, scoped("rewards:write")], reward_id: RewardId, idempotency_key: REQUIRED
) -> JSONResponse:
    """An unpaid reward not on its way through the payout provider is canceled; others answer 409."""
    return await _mark(caller, idempotency_key, reward_id, "canceled")


@router.post("/rewards/bonuses", response_model=RewardOut, status_code=201, summary="Give a participant a bonus")
async def create_bonus(
    caller: Annotated[ApiCaller, scoped("rewards:write")], body: BonusIn, idempotency_key: REQUIRED
) -> JSONResponse:
    """A bonus for a review of the participant's, or a test they took part in: a reward of its own (kind `bonus`),
    payable at once. The same Idempotency-Key gives one bonus however often it is sent."""

    def work(session: Session) -> tuple[int, Any]:
        answer = service.give_bonus(
            session,
            actor_id=caller.actor,
            participant_id=body.participant_id,
            review_id=body.review_id,
            test_id=body.test_id,
            amount_cents=body.amount_cents,
            note=body.note,
        )
        return 201, RewardOut.model_validate(answer).model_dump(mode="json")

    return await once(
        caller=caller,
        key=idempotency_key,
        method="POST",
        path="/rewards/bonuses",
        payload=body.model_dump(mode="json"),
        work=work,
    )
