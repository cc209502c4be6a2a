"""/api/v1/reviews: list and read reviews with their answers, version and quality signals; approve, exclude or
reject one (with a reason), or many at once. Decisions take an Idempotency-Key: a repeat gets the first answer."""

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
from portal.api.schemas.reviews import DecisionOut, DecisionsIn, RejectIn, ReviewDetailOut, ReviewOut, ReviewStatus
from portal.domain.ids import MAX_VALUE
from portal.services.api import reviews as service

router = APIRouter(tags=["reviews"])

ReviewId = Annotated[int, Path(ge=1, le=MAX_VALUE, description="The review's id.")]
TestFilter = Annotated[int | None, Query(ge=1, le=MAX_VALUE, description="Only this test's reviews.")]
StatusFilter = Annotated[ReviewStatus | None, Query(description="Only reviews in this status.")]
DECIDED = "What this request decided, and each review as it is now."


@router.get("/reviews", response_model=Page[ReviewOut], summary="List reviews with their answers")
async def list_reviews(
    caller: Annotated[ApiCaller, scoped("reviews:read")],
    test_id: TestFilter = None,
    status: StatusFilter = None,
    cursor: Cursor = None,
    limit: Limit = DEFAULT_LIMIT,
) -> Page[ReviewOut]:
    """Reviews newest first, each with its answers, the version of the test it was given on and its quality flags."""
    listed = await db.run(
        service.list_reviews, actor_id=caller.actor, test_id=test_id, status=status, after=decode(cursor), limit=limit
    )
    return pagination.page_of(ReviewOut, listed)


@router.get("/reviews/{review_id}", response_model=ReviewDetailOut, summary="Read one review")
async def get_review(caller: Annotated[ApiCaller, scoped("reviews:read")], review_id: ReviewId) -> ReviewDetailOut:
    """One review as staff read it: answers, flags, the evidence card of its signals, the decision."""
    found = await db.run(service.read_review, actor_id=caller.actor, review_id=review_id)
    return ReviewDetailOut.model_validate(found)


async def _decide(
    caller: ApiCaller, key: str, path: str, ids: list[int], decision: str, payload: Any, **details: Any
) -> JSONResponse:
    def work(session: Session) -> tuple[int, Any]:
        answer = service.decide(session, actor_id=caller.actor, review_ids=ids, decision=decision, **details)
        return 200, DecisionOut.model_validate(answer).model_dump(mode="json")

    return await once(caller=caller, key=key, method="POST", path=path, payload=payload, work=work)


@router.post("/reviews/{review_id}/approve", response_model=DecisionOut, summary="Approve a review")
async def approve_review(
    caller: Annotated[ApiCaller, scoped("reviews:write")], review_id: ReviewId, idempotency_key: REQUIRED
) -> JSONResponse:
    """The review is approved and its reward becomes payable. A review decided already answers 409."""
    return await _decide(caller, idempotency_key, f"/reviews/{review_id}/approve", [review_id], service.APPROVE, {})


@router.post("/reviews/{review_id}/exclude", response_model=DecisionOut, summary="Exclude a review")
async def exclude_review(
    caller: Annotated[ApiCaller, scoped("reviews:write")], review_id: ReviewId, idempotency_key: REQUIRED
) -> JSONResponse:
    """The participant is paid as on approval, but the review is left out of results and exports by default."""
    return await _decide(caller, idempotency_key, f"/reviews/{review_id}/exclude", [review_id], service.EXCLUDE, {})


@router.post("/reviews/{review_id}/reject", response_model=DecisionOut, summary="Reject a review with a reason")
async def reject_review(
    caller: Annotated[ApiCaller, scoped("reviews:write")],
    review_id: ReviewId,
    body: RejectIn,
    idempotency_key: REQUIRED,
) -> JSONResponse:
    """The review is rejected for one of the listed reasons (the participant reads it, and the note and evidence);
    its reward is canceled."""
    return await _decide(
        caller,
        idempotency_key,
        f"/reviews/{review_id}/reject",
        [review_id],
        service.REJECT,
        body.model_dump(mode="json"),
        reason=body.reason,
        note=body.note,
        flags=body.flags,
        evidence=body.evidence,
    )


@router.post("/reviews/decisions", response_model=DecisionOut, summary="Decide many reviews at once")
async def decide_reviews(
    caller: Annotated[ApiCaller, scoped("reviews:write")], body: DecisionsIn, idempotency_key: REQUIRED
) -> JSONResponse:
    """Approve, exclude or reject (with a reason) every review of the list still waiting for a decision; those
    decided before are left as they are. An id that names no review refuses the whole request (404)."""
    return await _decide(
        caller,
        idempotency_key,
        "/reviews/decisions",
        body.review_ids,
        body.decision,
        body.model_dump(mode="json"),
        reason=body.reason,
        note=body.note,
        flags=body.flags,
        evidence=body.evidence,
    )
