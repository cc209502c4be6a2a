"""/admin/tax: participants near the yearly tax reporting threshold (services/admin/tax.py)."""

from __future__ import annotations

from typing import Any

import reflex as rx

from portal.components.admin import admin_layout
from portal.components.admin_pages import staff_page
from portal.domain import payouts as rules
from portal.domain.staff import roles
from portal.states.admin.tax import AdminTaxState as T

MUTED = "var(--gray-11)"


def _row(row: Any) -> rx.Component:
    return rx.el.tr(
        rx.el.th(row["participant"], scope="row"),
        rx.el.td(row["year_total"]),
        rx.el.td(row["paid"]),
        rx.el.td(row["standing"]),
        rx.el.td(
            rx.hstack(
                rx.cond(
                    row["may_hold"] != "",
                    rx.button(
                        "Hold payouts",
                        size="1",
                        variant="soft",
                        color_scheme="amber",
                        high_contrast=True,
                        on_click=T.hold(row["id"]),
                    ),
                ),
                rx.cond(
                    row["held"] != "",
                    rx.button("Tax details on file", size="1", variant="soft", on_click=T.details_on_file(row["id"])),
                ),
                spacing="2",
            )
        ),
        data_account=row["id"],
    )


@staff_page("/admin/tax", "Tax threshold", on_load=[T.load_page], permission=roles.PAY, menu="Tax")
def tax_page() -> rx.Component:
    return admin_layout(
        rx.vstack(
            rx.text(
                "Participants whose payments this year (paid, and on their way) reach ",
                f"{round(rules.APPROACHING_SHARE * 100)}% of the yearly reporting threshold of ",
                T.threshold,
                ", and those whose payouts are held. A held participant's approved rewards are not paid until their "
                "tax details are on file; they see why on their rewards tab.",
                size="2",
                color=MUTED,
            ),
            rx.cond(
                T.rows.length() > 0,
                rx.box(
                    rx.el.table(
                        rx.el.thead(
                            rx.el.tr(
                                *(
                                    rx.el.th(name, scope="col")
                                    for name in ("Participant", "This year", "Paid this year", "Standing", "Actions")
                                )
                            )
                        ),
                        rx.el.tbody(rx.foreach(T.rows, _row)),
                        id="tax-table",
                        class_name="results-table",
                    ),
                    class_name="results-scroll",
                    tab_index=0,
                    role="region",
                    aria_label="Participants near the tax threshold",
                ),
                rx.text("Nobody is near the threshold this year.", size="2", id="tax-empty"),
            ),
            spacing="4",
            width="100%",
        ),
    )
