"""/api/v1/tests/{id}/results: the aggregates staff see on the results page (scope results:read), through the page's
own service (portal/services/api/results.py)."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any

from fastapi import APIRouter, Query

from portal import db
from portal.api.deps import ApiCaller, scoped
from portal.api.schemas.results import CompanySize, ResultsOut, Seniority
from portal.api.schemas.tests import TestId
from portal.services.api import results as service

router = APIRouter(tags=["results"])


@router.get(
    "/tests/{test_id}/results",
    response_model=ResultsOut,
    summary="Read a test's results",
    description="The results page's figures: the funnel, timing, each question's summary (shares with their 95% "
    "intervals, means, rankings, matrices, typed answers), a preference test's choices and a highlight test's "
    "areas, for the reviews the filters choose. Excluded and rejected reviews are left out unless `excluded` is "
    "true. A version the test does not have is refused (422).",
)
async def get_results(
    caller: Annotated[ApiCaller, scoped("results:read")],
    test_id: TestId,
    seniority: Annotated[Seniority | None, Query(description="Participants who gave this seniority.")] = None,
    country: Annotated[
        str | None, Query(min_length=2, max_length=2, description="Participants in this country (ISO code).")
    ] = None,
    company_size: Annotated[CompanySize | None, Query(description="Participants of this company size.")] = None,
    version: Annotated[int | None, Query(ge=1, le=999_999, description="Reviews given on this version.")] = None,
    since: Annotated[date | None, Query(description="Submitted on or after this day (UTC).")] = None,
    until: Annotated[date | None, Query(description="Submitted on or before this day (UTC).")] = None,
    excluded: Annotated[bool, Query(description="Also count excluded and rejected reviews.")] = False,
) -> ResultsOut:
    filters: dict[str, Any] = {
        "seniority": seniority,
        "country": country,
        "company_size": company_size,
        "version": str(version) if version is not None else None,
        "since": since.isoformat() if since else None,
        "until": until.isoformat() if until else None,
        "excluded": excluded,
    }
    found = await db.run(service.results, actor_id=caller.actor, test_id=test_id, filters=filters)
    return ResultsOut.model_validate(found)
