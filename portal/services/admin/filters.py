"""The WHERE of a staff table's filters, from one description per table (every filter is cleaned first,
portal/domain/table.clean_filters): option lists, id lists, date ranges and the table's own."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from portal.domain.table import Filter
from portal.services.tables import TableQuery, date_range


def conditions(query: TableQuery, *, lists: dict[str, Any] | None = None, ids: dict[str, Any] | None = None,
               dates: dict[str, Any] | None = None, own: dict[str, Callable[[Filter], Any]] | None = None) -> list[Any]:
    """`lists`: filter name -> column compared with the chosen values; `ids`: the same with the values as
    integers; `dates`: name -> column within the chosen days; `own`: name -> the condition for the filter.
    An 'exclude' filter negates its list or id condition."""
    out: list[Any] = []
    for index, f in enumerate(query.filters):
        negate = f.type == "exclude"
        if dates and f.name in dates:
            out.append(date_range(dates[f.name], index))
        elif lists and f.name in lists:
            chosen = lists[f.name].in_(f.values)
            out.append(~chosen if negate else chosen)
        elif ids and f.name in ids:
            chosen = ids[f.name].in_([int(v) for v in f.values])
            out.append(~chosen if negate else chosen)
        elif own and f.name in own:
            condition = own[f.name](f)
            if condition is not None:
                out.append(condition)
    return out
