"""/admin/tests: the tests with live counts; /admin/tests/[test_id]/invite: invite participants to one."""

from __future__ import annotations

import reflex as rx

from portal.components.admin import admin_layout, confirm_dialog, status_badge
from portal.components.data_table import Column, FilterOption, FilterSpec, RowAction, data_table
from portal.domain.staff import incentives, roles
from portal.pages.admin.participants import participants_table
from portal.services.admin.tests import STATUSES
from portal.states.admin.guard import StaffState
from portal.states.admin.tests import AdminTestsState as T
from portal.states.admin.tests import InviteState as I

COLUMNS = [
    Column("name", "Test", sort_key="name", min_width="260px"),
    Column("kind", "Kind"),
    Column("type", "Product type", min_width="140px"),
    Column("status", "Status", render=lambda row: status_badge(row["status"])),
    Column("invited", "Invited"),
    Column("reviews", "Reviews"),
    Column("waiting", "To decide"),
    Column("created", "Created", sort_key="createdOn"),
]


def tests_page() -> rx.Component:
    actions = [
        RowAction("Reviews", lambda row: rx.redirect("/admin/reviews?test=" + row["id"]), icon="list-checks"),
        RowAction("Invite", lambda row: rx.redirect("/admin/tests/" + row["id"] + "/invite"), available_when="running", icon="send"),
    ]
    filters = [FilterSpec("status", "Status", "list", tuple(FilterOption(s, s.replace("-", " ").capitalize()) for s in STATUSES))]
    return admin_layout(
        "Tests",
        data_table(T, table_id="admin-tests", columns=COLUMNS, actions=actions, filters=filters, search_placeholder="Search tests"),
    )


def _figure(label: str, value: rx.Var, figure_id: str) -> rx.Component:
    return rx.vstack(rx.text(label, size="1", color="var(--gray-11)"), rx.text(value, size="5", weight="bold", id=figure_id),
                     spacing="0", min_width="110px")


def _panel() -> rx.Component:
    return rx.box(
        rx.vstack(
            rx.hstack(
                _figure("Matching", I.matched, "invite-matched"),
                _figure("Already invited", I.invited, "invite-already-invited"),
                _figure("Already reviewed", I.reviewed, "invite-already-reviewed"),
                _figure("Will be invited", I.to_invite, "invite-to-invite"),
                _figure("Open places", I.places, "invite-places"),
                wrap="wrap", spacing="5",
            ),
            rx.text("Payout per invite: ", rx.text.strong(I.payout, id="invite-payout"), size="2"),
            rx.hstack(
                rx.vstack(
                    rx.el.label("Override payout (USD, optional)", html_for="invite-override", style={"fontSize": "14px", "fontWeight": 500}),
                    rx.debounce_input(
                        rx.input(id="invite-override", placeholder="e.g. 25", value=I.override_text, on_change=I.set_override,
                                 width="160px", input_mode="decimal"),
                        debounce_timeout=400,  # one event when typing pauses, not one per key
                    ),
                    rx.cond(I.override_error != "", rx.text(I.override_error, color="var(--red-11)", size="1", id="invite-override-error")),
                    rx.text(f"From ${incentives.MIN_OVERRIDE_CENTS // 100} to ${incentives.MAX_OVERRIDE_CENTS // 100:,}; "
                            "empty uses the incentive table.", size="1", color="var(--gray-11)"),
                    spacing="1",
                ),
                rx.spacer(),
                rx.button("Send invites", on_click=I.ask, size="3", id="invite-send",
                          disabled=(I.to_invite == 0) | I.sending | (I.override_error != "") | ~StaffState.can[roles.INVITE]),
                align="end", width="100%", wrap="wrap", spacing="4",
            ),
            rx.cond(I.sending | (I.requested > 0), rx.vstack(
                rx.progress(value=I.progress, max=100, width="100%", aria_label="Invites sent"),
                rx.text(I.sent, " of ", I.requested, " invites sent", size="2", id="invite-progress"),
                rx.cond(I.result != "", rx.text(I.result, size="2", weight="medium", id="invite-result")),
                width="100%", spacing="2",
            )),
            spacing="4", width="100%",
        ),
        class_name="admin-panel",
    )


def invite_page() -> rx.Component:
    return admin_layout(
        "Invite participants",
        rx.vstack(
            rx.text("To ", rx.text.strong(I.test["name"], id="invite-test-name"), " · ", I.test["type"], " · participant limit ",
                    I.test["limit"], size="3"),
            rx.text("Choose who to invite with the search and filters below. Invites last 24 hours, are sent once per person "
                    "and test, and keep to the test's quotas; each person gets an e-mail.", size="2", color="var(--gray-11)"),
            _panel(),
            participants_table(I, "invite-participants", with_actions=False),
            spacing="4", width="100%",
        ),
        confirm_dialog(I.confirm_open, "Send invites?",
                       rx.text("Invite ", I.to_invite, " participants to ", I.test["name"], "?"),
                       "Send invites", I.send, I.cancel, "invite-confirm"),
        permission=roles.INVITE,
        actions=rx.link(rx.button("All tests", variant="soft", size="2"), href="/admin/tests"),
    )
