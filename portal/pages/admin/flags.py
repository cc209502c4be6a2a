"""/admin/flags: each feature flag on or off, its percentage of users, and per-person overrides."""

from __future__ import annotations

import reflex as rx
from reflex.vars import ObjectVar

from portal.components.admin import admin_layout
from portal.components.admin_pages import staff_page
from portal.components.form import select_field, switch_field, text_field
from portal.domain.flags import FLAGS
from portal.domain.staff import flag_rules as rules
from portal.domain.staff import roles
from portal.states.admin.flags import AdminFlagsState as F


def _switch(key: str) -> rx.Component:
    return switch_field(
        rx.cond(F.enabled[key], "On", "Off"),
        id=f"flag-{key}-enabled",
        checked=F.enabled[key],
        on_change=lambda on: F.set_enabled(key, on),
        aria_label=rules.flag_label(key),
        field_style={"width": "auto"},
    )


def _percentage_form(key: str) -> rx.Component:
    field_id = f"flag-{key}-percentage"
    return rx.form(
        text_field(
            "Percentage of users",
            id=field_id,
            name="percentage",
            default_value=F.percentage[key],
            key=f"{key}-p-" + F.revision.to_string(),
            type="number",
            input_mode="numeric",
            min=0,
            max=100,
            step=1,
            size="2",
            width="88px",
            error=F.percentage_error[key],
            helper="Of the users without an override, this share gets the flag while it is on (always the same "
            "people).",
            beside=[
                rx.text("%", size="2"),
                rx.button("Save", type="submit", size="2", variant="soft", id=f"{field_id}-save"),
            ],
        ),
        on_submit=lambda data: F.save_percentage(key, data),
        reset_on_submit=False,
        no_validate=True,  # the server's message explains a wrong number, not the browser's bubble
    )


def _override_row(key: str, row: ObjectVar[dict[str, str]]) -> rx.Component:
    return rx.flex(
        rx.text(row["email"], size="2", style={"overflowWrap": "anywhere"}),
        rx.badge(
            rx.cond(row["override"] == rules.ON, "On", "Off"),
            color_scheme=rx.cond(row["override"] == rules.ON, "green", "gray"),
            variant="soft",
        ),
        rx.spacer(),
        rx.button(
            "Remove",
            size="1",
            variant="soft",
            color_scheme="gray",
            on_click=F.remove_override(key, row["account_id"]),
            aria_label="Remove the override for " + row["email"],
        ),
        align="center",
        gap="8px",
        width="100%",
        custom_attrs={"data-testid": f"flag-{key}-override", "data-email": row["email"]},
    )


def _override_form(key: str) -> rx.Component:
    return rx.form(
        rx.flex(
            rx.box(
                text_field(
                    "Account e-mail",
                    id=f"flag-{key}-override-email",
                    name="email",
                    type="email",
                    placeholder="name@company.com",
                    size="2",
                    key=f"{key}-e-" + F.revision.to_string(),
                    error=F.override_error[key],
                ),
                flex="1 1 220px",
            ),
            rx.box(
                select_field(
                    "For this person",
                    id=f"flag-{key}-override-choice",
                    name="override",
                    size="2",
                    options=[(rules.ON, "On"), (rules.OFF, "Off")],
                    default_value=rules.ON,
                    width="auto",
                ),
            ),
            # Level with the controls, under their labels.
            rx.button("Add override", type="submit", size="2", id=f"flag-{key}-override-add", margin_top="24px"),
            align="start",
            gap="8px",
            wrap="wrap",
        ),
        on_submit=lambda data: F.add_override(key, data),
        reset_on_submit=False,
    )


def _flag_card(key: str) -> rx.Component:
    return rx.card(
        rx.flex(
            rx.flex(
                rx.heading(rules.flag_label(key), as_="h2", size="4"),
                rx.badge(
                    F.summary[key],
                    color_scheme=rx.cond(F.enabled[key], "green", "gray"),
                    variant="soft",
                    id=f"flag-{key}-summary",
                ),
                rx.cond(
                    F.source[key] == "growthbook",
                    rx.badge("Rollout set in GrowthBook", color_scheme="amber", variant="soft"),
                ),
                rx.spacer(),
                _switch(key),
                align="center",
                gap="8px",
                wrap="wrap",
                width="100%",
            ),
            rx.text(rx.code(key), " ", F.description[key], size="2", color="var(--gray-11)"),
            _percentage_form(key),
            rx.box(
                rx.heading("Per-person overrides", as_="h3", size="2"),
                rx.text(
                    "An override wins over the switch and the percentage for that person.",
                    size="1",
                    color="var(--gray-11)",
                ),
                rx.cond(
                    F.overrides[key].length() > 0,
                    rx.flex(
                        rx.foreach(F.overrides[key], lambda row: _override_row(key, row)),
                        direction="column",
                        gap="6px",
                        margin_top="8px",
                    ),
                    rx.text("No overrides.", size="2", color="var(--gray-11)", margin_top="8px"),
                ),
                rx.cond(
                    F.override_total[key] > F.overrides[key].length(),
                    rx.text(
                        "Showing the first ", F.overrides[key].length(), " of ", F.override_total[key], ".", size="1"
                    ),
                ),
            ),
            _override_form(key),
            direction="column",
            gap="14px",
        ),
        id=f"flag-{key}",
        width="100%",
    )


@staff_page("/admin/flags", "Feature flags", on_load=[F.load], permission=roles.FLAGS, menu="Flags")
def flags_page() -> rx.Component:
    growthbook = rx.match(
        F.growthbook,
        (
            "on",
            rx.callout(
                "GrowthBook is configured: a flag it defines takes its on/off and rollout from GrowthBook; the "
                "overrides here still win.",
                icon="info",
                color_scheme="amber",
            ),
        ),
        (
            "stale",
            rx.callout(
                "GrowthBook cannot be reached at the moment: the flags it defines keep the last rules fetched "
                "from it; the overrides here still win.",
                icon="triangle-alert",
                color_scheme="amber",
            ),
        ),
        (
            "unreachable",
            rx.callout(
                "GrowthBook is configured but cannot be reached: users get its flags as off, except for the "
                "overrides here.",
                icon="triangle-alert",
                color_scheme="red",
            ),
        ),
        rx.fragment(),
    )
    return admin_layout(
        rx.vstack(
            rx.text(
                "Changes reach users at their next page load. Every change is written to the audit log.",
                size="2",
                color="var(--gray-11)",
            ),
            growthbook,
            rx.cond(
                F.loaded,
                rx.grid(
                    *(_flag_card(key) for key in FLAGS),
                    columns=rx.breakpoints(initial="1", lg="2"),
                    gap="16px",
                    width="100%",
                ),
                rx.center(rx.spinner(size="3"), padding="48px", width="100%"),
            ),
            spacing="4",
            width="100%",
        ),
    )
