"""One path for every table, the participant's and the staff's.

A table declares itself once, as a `TableSpec`: the id of its rows, what they are read from, the columns it
sorts by, its filters by kind (`Options`, `Ids`, `Dates`, `Own`), its search, the conditions of every request
(a participant's own rows) and its page sizes. Every request then goes through the same functions:

- `TableSpec.clean`: the browser's request checked against the declaration (the rules are portal/domain/table.py);
- `TableSpec.shape`: what of the request changes its SQL (the values are bound parameters, `TableSpec.values`);
- `TableSpec.select`: the rows a request chooses (`Selection`: the WHERE of its scope, search and filters, built
  once), with their count (`total`) and one page of them in the sort's order (`page`); the staff tables run a
  count, then the page (of ids, then the page's rows by id; or of the rows themselves);
- `read_page`: the home page's tables, the page and its totals in ONE statement kept per shape (`page_statement`,
  `fetch_page`), which their declarations complete with the page's columns (`rows`) and other totals (`totals`).

The shape is sqladmin's declared views (filters as objects naming their column, the sortable columns listed)
with the keyword-only functions over a session of the FastAPI full-stack template's crud.py.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, time, timedelta
from functools import cached_property, lru_cache
from typing import Any, ClassVar, NamedTuple

from sqlalchemy import ColumnElement, Integer, Select, String, and_, bindparam, func, or_, true
from sqlalchemy import select as sa_select
from sqlmodel import Session, select

from portal.domain import table as rules
from portal.domain.ids import whole_number
from portal.domain.table import Filter
from portal.models import Test


@dataclass(frozen=True)
class TableQuery:
    """A table request after validation (see `TableSpec.clean`)."""

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


AnySelect = Select[*tuple[Any, ...]]  # a SELECT, whatever its columns


# The filters, by kind. Each names the filter (as the browser sends it), says what may be chosen (checked by
# domain/table.clean_filters before any SQL) and gives its condition for the cleaned filter; `index` is the
# filter's place in the request, which names its bound dates. 'exclude' (all but the chosen values) negates.


class AnyId(tuple[str, ...]):
    """Filter options that are database ids (tests, industries): any short run of digits."""

    def __contains__(self, value: object) -> bool:
        return isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 9


def _chosen(condition: Any, f: Filter) -> Any:
    return ~condition if f.type == "exclude" else condition


@dataclass(frozen=True, eq=False)
class Options:
    """An option list: the rows whose `column` holds one of the chosen values (or none of them)."""

    name: str
    column: Any
    options: Any
    type: ClassVar[str] = "list"

    def condition(self, f: Filter, index: int) -> Any:
        return _chosen(self.column.in_(f.values), f)


@dataclass(frozen=True, eq=False)
class Ids:
    """An id list (tests): any ids, compared with `column` as integers."""

    name: str
    column: Any
    options: Any = AnyId()
    type: ClassVar[str] = "list"

    def condition(self, f: Filter, index: int) -> Any:
        return _chosen(self.column.in_([int(v) for v in f.values]), f)


@dataclass(frozen=True, eq=False)
class Dates:
    """A date range: `column` from the first day 00:00 UTC up to (not including) the day after the last."""

    name: str
    column: Any
    type: ClassVar[str] = "range"

    def condition(self, f: Filter, index: int) -> Any:
        return within_days(self.column, index)


@dataclass(frozen=True, eq=False)
class Own:
    """A condition of the table's own: `where(chosen values)`, None for no condition (e.g. both 'yes' and 'no')."""

    name: str
    options: Any
    where: Callable[[tuple[str, ...]], Any]
    type: ClassVar[str] = "list"

    def condition(self, f: Filter, index: int) -> Any:
        chosen = self.where(f.values)
        return None if chosen is None else _chosen(chosen, f)


TableFilter = Options | Ids | Dates | Own


class Shape(NamedTuple):
    """What of a request changes its SQL; its values (account, page, patterns, dates) are bound parameters.

    `search`: None without a search, else the search's form (`TableSpec.search_form`); `filters`: the cleaned
    filters as (name, type, values) with their option values (checked against the table's options, so the
    shapes are few) and without their dates (bound, see bound_values). Plain tuples: hashed fast, as the key of
    the kept statements.
    """

    sort_by: str
    ascending: bool
    search: Hashable | None
    filters: tuple[tuple[str, str, tuple[str, ...]], ...]


def _one_form(_text: str) -> Hashable:
    return True


@dataclass(frozen=True, eq=False)
class TableSpec:
    """A table, declared once (see the module's docstring)."""

    key: Any  # the rows' id: the last key of every sort, and what a page's rows are read by
    sortable: Mapping[str, Any]  # sort name (as the browser sends it) -> column; the default, createdOn, among them
    filters: tuple[TableFilter, ...] = ()  # in the order the filters panel offers them
    # The search's condition, given the search's form; it reads the bound :pattern (and :type_pattern,
    # :search_id, see bound_values, and its own search_values). None: the table has no search.
    search: Callable[[Any], Any] | None = None
    search_form: Callable[[str], Hashable] = _one_form  # what of the searched text changes the search's SQL
    search_values: Callable[[str], dict[str, Any]] | None = None  # bound values of the search's own (e.g. :exact)
    source: Any = None  # what the rows are counted and paged from (a table or a join); the key's table when None
    search_source: Any = None  # ... when searching (the joins only a search reads); `source` when None
    scope: tuple[Any, ...] = ()  # conditions of every request (a participant's own rows: the bound :account_id)
    page_sizes: tuple[int, ...] = ()  # page sizes offered besides domain/table.PAGE_SIZES
    # For read_page (the home tables): the page's columns and their joins, and totals besides `total`.
    rows: AnySelect | None = None
    totals: Mapping[str, Any] = field(default_factory=dict)

    @cached_property
    def filters_allowed(self) -> dict[str, dict[str, Any]]:
        """{name: {type, options}}: what domain/table.clean_filters keeps, and the filters panel offers."""
        return {
            f.name: {"type": "range"} if isinstance(f, Dates) else {"type": f.type, "options": f.options}
            for f in self.filters
        }

    @cached_property
    def sort_names(self) -> tuple[str, ...]:
        return tuple(self.sortable)

    @cached_property
    def page_size_options(self) -> list[int]:
        return rules.page_size_options(self.page_sizes)

    @cached_property
    def _filter_by_name(self) -> dict[str, TableFilter]:
        return {f.name: f for f in self.filters}

    def clean(
        self,
        *,
        page: Any = 1,
        page_size: Any = rules.DEFAULT_PAGE_SIZE,
        sort_by: Any = rules.DEFAULT_SORT_BY,
        sort_direction: Any = rules.DEFAULT_SORT_DIRECTION,
        search: Any = "",
        filters: Any = None,
    ) -> TableQuery:
        """A request as the browser sent it (anything), validated against this table."""
        column, direction = rules.clean_sort(sort_by, sort_direction, self.sort_names)
        return TableQuery(
            page=rules.clean_page(page),
            page_size=rules.clean_page_size(page_size, self.page_size_options),
            sort_by=column,
            sort_direction=direction,
            search=rules.clean_search(search),
            filters=tuple(rules.clean_filters(filters, self.filters_allowed)),
        )

    def shape(self, query: TableQuery) -> Shape:
        filters = tuple((f.name, f.type, () if f.type == "range" else f.values) for f in query.filters)
        search = self.search_form(query.search) if query.search else None
        return Shape(query.sort_by, query.sort_direction == rules.ASCENDING, search, filters)

    def where(self, shape: Shape) -> list[Any]:
        """The conditions of a request: the table's scope, its search, its filters (in the request's order)."""
        out = list(self.scope)
        if shape.search is not None and self.search is not None:
            out.append(self.search(shape.search))
        for index, (name, kind, values) in enumerate(shape.filters):
            declared = self._filter_by_name.get(name)
            condition = declared.condition(Filter(name, kind, values), index) if declared is not None else None
            if condition is not None:
                out.append(condition)
        return out

    def source_of(self, shape: Shape) -> Any:
        if shape.search is not None and self.search_source is not None:
            return self.search_source
        return self.source if self.source is not None else self.key.class_

    def order(self, shape: Shape) -> tuple[Any, Any]:
        """The sort's column, then the id (the same order every time, whatever ties)."""
        column = self.sortable[shape.sort_by]
        return (column.asc(), self.key.asc()) if shape.ascending else (column.desc(), self.key.desc())

    def values(self, query: TableQuery) -> dict[str, Any]:
        """The bound values of a request's statements (bound_values, and the search's own)."""
        values = bound_values(query)
        if query.search and self.search_values is not None:
            values.update(self.search_values(query.search))
        return values

    def select(self, query: TableQuery) -> Selection:
        """The rows a request chooses (its count and its page: see Selection)."""
        return self.selection(self.shape(query))

    def selection(self, shape: Shape) -> Selection:
        return Selection(self, shape, tuple(self.where(shape)))


@dataclass(frozen=True, eq=False)
class Selection:
    """The rows of a table one request chooses: its conditions, built once and shared by its count and its page
    (one set of bound constants). The values are bound: run each statement with TableSpec.values(query)."""

    table: TableSpec
    shape: Shape
    where: tuple[Any, ...]

    def matching(self) -> AnySelect:
        """The ids of the chosen rows, in no order."""
        ids: AnySelect = select(self.table.key).select_from(self.table.source_of(self.shape)).where(*self.where)
        return ids

    def total(self, *more: Any) -> AnySelect:
        """count(*) of the chosen rows (then `more` aggregates of them, e.g. a sum)."""
        count: AnySelect = select(func.count(), *more).select_from(self.table.source_of(self.shape)).where(*self.where)
        return count

    def page(self, rows: AnySelect | None = None) -> AnySelect:
        """One page (bound :limit, :offset) in the sort's order: the ids, or `rows` (columns with their joins)."""
        stmt = self.matching() if rows is None else rows.where(*self.where)
        return page_bounds(stmt.order_by(*self.table.order(self.shape)))


def bound_values(query: TableQuery) -> dict[str, Any]:
    """The bound parameters of a query's statements (the account id is added by the service)."""
    values: dict[str, Any] = {"limit": query.page_size, "offset": query.offset}
    if query.search:
        values["pattern"] = like_pattern(query.search)
        # The type is shown as 'Pricing test' and stored as 'pricing-test': either spelling matches.
        values["type_pattern"] = like_pattern(query.search.replace(" ", "-"))
        if (number := whole_number(query.search)) is not None:
            values["search_id"] = number
    for index, f in enumerate(query.filters):
        if f.type == "range":
            low, high = (rules.parse_iso_date(v) for v in f.values)
            assert low is not None and high is not None  # clean_filters keeps valid dates only
            values[f"start_{index}"] = datetime.combine(low, time(), UTC)
            values[f"end_{index}"] = datetime.combine(high, time(), UTC) + timedelta(days=1)
    return values


def searches_an_id(search: str) -> bool:
    """A search form: whether the text is also an id (a whole number), which a search may match as well."""
    return whole_number(search) is not None


def within_days(column: Any, index: int) -> ColumnElement[bool]:
    """From the first day 00:00 UTC up to (not including) the day after the last (bound in bound_values)."""
    return and_(column >= bindparam(f"start_{index}"), column < bindparam(f"end_{index}"))


def page_bounds(stmt: AnySelect) -> AnySelect:
    return stmt.limit(bindparam("limit", type_=Integer)).offset(bindparam("offset", type_=Integer))


def like_pattern(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def contains(column: Any) -> ColumnElement[bool]:
    """`column` holds the searched text (the bound :pattern, its wildcards escaped)."""
    condition: ColumnElement[bool] = column.ilike(bindparam("pattern", type_=String), escape="\\")
    return condition


def tests_matching(search_id: bool) -> AnySelect:
    """The ids of tests whose name, type or id match a table search (a semi-join: no join to count or page)."""
    matches: list[ColumnElement[bool]] = [
        contains(Test.name),
        Test.product_type.ilike(bindparam("type_pattern", type_=String), escape="\\"),
    ]
    if search_id:
        matches.append(Test.id == bindparam("search_id", type_=Integer))
    return select(Test.id).where(or_(*matches))


# The home page's tables: one statement per request shape, kept -------------------------------------------
#
# A table's SQL depends only on the request's shape; the values are bound parameters. read_page builds one
# statement per table and shape and keeps it (functools.lru_cache): building the SQLAlchemy statement took
# longer than running the query (bench/table_query.py).


def read_page(
    session: Session, *, table: TableSpec, query: TableQuery, **values: Any
) -> tuple[list[tuple[Any, ...]], tuple[Any, ...]]:
    """One page of a table with its totals, in one round trip: the page's rows as tuples of `table.rows`'
    columns, and the totals (`total`, then `table.totals`'). `values`: the bound values of the table's
    scope and totals (the account id, now)."""
    connection = session.connection()  # Core execution: no ORM entity loading
    plan_per_search(connection, query)
    stmt = page_statement(table, table.shape(query))
    return split_page(fetch_page(connection, stmt, {**values, **table.values(query)}), 1 + len(table.totals))


@lru_cache(maxsize=512)
def page_statement(table: TableSpec, shape: Shape) -> AnySelect:
    """The page and every total for one table and request shape.

    The page's ids first, alone (an index-only scan of the table's (scope, sort, id) index, bounded), then
    only those rows are joined for their columns (`table.rows`).
    """
    if table.rows is None:
        raise TypeError("read_page needs the table's rows")
    chosen = table.selection(shape)
    rows = table.rows.where(table.key.in_(chosen.page().scalar_subquery()), *table.scope)
    totals = {"total": chosen.total().scalar_subquery(), **table.totals}
    return page_with_totals(rows, totals, table.sortable[shape.sort_by].key, shape.ascending)


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
    """Run one of the kept table statements (see page_statement) and return its rows.

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
