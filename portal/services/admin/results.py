"""Staff: a test's results (issue 35). One query reads the reviews with their participants' attributes, and
one Report (portal/domain/results/report.py) built from those rows feeds the results page, the CSV and the
Excel workbook, so the numbers on the page and in the files always agree."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, time, timedelta
from typing import Any

from sqlalchemy import func, select
from sqlmodel import Session

from portal.domain import highlight_areas
from portal.domain.results import filters as filtering
from portal.domain.results.filters import FilterError, Filters
from portal.domain.results.report import Report, Row, Slot, merged, preference_slots, report, slots
from portal.domain.staff import reviews as decisions
from portal.domain.staff import roles
from portal.domain.taking import kinds
from portal.domain.taking.kinds import highlight
from portal.models import Invite, ParticipantProfile, Review, ReviewSession, Test, TestVersion
from portal.models.profile import ProfileIndustry
from portal.models.reference import Industry
from portal.services.admin import audit
from portal.services.admin.guard import Caller, require_staff
from portal.services.admin.ids import one_id
from portal.services.errors import ServiceError
from portal.services.taking.definitions import content_of
from portal.services.taking.versions import as_of

NO_TEST = "This test does not exist."


@dataclass(frozen=True)
class Funnel:
    invited: int
    started: int
    submitted: int
    approved: int


@dataclass(frozen=True)
class Results:
    """What the results page shows and the exports hold."""

    test_id: int
    name: str
    product_type: str
    filters: Filters
    funnel: Funnel  # the whole test, whatever the filters
    report: Report  # the reviews the filters chose
    slots: list[Slot]
    rows: list[Row]
    versions: list[int]  # the test's version numbers, newest first
    is_preference: bool = False
    screenshot: str = ""  # the screenshot a highlight or pricing test's areas are drawn on
    excluded_left_out: int = 0  # reviews the filters chose but left out as excluded
    industries_read: bool = field(default=False, repr=False)


def _test(session: Session, test_id: Any) -> Test:
    tid = one_id(test_id, NO_TEST)
    test = session.get(Test, tid)
    if test is None:
        raise ServiceError(NO_TEST)
    return test


def _filters(raw: Mapping[str, Any] | Filters | None) -> Filters:
    if isinstance(raw, Filters):
        return raw
    try:
        return filtering.read(raw)
    except FilterError as bad:
        raise ServiceError(bad.message, field=bad.field) from None  # the page shows it by its control


def _day_start(day: Any) -> datetime:
    return datetime.combine(day, time.min, tzinfo=UTC)


def _aware(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value


def _seconds(started: datetime | None, ended: datetime | None) -> int | None:
    if started is None or ended is None:
        return None
    return max(0, int((_aware(ended) - _aware(started)).total_seconds()))


def read_rows(session: Session, test: Test, chosen: Filters, *, industries: bool = False) -> tuple[list[Row], int]:
    """The one query: the reviews of `test` the filters choose, with their version, timing and participant's
    attributes; and how many more the filters chose but left out as excluded. `industries`: also read each
    participant's industries (the exports hold them; the page does not need them)."""
    query = (
        select(
            Review.id,
            TestVersion.number,
            Review.status,
            Review.created_at,
            ReviewSession.started_at,
            Review.answers,
            Review.options_order,
            Review.signals,
            Review.account_id,
            Review.respondent_key,
            ParticipantProfile.experience_levels,
            ParticipantProfile.country,
            ParticipantProfile.company_size_id,
        )
        .outerjoin(TestVersion, TestVersion.id == Review.version_id)
        .outerjoin(ReviewSession, ReviewSession.id == Review.session_id)
        .outerjoin(ParticipantProfile, ParticipantProfile.account_id == Review.account_id)
        .where(Review.test_id == test.id)
        .order_by(Review.created_at, Review.id)
    )
    if chosen.country:
        query = query.where(ParticipantProfile.country == chosen.country)
    if chosen.company_size:
        query = query.where(ParticipantProfile.company_size_id == chosen.company_size)
    if chosen.version is not None:
        query = query.where(TestVersion.number == chosen.version)
    if chosen.since is not None:
        query = query.where(Review.created_at >= _day_start(chosen.since))
    if chosen.until is not None:
        query = query.where(Review.created_at < _day_start(chosen.until) + timedelta(days=1))
    left_out = chosen.statuses_left_out()
    rows: list[Row] = []
    excluded = 0
    for found in session.execute(query):
        levels = tuple(str(v) for v in (found[10] or []) if isinstance(v, str))
        if chosen.seniority and chosen.seniority not in levels:
            continue
        if found[2] in left_out:
            excluded += 1
            continue
        rows.append(
            Row(
                review_id=found[0],
                version=found[1],
                status=found[2],
                submitted=found[3],
                seconds=_seconds(found[4], found[3]),
                answers=found[5] if isinstance(found[5], dict) else {},
                order=[str(k) for k in found[6]] if isinstance(found[6], list) else [],
                signals=found[7] if isinstance(found[7], dict) else {},
                participant=str(found[8]) if found[8] is not None else str(found[9]),
                seniority=levels,
                country=found[11] or "",
                company_size=found[12] or "",
            )
        )
    if industries and rows:
        rows = _with_industries(session, rows)
    return rows, excluded


def _with_industries(session: Session, rows: list[Row]) -> list[Row]:
    accounts = {int(r.participant) for r in rows if r.participant.isdigit()}
    names: dict[str, list[str]] = {}
    ids = sorted(accounts)
    for start in range(0, len(ids), 500):
        for account_id, name in session.execute(
            select(ProfileIndustry.account_id, Industry.name)
            .join(Industry, Industry.id == ProfileIndustry.industry_id)
            .where(ProfileIndustry.account_id.in_(ids[start : start + 500]))
            .order_by(Industry.name)
        ):
            names.setdefault(str(account_id), []).append(name)
    return [replace(r, industries=tuple(names.get(r.participant, ()))) for r in rows]


def _versions(session: Session, test: Test) -> list[tuple[int, dict[str, Any]]]:
    """(number, columns) of the test's versions, newest first."""
    return [
        (number, columns if isinstance(columns, dict) else {})
        for number, columns in session.execute(
            select(TestVersion.number, TestVersion.columns)
            .where(TestVersion.test_id == test.id)
            .order_by(TestVersion.number.desc())
        )
    ]


def _slots_of(test: Test) -> list[Slot]:
    content = content_of(test)
    if "preferenceTest" in kinds.kind_of(test.product_type).fields:
        return preference_slots(content)
    questions = kinds.kind_of(test.product_type).questions(content)
    places = highlight.places(content) if highlight_areas.has_areas(test.product_type) else []
    return slots(questions, places)


def _funnel(session: Session, test_id: int) -> Funnel:
    invited = session.execute(select(func.count()).select_from(Invite).where(Invite.test_id == test_id)).scalar_one()
    started = session.execute(
        select(func.count()).select_from(ReviewSession).where(ReviewSession.test_id == test_id)
    ).scalar_one()
    submitted, approved = session.execute(
        select(func.count(), func.count().filter(Review.status == decisions.APPROVED)).where(Review.test_id == test_id)
    ).one()
    return Funnel(int(invited), int(started), int(submitted or 0), int(approved or 0))


def build(session: Session, test: Test, chosen: Filters, *, industries: bool = False) -> Results:
    """The results of a test for these filters (no permission check: callers check it)."""
    found_versions = _versions(session, test)
    numbers = [n for n, _ in found_versions]
    if chosen.version is not None and chosen.version not in numbers:
        raise ServiceError(filtering.BAD_VERSION, field="version")
    rows, excluded = read_rows(session, test, chosen, industries=industries)
    # The questions as the chosen version (else the newest) words them; older versions' own questions after.
    shown = [(n, as_of(test, columns)) for n, columns in found_versions]
    if chosen.version is not None:
        shown = [(n, t) for n, t in shown if n == chosen.version]
    else:
        met = {r.version for r in rows}
        shown = [(n, t) for i, (n, t) in enumerate(shown) if i == 0 or n in met]
    current = shown[0][1] if shown else test
    question_slots = merged(_slots_of(t) for _, t in shown) if shown else _slots_of(test)
    kind = kinds.kind_of(test.product_type)
    is_preference = "preferenceTest" in kind.fields
    content = content_of(current)
    return Results(
        test_id=test.id,
        name=test.name,
        product_type=test.product_type,
        filters=chosen,
        funnel=_funnel(session, test.id),
        report=report(
            rows,
            question_slots,
            content=content if is_preference else None,
            areas=content["selectedAreas"] if highlight_areas.has_areas(test.product_type) else (),
        ),
        slots=question_slots,
        rows=rows,
        versions=numbers,
        is_preference=is_preference,
        screenshot=highlight_areas.area_screenshot(
            test.product_type, current.screenshot_url, current.pricing_screenshot_url
        ),
        excluded_left_out=excluded,
        industries_read=industries,
    )


def results_view(
    session: Session, *, actor_id: Caller, test_id: Any, filters: Mapping[str, Any] | None = None
) -> Results:
    """The results page of a test."""
    require_staff(session, actor_id, roles.VIEW)
    chosen = _filters(filters)
    return build(session, _test(session, test_id), chosen)


def export_results(
    session: Session,
    *,
    actor_id: Caller,
    test_id: Any,
    filters: Mapping[str, Any] | None = None,
    file_format: Any = "csv",
) -> tuple[str, bytes, str]:
    """(file name, bytes, media type) of a test's results as CSV or an Excel workbook: one row per review."""
    from portal.services.admin import result_files

    staff = require_staff(session, actor_id, roles.EXPORT)
    writer = result_files.WRITERS.get(file_format) if isinstance(file_format, str) else None
    if writer is None:
        raise ServiceError(result_files.BAD_FORMAT)
    chosen = _filters(filters)
    test = _test(session, test_id)
    found = build(session, test, chosen, industries=True)
    data = writer.write(found)
    audit.record(
        session,
        staff,
        "results.export",
        "test",
        test.id,
        {},
        {"format": file_format, "rows": len(found.rows), **chosen.params()},
    )
    return f"results-test-{test.id}.{writer.suffix}", data, writer.media_type
