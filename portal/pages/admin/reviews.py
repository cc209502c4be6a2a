"""/admin/reviews: submitted reviews (all, or one test's with ?test=ID), their answers, decisions, the CSV,
and clearing expired pending reviews."""

from __future__ import annotations

from typing import Any

import reflex as rx

from portal.components.admin import admin_layout, confirm_dialog, status_badge
from portal.components.admin_pages import staff_page
from portal.components.data_table import Column, FilterOption, FilterSpec, RowAction, data_table
from portal.components.form import form_error, select_field, textarea_field
from portal.domain.quality import flags as quality
from portal.domain.staff import reviews as decisions
from portal.domain.staff import roles
from portal.states.admin.guard import StaffState
from portal.states.admin.reviews import AdminReviewsState as R


def _flag_badges(row: Any) -> rx.Component:
    """A row's flags, the strongest first: each its name, its plain-language finding as the tooltip and for screen
    readers; 'Flags not checked yet' for a review newer than the last check."""
    return rx.vstack(
        rx.foreach(
            row["flags"].to(list[dict[str, str]]),
            lambda f: rx.tooltip(
                rx.badge(f["title"], color_scheme="orange", variant="soft", high_contrast=True, data_flag=f["key"]),
                content=f["label"],
            ),
        ),
        rx.cond(row["flags_pending"] != "", rx.text(row["flags_pending"], size="1", color="var(--gray-11)")),
        spacing="1",
        align="start",
        class_name="review-flags",
    )


COLUMNS = [
    Column("participant", "Participant", min_width="200px"),
    Column("test", "Test", min_width="220px"),
    Column(
        "status_label",
        "Status",
        render=lambda row: rx.vstack(
            status_badge(row["status_label"]),
            rx.cond(row["reason"] != "", rx.text(row["reason"], size="1", color="var(--gray-11)")),
            rx.cond(row["auto_approve"] != "", rx.text(row["auto_approve"], size="1", color="var(--gray-11)")),
            spacing="1",
        ),
    ),
    Column("submitted", "Submitted", sort_key="createdOn", min_width="140px"),
    Column("time_taken", "Time taken"),
    Column("words", "Words"),
    Column("pasted", "Pasted"),
    Column("flags", "Quality flags", render=lambda row: _flag_badges(row), min_width="200px"),
    Column("reward", "Reward"),
]
FILTERS = [
    FilterSpec(
        "status", "Status", "list", tuple(FilterOption(s, decisions.STATUS_LABELS[s]) for s in decisions.STATUSES)
    ),
    FilterSpec("flag", "Quality flag", "list", tuple(FilterOption(r.key, r.title) for r in quality.RULES)),
    FilterSpec("createdOn", "Submitted", "range"),
]


def _evidence_card(d: Any) -> rx.Component:
    """The review's flags (strongest first, each in plain words with its value and the test's median) and every
    signal measured while the test was taken, beside the test's median."""
    flags = d["flags"].to(list[dict[str, str]])
    lines = d["card"].to(list[dict[str, str]])
    return rx.vstack(
        rx.heading("Evidence", size="3", as_="h2", id="evidence-heading"),
        rx.text(d["flags_checked"], size="1", color="var(--gray-11)"),
        rx.cond(
            flags.length() > 0,
            rx.el.ul(
                rx.foreach(
                    flags,
                    lambda f: rx.el.li(
                        rx.badge(f["title"], color_scheme="orange", variant="soft", high_contrast=True),
                        rx.text(f["label"], size="2", as_="span"),
                        data_flag=f["key"],
                        class_name="evidence-flag",
                    ),
                ),
                id="review-flags",
                class_name="evidence-flags",
            ),
            rx.text("No quality flags.", size="2", id="review-no-flags"),
        ),
        rx.cond(
            lines.length() > 0,
            rx.box(
                rx.table.root(
                    rx.table.header(
                        rx.table.row(
                            rx.table.column_header_cell("Signal"),
                            rx.table.column_header_cell("This review"),
                            rx.table.column_header_cell("Test median"),
                        )
                    ),
                    rx.table.body(
                        rx.foreach(
                            lines,
                            lambda line: rx.table.row(
                                rx.table.row_header_cell(line["label"]),
                                rx.table.cell(line["value"]),
                                rx.table.cell(line["median"]),
                            ),
                        )
                    ),
                    size="1",
                    id="evidence-card",
                    aria_labelledby="evidence-heading",
                ),
                class_name="results-scroll",
                tab_index=0,
                role="region",
                aria_label="Signals of this review",
                width="100%",
            ),
        ),
        rx.text(
            "Flags are evidence to read, never a decision: nothing is rejected by a flag, and no text is scored as "
            "written by a person or a machine.",
            size="1",
            color="var(--gray-11)",
        ),
        spacing="2",
        margin_top="16px",
        width="100%",
    )


def _detail() -> rx.Component:
    d = R.detail
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title("Review ", d["id"]),
            rx.text(
                d["participant"],
                " · ",
                d["test"],
                rx.cond(d["version"] != "", rx.el.span(" (version ", d["version"], ")", id="review-version")),
                " · submitted ",
                d["submitted"],
                " · ",
                d["time_taken"],
                size="2",
                color="var(--gray-11)",
            ),
            rx.hstack(
                status_badge(d["status_label"]),
                rx.text(d["reason"], size="2"),
                rx.text(d["note"], size="2", color="var(--gray-11)"),
                spacing="2",
                margin_y="12px",
                wrap="wrap",
            ),
            rx.cond(
                d["evidence"].to(str) != "",
                rx.text(rx.text.strong("Evidence: "), d["evidence"], size="2", id="review-evidence"),
            ),
            rx.vstack(
                rx.foreach(
                    d["answers"].to(list[dict[str, str]]),
                    lambda a: rx.box(
                        rx.text(a["question"], weight="bold", size="2"),
                        rx.text(a["text"], size="2", white_space="pre-wrap"),
                        rx.text(
                            rx.cond(a["words"] != "", a["words"] + " words ", ""),
                            rx.cond(
                                a["pasted"] != "",
                                # Soft orange text alone is 3.98:1 on its background.
                                rx.badge("Pasted", color_scheme="orange", high_contrast=True),
                            ),
                            size="1",
                            color="var(--gray-11)",
                        ),
                        class_name="admin-answer",
                    ),
                ),
                spacing="3",
                id="review-answers",
            ),
            _evidence_card(d),
            rx.hstack(
                rx.dialog.close(rx.button("Close", variant="soft", color_scheme="gray", on_click=R.close_review)),
                rx.cond(
                    (d["status"] == "submitted") & StaffState.can[roles.DECIDE_REVIEWS],
                    rx.fragment(
                        rx.button(
                            "Reject",
                            color_scheme="red",
                            variant="soft",
                            on_click=R.ask_reject(d["id"]),
                            id="detail-reject",
                        ),
                        rx.button(
                            "Exclude",
                            color_scheme="amber",
                            variant="soft",
                            high_contrast=True,  # amber's soft text alone is below 4.5:1
                            on_click=R.ask_exclude(d["id"]),
                            id="detail-exclude",
                        ),
                        rx.button(
                            "Approve",
                            color_scheme="green",
                            high_contrast=True,  # white on Radix green-9 is 3.15:1
                            on_click=R.approve(d["id"]),
                            id="detail-approve",
                        ),
                    ),
                ),
                justify="end",
                spacing="3",
                margin_top="16px",
            ),
            max_width="720px",
        ),
        open=R.detail_open,
        on_open_change=lambda _open: R.close_review(),
    )


def _reject_dialog() -> rx.Component:
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title(
                "Reject ", R.reject_ids.length(), rx.cond(R.reject_ids.length() == 1, " review", " reviews")
            ),
            rx.dialog.description("The participant sees the reason; their reward is canceled.", size="2"),
            rx.vstack(
                select_field(
                    "Reason",
                    id="reject-reason",
                    options=R.reasons,
                    placeholder="Choose a reason",
                    value=R.reject_reason,
                    on_change=R.set_reject_reason,
                    size="2",
                ),
                # Sent when the field is left (before the Reject click), not on every key.
                textarea_field(
                    "Note",
                    optional=True,
                    helper="Not shown to the participant.",
                    id="reject-note",
                    default_value=R.reject_note,
                    on_blur=R.set_reject_note,
                    size="2",
                    key=R.reject_ids.join(","),
                ),
                rx.el.fieldset(
                    rx.el.legend(rx.text("Evidence (optional, shown to the participant)", size="2", weight="medium")),
                    rx.foreach(
                        R.evidence_flags,
                        lambda f: rx.text(
                            rx.flex(
                                rx.checkbox(
                                    checked=R.reject_flags.contains(f[0]),
                                    on_change=lambda _checked: R.toggle_reject_flag(f[0]),
                                    id="reject-flag-" + f[0],
                                    aria_labelledby="reject-flag-label-" + f[0],
                                ),
                                rx.el.span(f[1], id="reject-flag-label-" + f[0]),
                                spacing="2",
                            ),
                            as_="label",
                            size="2",
                        ),
                    ),
                    class_name="reject-evidence-flags",
                    style={"border": "none", "padding": "0", "margin": "0", "display": "grid", "gap": "6px"},
                ),
                textarea_field(
                    "Evidence in words",
                    optional=True,
                    helper="What the decision rests on, in plain words; the participant reads it.",
                    id="reject-evidence",
                    default_value=R.reject_evidence,
                    on_blur=R.set_reject_evidence,
                    size="2",
                    key=R.reject_ids.join(",") + "-evidence",
                ),
                form_error(R.reject_error, id="reject-error"),
                spacing="3",
                width="100%",
                margin_top="12px",
            ),
            rx.hstack(
                rx.button("Cancel", variant="soft", color_scheme="gray", on_click=R.cancel_reject),
                rx.button(
                    "Reject", color_scheme="red", high_contrast=True, on_click=R.confirm_reject, id="reject-confirm"
                ),
                justify="end",
                spacing="3",
                margin_top="16px",
            ),
        ),
        open=R.reject_ids.length() > 0,
    )


@staff_page("/admin/reviews", "Reviews", on_load=[R.load_page], menu="Reviews")
def reviews_page() -> rx.Component:
    can_decide = StaffState.can[roles.DECIDE_REVIEWS]
    actions = [
        RowAction("Open", lambda row: R.open_review(row["id"]), icon="eye"),
        RowAction("Message", lambda row: rx.redirect(row["message_url"]), icon="mail", available_when="message_url"),
    ]
    bulk = rx.cond(
        (R.selected_ids.length() > 0) & can_decide,
        rx.hstack(
            rx.text(R.selected_ids.length(), " reviews selected", weight="medium", size="2"),
            rx.button(
                "Approve", on_click=R.ask_approve, color_scheme="green", high_contrast=True, size="2", id="bulk-approve"
            ),
            rx.button(
                "Exclude",
                on_click=R.ask_exclude(None),
                color_scheme="amber",
                variant="soft",
                high_contrast=True,
                size="2",
                id="bulk-exclude",
            ),
            rx.button(
                "Reject", on_click=R.ask_reject(None), color_scheme="red", variant="soft", size="2", id="bulk-reject"
            ),
            spacing="3",
            align="center",
            class_name="admin-panel",
            wrap="wrap",
        ),
    )
    header_actions = rx.hstack(
        rx.cond(
            R.test_filter != "",
            rx.button(
                rx.icon("shield-check", size=16),
                "Check flags now",
                on_click=R.check_flags,
                variant="soft",
                size="2",
                id="check-flags",
            ),
        ),
        rx.cond(
            (R.test_filter != "") & StaffState.can[roles.EXPORT],
            rx.button(
                rx.icon("download", size=16),
                "Export CSV",
                on_click=R.export_csv,
                variant="soft",
                size="2",
                id="reviews-export",
            ),
        ),
        rx.cond(
            StaffState.can[roles.CLEAR_PENDING],
            rx.button(
                "Clear expired pending reviews",
                on_click=R.clear_pending,
                variant="soft",
                color_scheme="gray",
                size="2",
                id="clear-pending",
            ),
        ),
        spacing="2",
        wrap="wrap",
    )
    return admin_layout(
        rx.vstack(
            rx.cond(R.clear_message != "", rx.callout(R.clear_message, icon="info", id="clear-pending-message")),
            rx.cond(R.flags_checked != "", rx.text(R.flags_checked, size="2", id="flags-checked")),
            rx.text(
                "Reviews not decided within ",
                str(decisions.AUTO_APPROVE_DAYS),
                " days are approved automatically (the date shows under each status).",
                size="2",
                color="var(--gray-11)",
            ),
            bulk,
            data_table(
                R,
                table_id="admin-reviews",
                columns=COLUMNS,
                actions=actions,
                filters=FILTERS,
                selectable=True,
                selection_noun="reviews",
                search_placeholder="Search participant or test",
            ),
            spacing="4",
            width="100%",
        ),
        _detail(),
        _reject_dialog(),
        confirm_dialog(
            R.approve_ids.length() > 0,
            R.approve_title,
            R.approve_text,
            "Approve",
            R.approve_selected,
            R.cancel_approve,
            "approve-confirm",
            color="green",
        ),
        confirm_dialog(
            R.exclude_ids.length() > 0,
            R.exclude_title,
            R.exclude_text,
            "Exclude",
            R.exclude_selected,
            R.cancel_exclude,
            "exclude-confirm",
            color="amber",
        ),
        actions=header_actions,
    )
