"""/admin/rewards: rewards with totals; mark paid, failed or canceled; the payout CSV."""

from __future__ import annotations

import reflex as rx

from portal.components.admin import admin_layout, confirm_dialog, status_badge
from portal.components.admin_pages import staff_page
from portal.components.data_table import Column, FilterOption, FilterSpec, RowAction, data_table
from portal.domain.reference_data import PAYMENT_STATUSES
from portal.domain.staff import roles
from portal.domain.table import payment_status_label
from portal.states.admin.guard import StaffState
from portal.states.admin.rewards import AdminRewardsState as W

COLUMNS = [
    Column("participant", "Participant", min_width="200px"),
    Column("test", "Test", min_width="220px"),
    Column("amount", "Amount", sort_key="amount"),
    Column("status_label", "Payment status", render=lambda row: status_badge(row["status_label"])),
    Column(
        "state",
        "Where it is",
        render=lambda row: rx.vstack(
            rx.text(row["state"], size="2", weight="medium"),
            rx.cond(row["expected"] != "", rx.text("Expected by ", row["expected"], size="1", color="var(--gray-11)")),
            rx.cond(row["provider"] != "", rx.text(row["provider"], size="1", color="var(--gray-11)")),
            rx.cond(
                row["reason"] != "",
                rx.text(row["reason"], size="1", color="var(--red-11)", max_width="260px", white_space="normal"),
            ),
            spacing="1",
        ),
        min_width="180px",
    ),
    Column("approved", "Approved"),
    Column("paid_on", "Paid on"),
    Column("created", "Submitted", sort_key="createdOn"),
]
FILTERS = [
    FilterSpec("payable", "Payable", "list", (FilterOption("yes", "Approved and unpaid"),)),
    FilterSpec(
        "paymentStatus",
        "Payment status",
        "list",
        tuple(FilterOption(s, payment_status_label(s)) for s in PAYMENT_STATUSES),
    ),
    FilterSpec("createdOn", "Submitted", "range"),
]


@staff_page("/admin/rewards", "Rewards", on_load=[W.load_page], menu="Rewards")
def rewards_page() -> rx.Component:
    can_pay = StaffState.can[roles.PAY]
    actions = [
        RowAction("Pay now", lambda row: W.pay_now(row["id"]), available_when="pay_now", icon="send"),
        RowAction("Mark paid", lambda row: W.ask_one(row["id"], "EXECUTED"), available_when="payable", icon="check"),
    ]
    bulk = rx.cond(
        (W.selected_ids.length() > 0) & can_pay,
        rx.hstack(
            rx.text(W.selected_ids.length(), " rewards selected", weight="medium", size="2"),
            rx.button("Mark paid", on_click=W.ask("EXECUTED"), size="2", color_scheme="green", id="bulk-paid"),
            rx.button(
                "Mark failed", on_click=W.ask("FAILED"), size="2", variant="soft", color_scheme="red", id="bulk-failed"
            ),
            rx.button(
                "Cancel rewards",
                on_click=W.ask("CANCELED"),
                size="2",
                variant="soft",
                color_scheme="gray",
                id="bulk-canceled",
            ),
            spacing="3",
            align="center",
            class_name="admin-panel",
            wrap="wrap",
        ),
    )
    return admin_layout(
        rx.vstack(
            rx.hstack(
                rx.text(
                    "Total of the rewards shown: ",
                    rx.text.strong(W.total_text, id="rewards-total"),
                    " in ",
                    W.total,
                    " rewards",
                    size="3",
                ),
                width="100%",
            ),
            rx.flex(
                rx.foreach(
                    W.state_totals,
                    lambda t: rx.box(
                        rx.text(t["state"], size="1", color="var(--gray-11)"),
                        rx.text(t["amount"], size="3", weight="bold"),
                        rx.text(t["count"], " rewards", size="1", color="var(--gray-11)"),
                        class_name="reward-total",
                        data_state=t["state"],
                    ),
                ),
                gap="20px",
                wrap="wrap",
                id="reward-state-totals",
            ),
            bulk,
            data_table(
                W,
                table_id="admin-rewards",
                columns=COLUMNS,
                actions=actions,
                filters=FILTERS,
                selectable=True,
                selection_noun="rewards",
                search_placeholder="Search participant or test",
            ),
            spacing="4",
            width="100%",
        ),
        # Title and text from the service's count and sum of what the mark changes ('Go back': 'Cancel' would be
        # ambiguous beside 'Cancel rewards').
        confirm_dialog(
            W.confirm_status != "",
            W.confirm_text,
            W.confirm_body,
            W.confirm_label,
            W.confirm,
            W.cancel,
            "rewards-confirm",
            dismiss_label="Go back",
        ),
        actions=rx.cond(
            can_pay,
            rx.button(
                rx.icon("download", size=16),
                "Payout CSV",
                on_click=W.export_payouts,
                variant="soft",
                size="2",
                id="payout-export",
            ),
        ),
    )
