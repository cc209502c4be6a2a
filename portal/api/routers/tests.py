"""/api/v1/tests: list and read tests and their versions (tests:read); create and update them by definition, launch,
schedule, stop, resume and duplicate them (tests:write), through the staff services the pages use
(portal/services/api/tests.py). Writes take an optional Idempotency-Key."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Path, Query
from starlette.responses import JSONResponse

from portal import db
from portal.api import pagination
from portal.api.deps import ApiCaller, scoped
from portal.api.idempotency import OPTIONAL, once
from portal.api.pagination import Cursor, Limit, Page
from portal.api.schemas.tests import (
    DEFINITION,
    EXAMPLE_DEFINITION,
    ProductType,
    ScheduleIn,
    TestDefinitionIn,
    TestDetailOut,
    TestId,
    TestOut,
    TestStatus,
    TestUpdatedOut,
    TestVersionDocumentOut,
    TestVersionsOut,
)
from portal.services.api import tests as service

router = APIRouter(prefix="/tests", tags=["tests"])
READ, WRITE = "tests:read", "tests:write"
Definition = Annotated[
    TestDefinitionIn, Body(description=DEFINITION, openapi_examples={"survey": {"value": EXAMPLE_DEFINITION}})
]
STATE: dict[int | str, dict[str, Any]] = {
    409: {"description": "The test's status does not allow this now (the message says why)."}
}


def _detail(found: dict[str, Any]) -> dict[str, Any]:
    return TestDetailOut.model_validate(found).model_dump(mode="json")


@router.get(
    "",
    response_model=Page[TestOut],
    summary="List tests",
    description="Tests newest first, `limit` a page; filter by status or product type.",
)
async def list_tests(
    caller: Annotated[ApiCaller, scoped(READ)],
    cursor: Cursor = None,
    limit: Limit = pagination.DEFAULT_LIMIT,
    status: Annotated[TestStatus | None, Query(description="Only tests with this status.")] = None,
    product_type: Annotated[ProductType | None, Query(description="Only tests of this product type.")] = None,
) -> Page[TestOut]:
    after = pagination.decode(cursor)
    found = await db.run(
        service.list_tests,
        actor_id=caller.actor,
        after=after,
        limit=limit,
        status=status,
        product_type=product_type,
    )
    return pagination.page_of(TestOut, found)


@router.get(
    "/{test_id}",
    response_model=TestDetailOut,
    summary="Read a test and its definition",
    description="The test and its definition document, as the export writes it (it imports back unchanged).",
)
async def get_test(caller: Annotated[ApiCaller, scoped(READ)], test_id: TestId) -> TestDetailOut:
    return TestDetailOut.model_validate(await db.run(service.read_test, actor_id=caller.actor, test_id=test_id))


@router.post(
    "",
    status_code=201,
    response_model=TestDetailOut,
    summary="Create a test from a definition",
    description="Checked as the import checks a file: every problem is answered under its path (422), nothing is "
    "written then. A name another test has answers 409 (update that test with PUT). A new test is a draft, ready to "
    "launch or running.",
    responses={409: {"description": "Another test has this name."}},
)
async def create_test(
    caller: Annotated[ApiCaller, scoped(WRITE)],
    definition: Definition,
    idempotency_key: OPTIONAL = None,
) -> JSONResponse:
    def work(session: Any) -> tuple[int, Any]:
        return 201, _detail(service.create_test(session, actor_id=caller.actor, document=definition.root))

    return await once(
        caller=caller, key=idempotency_key, method="POST", path="/tests", payload=definition.root, work=work
    )


@router.put(
    "/{test_id}",
    response_model=TestUpdatedOut,
    summary="Update a test by its definition",
    description="The whole definition replaces the test's (the import's checks; the name may change to one no "
    "other test has). The status is not changed here: launch, schedule, stop or resume the test. When the newest "
    "version is in use (people are taking it or submitted on it), a change answers 409 with the warning and the "
    "version number: send it again with `confirm` set to that number to save it as the next version.",
    responses={409: {"description": "The version is in use (confirm it), or the name is another test's."}},
)
async def update_test(
    caller: Annotated[ApiCaller, scoped(WRITE)],
    test_id: TestId,
    definition: Definition,
    confirm: Annotated[
        int | None,
        Query(ge=1, le=1_000_000, description="The version number a 409's warning named: saves a new version."),
    ] = None,
    idempotency_key: OPTIONAL = None,
) -> JSONResponse:
    def work(session: Any) -> tuple[int, Any]:
        found = service.update_test(
            session, actor_id=caller.actor, test_id=test_id, document=definition.root, confirm=confirm
        )
        return 200, TestUpdatedOut.model_validate(found).model_dump(mode="json")

    return await once(
        caller=caller,
        key=idempotency_key,
        method="PUT",
        path=f"/tests/{test_id}",
        payload={"definition": definition.root, "confirm": confirm},
        work=work,
    )


@router.get(
    "/{test_id}/versions",
    response_model=TestVersionsOut,
    summary="List a test's versions",
    description="Every version of the test, newest first, with how many take it now and submitted on it.",
)
async def list_test_versions(caller: Annotated[ApiCaller, scoped(READ)], test_id: TestId) -> TestVersionsOut:
    found = await db.run(service.list_versions, actor_id=caller.actor, test_id=test_id)
    return TestVersionsOut.model_validate({"data": found})


@router.get(
    "/{test_id}/versions/{number}",
    response_model=TestVersionDocumentOut,
    summary="Read one version of a test",
    description="What the version asks: the versioned fields of the definition as they were in it.",
)
async def get_test_version(
    caller: Annotated[ApiCaller, scoped(READ)],
    test_id: TestId,
    number: Annotated[int, Path(ge=1, le=1_000_000, description="The version's number.")],
) -> TestVersionDocumentOut:
    found = await db.run(service.read_version, actor_id=caller.actor, test_id=test_id, number=number)
    return TestVersionDocumentOut.model_validate(found)


async def _change(caller: ApiCaller, key: str | None, test_id: int, action: str, payload: Any, call: Any) -> Any:
    def work(session: Any) -> tuple[int, Any]:
        return 200, _detail(call(session))

    return await once(
        caller=caller, key=key, method="POST", path=f"/tests/{test_id}/{action}", payload=payload, work=work
    )


@router.post(
    "/{test_id}/launch",
    response_model=TestDetailOut,
    summary="Launch a test now",
    description="The test starts running now (day 1 of the incentive table when it first runs). A test whose "
    "definition has problems, or whose status cannot become running, answers 409.",
    responses=STATE,
)
async def launch_test(
    caller: Annotated[ApiCaller, scoped(WRITE)], test_id: TestId, idempotency_key: OPTIONAL = None
) -> JSONResponse:
    return await _change(
        caller,
        idempotency_key,
        test_id,
        "launch",
        {},
        lambda s: service.launch_test(s, actor_id=caller.actor, test_id=test_id),
    )


@router.post(
    "/{test_id}/schedule",
    response_model=TestDetailOut,
    summary="Schedule a test's launch",
    description="The test becomes scheduled and starts running at `at` (UTC, to the minute; seconds are dropped). "
    "A time in the past answers 422; a status that cannot become scheduled 409.",
    responses=STATE,
)
async def schedule_test(
    caller: Annotated[ApiCaller, scoped(WRITE)],
    test_id: TestId,
    body: ScheduleIn,
    idempotency_key: OPTIONAL = None,
) -> JSONResponse:
    return await _change(
        caller,
        idempotency_key,
        test_id,
        "schedule",
        body.model_dump(mode="json"),
        lambda s: service.schedule_test(s, actor_id=caller.actor, test_id=test_id, at=body.at),
    )


@router.post(
    "/{test_id}/stop",
    response_model=TestDetailOut,
    summary="Stop a running test",
    description="Nobody new starts the test; people taking it may finish. Only a running test can be stopped (409).",
    responses=STATE,
)
async def stop_test(
    caller: Annotated[ApiCaller, scoped(WRITE)], test_id: TestId, idempotency_key: OPTIONAL = None
) -> JSONResponse:
    return await _change(
        caller,
        idempotency_key,
        test_id,
        "stop",
        {},
        lambda s: service.stop_test(s, actor_id=caller.actor, test_id=test_id),
    )


@router.post(
    "/{test_id}/resume",
    response_model=TestDetailOut,
    summary="Resume a stopped test",
    description="The test runs again. Only a stopped test whose definition has no problems can be resumed (409).",
    responses=STATE,
)
async def resume_test(
    caller: Annotated[ApiCaller, scoped(WRITE)], test_id: TestId, idempotency_key: OPTIONAL = None
) -> JSONResponse:
    return await _change(
        caller,
        idempotency_key,
        test_id,
        "resume",
        {},
        lambda s: service.resume_test(s, actor_id=caller.actor, test_id=test_id),
    )


@router.post(
    "/{test_id}/duplicate",
    status_code=201,
    response_model=TestDetailOut,
    summary="Duplicate a test",
    description="A draft copy of the test's definition and settings named 'Copy of <name>' (' (2)' and so on when "
    "taken); never its sessions, reviews or invites.",
)
async def duplicate_test(
    caller: Annotated[ApiCaller, scoped(WRITE)], test_id: TestId, idempotency_key: OPTIONAL = None
) -> JSONResponse:
    def work(session: Any) -> tuple[int, Any]:
        return 201, _detail(service.duplicate_test(session, actor_id=caller.actor, test_id=test_id))

    return await once(
        caller=caller,
        key=idempotency_key,
        method="POST",
        path=f"/tests/{test_id}/duplicate",
        payload={},
        work=work,
    )
