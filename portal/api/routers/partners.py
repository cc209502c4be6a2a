"""/api/v1/completion-codes: check a crowd-work worker's completion code (issue 39, item 5)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path
from pydantic import BaseModel, Field

from portal import db
from portal.api.deps import ApiCaller, scoped
from portal.api.errors import ERRORS
from portal.services.api import partners as service

router = APIRouter(tags=["partners"])

Code = Annotated[str, Path(min_length=1, max_length=40, description="The code the worker was shown.")]


class CompletionCodeOut(BaseModel):
    code: str = Field(description="The code, as the portal gave it (upper case, no spaces).")
    valid: bool = Field(description="The review it names stands (submitted or approved).")
    test_id: int
    review_id: int
    worker_id: str | None = Field(description="The worker id of the link (else the one the worker typed).")
    assignment_id: str | None = Field(description="The crowd-work assignment of the link, when it named one.")
    status: str = Field(description="The review's status: submitted, approved, excluded or rejected.")


@router.get(
    "/completion-codes/{code}",
    response_model=CompletionCodeOut,
    summary="Check a completion code",
    responses={k: v for k, v in ERRORS.items() if k in (401, 403, 404, 422, 429)},
)
async def check_completion_code(caller: Annotated[ApiCaller, scoped("reviews:read")], code: Code) -> CompletionCodeOut:
    """The review a crowd-work completion code names: its test, review, worker, assignment and status. An unknown
    code is 404."""
    found = await db.run(service.check_code, actor_id=caller.actor, code=code)
    return CompletionCodeOut(**found.__dict__)
