"""Shared pieces of the table queries: the cleaned request and one page of answers."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from datetime import UTC, datetime, time, timedelta
from typing import Any

from sqlalchemy import ColumnElement, Integer, Select, String, and_, bindparam, or_, true
from sqlalchemy import select as sa_select
from sqlmodel import select

from portal.domain import table as rules
from portal.domain.ids import whole_number
from portal.models import Test


@dataclass(frozen=True)
class TableQuery:
    """A table request after validation (see `clean`)."""

    page: int = 1
    page_size: int = rules.DEFAULT_PAGE_SIZE
    sort_by: str = rules.DEFAULT_SORT_BY
    sort_direction: int = rules.DEFAULT_SORT_DIRECTION
    search: str = ""
    filters: tuple[rules.Filter, ...] = ()

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.page_size

    @property
    def narrowed(self) -> bool:
        return bool(self.search or self.filters)


@dataclass
class TablePage:
    rows: list[dict[str, Any]] = field(default_factory=list)
    total: int = 0  # totalAmount: rows matching the search and filters
    total_open: int = 0  # totalOpenInvites (invites only)


def clean(*, sortable: tuple[str, ...], filters_allowed: dict[str, dict[str, Any]], page: Any = 1,
          page_size: Any = rules.DEFAULT_PAGE_SIZE, sort_by: Any = rules.DEFAULT_SORT_BY,
          sort_direction: Any = rules.DEFAULT_SORT_DIRECTION, search: Any = "", filters: Any = None,
          page_sizes: tuple[int, ...] | list[int] = rules.PAGE_SIZES) -> TableQuery:
    column, direction = rules.clean_sort(sort_by, sort_direction, sortable)
    return TableQuery(
        page=rules.clean_page(page),
        page_size=rules.clean_page_size(page_size, rules.page_size_options(page_sizes)),
        sort_by=column,
        sort_direction=direction,
        search=rules.clean_search(search),
        filters=tuple(rules.clean_filters(filters, filters_allowed)),
    )


# A table's SQL depends only on the request's shape (sort, whether it searches, which filters); the
# values (account, page, patterns, dates) are bound parameters. The services build one statement per
# shape and keep it (functools.lru_cache): building the SQLAlchemy statement took longer than running
# the query (bench/table_query.py). Option-list filter values are part of the shape (they are checked
# against the table's options, so the shapes are few); date-range values are bound.
Shape = tuple[Any, ...]
AnySelect = Select[*tuple[Any, ...]]  # a SELECT, whatever its columns


def shape_of(query: TableQuery) -> Shape:
    searching = bool(query.search)
    search_id = searching and _search_id(query.search) is not None
    filters = tuple((f.name, f.type, () if f.type == "range" else f.values) for f in query.filters)
    return (query.sort_by, query.sort_direction, searching, search_id, filters)


def bound_values(query: TableQuery) -> dict[str, Any]:
    """The bound parameters of a query's statement (the account id is added by the service)."""
    values: dict[str, Any] = {"limit": query.page_size, "offset": query.offset}
    if query.search:
        values["pattern"] = like_pattern(query.search)
        # The type is shown as 'Pricing test' and stored as 'pricing-test': either spelling matches.
        values["type_pattern"] = like_pattern(query.search.replace(" ", "-"))
        if (number := _search_id(query.search)) is not None:
            values["search_id"] = number
    for index, f in enumerate(query.filters):
        if f.type == "range":
            low, high = (rules.parse_iso_date(v) for v in f.values)
            assert low is not None and high is not None  # clean_filters keeps valid dates only
            values[f"start_{index}"] = datetime.combine(low, time(), UTC)
            values[f"end_{index}"] = datetime.combine(high, time(), UTC) + timedelta(days=1)
    return values


def _search_id(search: str) -> int | None:
    return whole_number(search)


def date_range(column: Any, index: int) -> ColumnElement[bool]:
    """From the first day 00:00 UTC up to (not including) the day after the last (bound in bound_values)."""
    return and_(column >= bindparam(f"start_{index}"), column < bindparam(f"end_{index}"))


def page_bounds(stmt: AnySelect) -> AnySelect:
    return stmt.limit(bindparam("limit", type_=Integer)).offset(bindparam("offset", type_=Integer))


def like_pattern(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def plan_per_search(connection: Any, query: TableQuery) -> None:
    """PostgreSQL: plan a search for its own pattern through the trigram indexes.

    psycopg prepares a statement after 5 runs; the generic plan of `name ILIKE $1` reads every test.
    And the planner rates ILIKE cheap: with the account's rows as the inner side of a nested loop,
    it chose to read all 8,000 tests (7 ms) over the trigram bitmap (0.3 ms), costs within 3%.
    Every search query has an index path, so sequential scans are turned off for it.
    Both settings last until the end of the transaction (one per event, see db.run).
    """
    if query.search and connection.dialect.name == "postgresql":
        connection.exec_driver_sql(
            "SELECT set_config('plan_cache_mode', 'force_custom_plan', true), set_config('enable_seqscan', 'off', true)"
        )


def page_with_totals(rows: AnySelect, totals: dict[str, Any], sort_column: str, ascending: bool) -> AnySelect:
    """The page's rows and the totals in ONE statement (one round trip instead of two).

    `totals LEFT JOIN page ON true`: one row per page row, each carrying the totals; one row of
    totals and NULLs when the page is empty (see split_page). Sorted again outside, by
    `sort_column` then id (the order of a subquery is not kept).
    """
    head = select(*(value.label(name) for name, value in totals.items())).subquery("totals")
    page = rows.subquery("page")
    key, tie = page.c[sort_column], page.c.id
    order = (key.asc(), tie.asc()) if ascending else (key.desc(), tie.desc())
    return sa_select(head, page).select_from(head.outerjoin(page, true())).order_by(*order)


def fetch_page(connection: Any, stmt: AnySelect, params: dict[str, Any]) -> list[Any]:
    """Run one of the kept table statements (see shape_of) and return its rows.

    PostgreSQL: the statement's compiled SQL is kept as well and sent with exec_driver_sql. Executing a
    Select makes SQLAlchemy walk it for its cache key every time, about 0.1 ms of a 0.3 ms page
    (bench/table_query.py); psycopg adapts the bound ints, strings and aware datetimes itself and
    returns timestamptz as aware datetimes. SQLite (datetimes stored as text) takes the normal path.
    """
    driver = _driver_sql(stmt, connection.dialect) if connection.dialect.name == "postgresql" else None
    rows: list[Any]
    if driver is None:
        rows = connection.execute(stmt, params).all()
        return rows
    sql, fixed = driver
    rows = connection.exec_driver_sql(sql, {**fixed, **params}).all()
    return rows


@lru_cache(maxsize=512)
def _driver_sql(stmt: AnySelect, dialect: Any) -> tuple[str, dict[str, Any]] | None:
    """The SQL of a kept statement and its fixed values (constants such as 'open'), or None when it has
    expanding IN lists (option-list filters), whose SQL SQLAlchemy only writes at execution."""
    compiled = stmt.compile(dialect=dialect)
    if compiled.literal_execute_params or compiled.post_compile_params:
        return None
    return str(compiled), {name: value for name, value in compiled.params.items() if value is not None}


def split_page(result: list[Any], totals: int) -> tuple[list[tuple[Any, ...]], tuple[Any, ...]]:
    """A page_with_totals result: its rows as tuples of the page's columns (in the rows statement's
    order; without the NULL row of an empty page), and the `totals` leading values (zeros when empty).

    Tuples, not attribute access: reading 50 rows by name cost more than the rest of the formatting.
    """
    if not result:
        return [], (0,) * totals
    return [r[totals:] for r in result if r[totals] is not None], tuple(v or 0 for v in result[0][:totals])


def tests_matching(search_id: bool) -> AnySelect:
    """The ids of tests whose name, type or id match a table search (a semi-join: no join to count or page)."""
    matches: list[ColumnElement[bool]] = [Test.name.ilike(bindparam("pattern", type_=String), escape="\\"),
               Test.product_type.ilike(bindparam("type_pattern", type_=String), escape="\\")]
    if search_id:
        matches.append(Test.id == bindparam("search_id", type_=Integer))
    return select(Test.id).where(or_(*matches))
