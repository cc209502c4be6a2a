"""Every table is declared once (services/tables.TableSpec): its state reads that declaration, its panel offers
only the columns and filters it accepts, and the filter kinds turn a cleaned filter into its condition."""

from __future__ import annotations

import pytest
from sqlalchemy.dialects import postgresql

from portal.components import home_tables
from portal.domain.table import Filter
from portal.models import Invite, Reward
from portal.pages.admin import audit as audit_page
from portal.pages.admin import outbox as outbox_page
from portal.pages.admin import participants as participants_page
from portal.pages.admin import reviews as reviews_page
from portal.pages.admin import rewards as rewards_page
from portal.services import invites, rewards
from portal.services.admin import audit, change_requests, outbox, participants, reviews, tests
from portal.services.admin import rewards as admin_rewards
from portal.services.tables import AnyId, Dates, Ids, Options, Own, TableSpec
from portal.states.admin.audit import AuditLogState
from portal.states.admin.outbox import AdminOutboxState
from portal.states.admin.participants import AdminParticipantsState
from portal.states.admin.reviews import AdminReviewsState
from portal.states.admin.rewards import AdminRewardsState
from portal.states.admin.tests import AdminTestsState
from portal.states.table import InvitesTableState, RewardsTableState

# (the table's state, its declaration, the columns and filters its panel shows)
TABLES = [
    (InvitesTableState, invites.TABLE, home_tables.INVITE_COLUMNS, home_tables.INVITE_FILTERS),
    (RewardsTableState, rewards.TABLE, home_tables.REWARD_COLUMNS, home_tables.REWARD_FILTERS),
    (AdminParticipantsState, participants.TABLE, participants_page.COLUMNS, participants_page.FILTERS),
    (AdminReviewsState, reviews.TABLE, reviews_page.COLUMNS, reviews_page.FILTERS),
    (AdminRewardsState, admin_rewards.TABLE, rewards_page.COLUMNS, rewards_page.FILTERS),
    (AuditLogState, audit.TABLE, audit_page.COLUMNS, audit_page.FILTERS),
    (AdminOutboxState, outbox.TABLE, outbox_page.COLUMNS, outbox_page.FILTERS),
    (AdminTestsState, tests.TABLE, [], []),
]
NAMES = [state.__name__ for state, *_ in TABLES]


@pytest.mark.parametrize(("state", "table", "columns", "panel"), TABLES, ids=NAMES)
def test_the_state_and_the_panel_go_by_the_table_declaration(state, table, columns, panel) -> None:
    assert state.table is table
    assert "createdOn" in table.sortable  # the default sort
    for column in columns:
        assert column.sort_key is None or column.sort_key in table.sortable, column
    for offered in panel:
        accepted = table.filters_allowed[offered.name]
        assert (accepted["type"] == "range") == (offered.type == "range"), offered.name
        for option in offered.options:
            assert option.value in accepted["options"], (offered.name, option.value)


def test_every_table_declares_what_its_requests_need() -> None:
    for table in (*(t for _, t, *_ in TABLES), change_requests.TABLE):
        assert isinstance(table, TableSpec)
        names = [f.name for f in table.filters]
        assert len(names) == len(set(names))
        query = table.clean(
            search="x", filters=[{"name": n, "type": t["type"], "values": []} for n, t in table.filters_allowed.items()]
        )
        assert table.select(query).page() is not None


def test_clean_keeps_only_what_the_table_declares() -> None:
    query = invites.TABLE.clean(
        page="3",
        page_size=20,
        sort_by="payout",
        sort_direction="1",
        search="  a  b ",
        filters=[
            {"name": "status", "type": "exclude", "values": ["open", "nope"]},
            {"name": "paymentStatus", "type": "list", "values": ["EXECUTED"]},
            {"name": "createdOn", "type": "range", "values": ["2026-03-04", "2026-01-02"]},
        ],
    )
    assert (query.page, query.page_size, query.sort_by, query.sort_direction, query.search) == (
        3,
        20,
        "createdOn",
        1,
        "a b",
    )
    assert query.filters == (
        Filter("status", "exclude", ("open",)),
        Filter("createdOn", "range", ("2026-01-02", "2026-03-04")),
    )
    assert participants.TABLE.clean(page_size=200).page_size == 200  # its own extra page sizes
    assert invites.TABLE.clean(page_size=200).page_size == 50


def _sql(condition) -> str:
    return str(condition.compile(dialect=postgresql.dialect()))


def test_the_filter_kinds() -> None:
    chosen, excluded = Filter("s", "list", ("a", "b")), Filter("s", "exclude", ("a",))
    options = Options("s", Reward.status, ("a", "b"))
    assert "reward.status IN" in _sql(options.condition(chosen, 0))
    assert "NOT IN" in _sql(options.condition(excluded, 0))
    ids = Ids("test", Reward.test_id)
    assert "12" in ids.options and "x" not in ids.options and isinstance(ids.options, AnyId)
    assert ids.condition(Filter("test", "list", ("12",)), 0).right.value == [12]
    dates = _sql(Dates("createdOn", Invite.created_at).condition(Filter("createdOn", "range", ()), 2))
    assert "%(start_2)s" in dates and "%(end_2)s" in dates
    own = Own("s", ("a", "b"), lambda values: None if len(values) > 1 else Reward.status == values[0])
    assert own.condition(chosen, 0) is None
    assert _sql(own.condition(excluded, 0)).startswith("reward.status != %(status_1)s")


def test_one_kept_statement_per_shape_and_the_values_bound() -> None:
    from portal.services.tables import page_statement

    first = invites.TABLE.clean(search="study", page=1)
    second = invites.TABLE.clean(
        search="other", page=7, filters=[{"name": "status", "type": "list", "values": ["open"]}]
    )
    third = invites.TABLE.clean(search="else", page=2, filters=[{"name": "status", "type": "list", "values": ["open"]}])
    shapes = [invites.TABLE.shape(q) for q in (first, second, third)]
    assert shapes[0] != shapes[1] == shapes[2]
    assert page_statement(invites.TABLE, shapes[1]) is page_statement(invites.TABLE, shapes[2])
    values = invites.TABLE.values(second)
    assert (values["limit"], values["offset"], values["pattern"]) == (50, 300, "%other%")
    assert audit.TABLE.values(audit.TABLE.clean(search="42"))["exact"] == "42"
