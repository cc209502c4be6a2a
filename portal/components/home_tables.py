"""The two tables of the home page (TESTS): invites and rewards."""

from __future__ import annotations

import reflex as rx

from portal.components.data_table import Column, FilterOption, FilterSpec, RowAction, data_table
from portal.components.form import form_error, text_field, textarea_field
from portal.domain import invites as invite_rules
from portal.domain import table as rules
from portal.domain.reference_data import PAYMENT_STATUSES
from portal.domain.staff import appeals as appeal_rules
from portal.states.table import InvitesTableState, RewardsTableState


def _status_badge(row) -> rx.Component:
    color = rx.match(
        row["status"],
        ("open", "green"),
        ("completed", "indigo"),
        ("filled", "amber"),
        "gray",
    )
    return rx.badge(row["status_label"], color_scheme=color, variant="soft", radius="full")


def _payment_badge(row) -> rx.Component:
    color = rx.match(row["payment_status"], ("EXECUTED", "green"), ("PENDING", "amber"), ("FAILED", "red"), "gray")
    return rx.cond(
        row["payment_label"] != "", rx.badge(row["payment_label"], color_scheme=color, variant="soft", radius="full")
    )


def _stage(row) -> rx.Component:
    """Where the reward stands (staff's decision and the payment), with the date or the reason under it."""
    color = rx.match(
        row["stage"],
        ("Paid", "green"),
        ("Approved", "blue"),
        ("Sending", "blue"),
        ("Sent", "cyan"),
        ("Held", "orange"),
        ("Submitted", "amber"),
        ("Rejected", "red"),
        ("Failed", "red"),
        "gray",
    )
    return rx.vstack(
        rx.badge(
            row["stage"],
            color_scheme=color,
            variant="soft",
            radius="full",
            custom_attrs={"data-testid": "reward-stage"},
        ),
        rx.cond(
            row["stage_detail"] != "",
            rx.text(
                row["stage_detail"],
                size="1",
                color="var(--gray-11)",
                max_width="180px",
                style={"whiteSpace": "normal"},  # wraps, so the table fits at 1280 px
                custom_attrs={"data-testid": "reward-stage-detail"},
            ),
        ),
        # A rejection's evidence in plain words, its appeal's state, and 'Appeal' while one can be made.
        rx.cond(
            row["evidence"] != "",
            rx.text(
                "Evidence: ",
                row["evidence"],
                size="1",
                color="var(--gray-11)",
                max_width="280px",
                style={"whiteSpace": "normal"},  # the table's cells do not wrap by themselves
                custom_attrs={"data-testid": "reward-evidence"},
            ),
        ),
        rx.cond(
            row["appeal"] != "",
            rx.text(
                row["appeal"],
                size="1",
                max_width="280px",
                style={"whiteSpace": "normal"},
                custom_attrs={"data-testid": "reward-appeal"},
            ),
        ),
        # A failed payment: where the link went, and 'Send again' (to the payment e-mail shown above the table).
        rx.cond(
            row["failed"] != "",
            rx.vstack(
                rx.cond(
                    row["sent_to"] != "",
                    rx.text(
                        "Sent to ",
                        row["sent_to"],
                        size="1",
                        color="var(--gray-11)",
                        max_width="180px",
                        style={"whiteSpace": "normal", "overflowWrap": "anywhere"},
                    ),
                ),
                rx.button(
                    "Send again",
                    size="1",
                    variant="soft",
                    disabled=RewardsTableState.resend_from != "",
                    on_click=RewardsTableState.resend_payout(row["id"]),
                    custom_attrs={"data-testid": "reward-resend"},
                ),
                spacing="1",
            ),
        ),
        rx.cond(
            row["can_appeal"] != "",
            rx.vstack(
                rx.button(
                    "Appeal",
                    size="1",
                    variant="soft",
                    on_click=RewardsTableState.ask_appeal(row["review_id"]),
                    custom_attrs={"data-testid": "reward-appeal-button"},
                ),
                rx.text("Until ", row["appeal_until"], size="1", color="var(--gray-11)"),
                spacing="1",
            ),
        ),
        spacing="1",
    )


def _test_type(row) -> rx.Component:
    """The test type, wrapping (table cells do not by themselves), so the rewards table fits at 1280 px."""
    return rx.text(row["test_type"], max_width="130px", style={"whiteSpace": "normal"})


def _test_link(row) -> rx.Component:
    return rx.cond(
        row["test_url"] != "",
        rx.link(
            rx.icon("external-link", size=16), href=row["test_url"], is_external=True, aria_label="Open the tested page"
        ),
        rx.icon("file-text", size=16, color="var(--gray-9)"),
    )


INVITE_COLUMNS = [
    Column("test_id", "Test ID", min_width="80px"),
    Column("test_name", "Test", min_width="180px"),
    Column("test_type", "Test type", min_width="140px"),
    Column("date", "Invitation date", sort_key="createdOn", min_width="150px"),
    Column("time_left", "Time left", min_width="130px"),
    Column("payout", "Payout", min_width="80px"),
    Column("status_label", "Invite status", render=_status_badge, min_width="120px"),
]
INVITE_FILTERS = [
    FilterSpec(
        "status",
        "Invite status",
        "list",
        tuple(FilterOption(s, invite_rules.status_label(s)) for s in invite_rules.STATUSES),
    ),
    FilterSpec("createdOn", "Invitation date", "range"),
]
REWARD_COLUMNS = [
    Column("test_url", "Tested page", render=_test_link, min_width="40px", label_hidden=True),
    Column("test_id", "Test ID", min_width="80px"),
    Column("test_type", "Test type", sort_key="testType", render=_test_type, min_width="120px"),
    Column("status_label", "Status", min_width="90px"),
    Column("date", "Completion date", sort_key="createdOn", min_width="160px"),
    Column("payout", "Payout", min_width="80px"),
    Column("stage", "Review", render=_stage, min_width="150px"),
    Column("payment_label", "Payment status", render=_payment_badge, min_width="130px"),
    Column("paid_on", "Payment date", min_width="120px"),
]
REWARD_FILTERS = [
    FilterSpec(
        "paymentStatus",
        "Payment status",
        "list",
        tuple(FilterOption(s, rules.payment_status_label(s)) for s in PAYMENT_STATUSES),
    ),
    FilterSpec("createdOn", "Completion date", "range"),
]


def invites_table() -> rx.Component:
    return data_table(
        InvitesTableState,
        table_id="invites",
        columns=INVITE_COLUMNS,
        actions=[
            RowAction(
                "Start test", lambda row: InvitesTableState.open_invite(row["id"]), available_when="open", icon="play"
            )
        ],
        filters=INVITE_FILTERS,
        on_row_click=lambda row: InvitesTableState.open_invite(row["id"]),
        strong_when="open",
        search_placeholder="Search invites",
    )


def _appeal_dialog() -> rx.Component:
    """The one appeal of a rejected review: a message, sent to staff (a different staff member decides it)."""
    S = RewardsTableState
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title("Appeal the rejection"),
            rx.dialog.description(
                "Tell us why your answers should be reconsidered. You can appeal once; a staff member other than "
                "the one who rejected them decides, and you are told by e-mail.",
                size="2",
            ),
            rx.vstack(
                textarea_field(
                    "Your message",
                    id="appeal-message",
                    required=True,
                    default_value=S.appeal_message,
                    on_blur=S.set_appeal_message,
                    helper=f"At most {appeal_rules.MESSAGE_MAX} characters.",
                    rows="5",
                    size="2",
                    key=S.appeal_review_id,
                ),
                form_error(S.appeal_error, id="appeal-error"),
                spacing="3",
                width="100%",
                margin_top="12px",
            ),
            rx.hstack(
                rx.button("Cancel", variant="soft", color_scheme="gray", on_click=S.cancel_appeal),
                rx.button("Send appeal", on_click=S.send_appeal, id="appeal-send"),
                justify="end",
                spacing="3",
                margin_top="16px",
            ),
        ),
        open=S.appeal_review_id != "",
        on_open_change=lambda _open: S.cancel_appeal(),
    )


def _total(label: str, value: rx.Var, test_id: str) -> rx.Component:
    return rx.box(
        rx.text(label, size="1", color="var(--gray-11)"),
        rx.text(value, size="4", weight="bold", custom_attrs={"data-testid": test_id}),
        class_name="reward-total",
    )


def _totals() -> rx.Component:
    """Paid, on the way, in review and this year's total; where rewards links go, and its change."""
    S = RewardsTableState
    return rx.vstack(
        rx.flex(
            _total("Paid", S.totals["paid"], "total-paid"),
            _total("On the way", S.totals["on_the_way"], "total-on-the-way"),
            _total("In review", S.totals["in_review"], "total-in-review"),
            rx.box(
                rx.text("Paid in ", S.totals["year"], size="1", color="var(--gray-11)"),
                rx.text(S.totals["this_year"], size="4", weight="bold", custom_attrs={"data-testid": "total-year"}),
                class_name="reward-total",
            ),
            gap="24px",
            wrap="wrap",
        ),
        rx.flex(
            rx.text("Rewards links are e-mailed to ", rx.text.strong(S.payment_email, id="payment-email"), size="2"),
            rx.button("Change", size="1", variant="soft", on_click=S.ask_payment_email, id="payment-email-change"),
            gap="8px",
            align="center",
            wrap="wrap",
        ),
        rx.cond(
            S.resend_from != "",
            rx.text(
                "You changed your payment e-mail recently: a failed payment can be sent again on ",
                S.resend_from,
                ".",
                size="1",
                color="var(--gray-11)",
                id="resend-wait",
            ),
        ),
        spacing="2",
        margin_bottom="12px",
        id="reward-totals",
    )


def _payment_email_dialog() -> rx.Component:
    S = RewardsTableState
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title("Payment e-mail"),
            rx.dialog.description(
                "Rewards links are sent to this address. For your safety, a failed payment can be sent again only "
                "48 hours after it changes.",
                size="2",
            ),
            rx.vstack(
                text_field(
                    "E-mail for rewards links",
                    id="payment-email-input",
                    type="email",
                    autocomplete="email",
                    required=True,
                    default_value=S.email_draft,
                    on_blur=S.set_email_draft,
                    size="2",
                    key=S.payment_email,
                ),
                form_error(S.email_error, id="payment-email-error"),
                spacing="3",
                width="100%",
                margin_top="12px",
            ),
            rx.hstack(
                rx.button("Cancel", variant="soft", color_scheme="gray", on_click=S.cancel_payment_email),
                rx.button("Save", on_click=S.save_payment_email, id="payment-email-save"),
                justify="end",
                spacing="3",
                margin_top="16px",
            ),
        ),
        open=S.email_open,
        on_open_change=lambda _open: S.cancel_payment_email(),
    )


def rewards_table() -> rx.Component:
    return rx.fragment(
        _totals(),
        data_table(
            RewardsTableState,
            table_id="rewards",
            columns=REWARD_COLUMNS,
            filters=REWARD_FILTERS,
            search_placeholder="Search rewards",
        ),
        _appeal_dialog(),
        _payment_email_dialog(),
    )


def home_tables() -> rx.Component:
    return rx.card(
        rx.tabs.root(
            rx.tabs.list(
                rx.tabs.trigger(
                    rx.text("Invites (", InvitesTableState.total_open, ")"), value="invites", id="tab-invites"
                ),
                rx.tabs.trigger("Rewards", value="rewards", id="tab-rewards"),
                size="2",
            ),
            rx.tabs.content(rx.box(invites_table(), padding_top="16px"), value="invites"),
            rx.tabs.content(rx.box(rewards_table(), padding_top="16px"), value="rewards"),
            default_value="invites",
        ),
        size="3",
        class_name="dt-card",
    )


ON_LOAD = [InvitesTableState.load, RewardsTableState.load]
