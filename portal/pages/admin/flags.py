"""/admin/flags: each feature flag on or off, its percentage of users, and per-person overrides."""

from __future__ import annotations

import reflex as rx
from reflex.vars import ObjectVar

from portal.components.admin_pages import staff_page
from portal.components.admin import admin_layout
from portal.domain.flags import FLAGS
from portal.domain.staff import flag_rules as rules
from portal.domain.staff import roles
from portal.states.admin.flags import AdminFlagsState as F


LABEL = {"fontSize": "14px", "fontWeight": "500"}


def _error(text: rx.Var, error_id: str) -> rx.Component:
    return rx.cond(text != "", rx.text(text, color="var(--red-11)", size="2", id=error_id, role="alert"))


def _switch(key: str) -> rx.Component:
    return rx.el.label(
        rx.switch(checked=F.enabled[key], on_change=lambda on: F.set_enabled(key, on), id=f"flag-{key}-enabled",
                  aria_label=rules.flag_label(key)),
        rx.text(rx.cond(F.enabled[key], "On", "Off"), size="2", weight="medium"),
        style={"display": "inline-flex", "alignItems": "center", "gap": "8px", "cursor": "pointer"},
    )


def _percentage_form(key: str) -> rx.Component:
    field_id = f"flag-{key}-percentage"
    return rx.form(
        rx.flex(
            rx.el.label("Percentage of users", html_for=field_id, style=LABEL),
            rx.flex(
                rx.input(name="percentage", id=field_id, default_value=F.percentage[key], key=f"{key}-p-" + F.revision.to_string(),
                         type="number", input_mode="numeric", min=0, max=100, step=1, width="88px", size="2",
                         aria_describedby=f"{field_id}-help {field_id}-error"),
                rx.text("%", size="2"),
                rx.button("Save", type="submit", size="2", variant="soft", id=f"{field_id}-save"),
                align="center", gap="8px",
            ),
            direction="column", gap="4px",
        ),
        rx.text("Of the users without an override, this share gets the flag while it is on (always the same people).",
                size="1", color="var(--gray-11)", id=f"{field_id}-help"),
        _error(F.percentage_error[key], f"{field_id}-error"),
        on_submit=lambda data: F.save_percentage(key, data),
        reset_on_submit=False,
        no_validate=True,  # the server's message explains a wrong number, not the browser's bubble
    )


def _override_row(key: str, row: ObjectVar[dict[str, str]]) -> rx.Component:
    return rx.flex(
        rx.text(row["email"], size="2", style={"overflowWrap": "anywhere"}),
        rx.badge(rx.cond(row["override"] == rules.ON, "On", "Off"), color_scheme=rx.cond(row["override"] == rules.ON, "green", "gray"),
                 variant="soft"),
        rx.spacer(),
        rx.button("Remove", size="1", variant="soft", color_scheme="gray", on_click=F.remove_override(key, row["account_id"]),
                  aria_label="Remove the override for " + row["email"]),
        align="center", gap="8px", width="100%",
        custom_attrs={"data-testid": f"flag-{key}-override", "data-email": row["email"]},
    )


def _override_form(key: str) -> rx.Component:
    email_id, choice_id = f"flag-{key}-override-email", f"flag-{key}-override-choice"
    return rx.form(
        rx.flex(
            rx.flex(
                rx.el.label("Account e-mail", html_for=email_id, style=LABEL),
                rx.input(name="email", id=email_id, type="email", placeholder="name@company.com", size="2",
                         key=f"{key}-e-" + F.revision.to_string(), aria_describedby=f"{email_id}-error", width="100%"),
                direction="column", gap="4px", flex="1 1 220px",
            ),
            rx.flex(
                rx.el.label("For this person", html_for=choice_id, style=LABEL),
                rx.select.root(
                    rx.select.trigger(id=choice_id),
                    rx.select.content(rx.select.item("On", value=rules.ON), rx.select.item("Off", value=rules.OFF)),
                    name="override", default_value=rules.ON, size="2",
                ),
                direction="column", gap="4px",
            ),
            rx.button("Add override", type="submit", size="2", id=f"flag-{key}-override-add"),
            align="end", gap="8px", wrap="wrap",
        ),
        _error(F.override_error[key], f"{email_id}-error"),
        on_submit=lambda data: F.add_override(key, data),
        reset_on_submit=False,
    )


def _flag_card(key: str) -> rx.Component:
    return rx.card(
        rx.flex(
            rx.flex(
                rx.heading(rules.flag_label(key), as_="h2", size="4"),
                rx.badge(F.summary[key], color_scheme=rx.cond(F.enabled[key], "green", "gray"), variant="soft", id=f"flag-{key}-summary"),
                rx.cond(F.source[key] == "growthbook", rx.badge("Rollout set in GrowthBook", color_scheme="amber", variant="soft")),
                rx.spacer(),
                _switch(key),
                align="center", gap="8px", wrap="wrap", width="100%",
            ),
            rx.text(rx.code(key), " ", F.description[key], size="2", color="var(--gray-11)"),
            _percentage_form(key),
            rx.box(
                rx.heading("Per-person overrides", as_="h3", size="2"),
                rx.text("An override wins over the switch and the percentage for that person.", size="1", color="var(--gray-11)"),
                rx.cond(
                    F.overrides[key].length() > 0,
                    rx.flex(rx.foreach(F.overrides[key], lambda row: _override_row(key, row)), direction="column", gap="6px",
                            margin_top="8px"),
                    rx.text("No overrides.", size="2", color="var(--gray-11)", margin_top="8px"),
                ),
                rx.cond(F.override_total[key] > F.overrides[key].length(),
                        rx.text("Showing the first ", F.overrides[key].length(), " of ", F.override_total[key], ".", size="1")),
            ),
            _override_form(key),
            direction="column", gap="14px",
        ),
        id=f"flag-{key}",
        width="100%",
    )


@staff_page('/admin/flags', 'Feature flags', on_load=[F.load], permission=roles.FLAGS, menu='Flags')
def flags_page() -> rx.Component:
    growthbook = rx.match(
        F.growthbook,
        ("on", rx.callout("GrowthBook is configured: a flag it defines takes its on/off and rollout from GrowthBook; the "
                          "overrides here still win.", icon="info", color_scheme="amber")),
        ("stale", rx.callout("GrowthBook cannot be reached at the moment: the flags it defines keep the last rules fetched "
                             "from it; the overrides here still win.", icon="triangle-alert", color_scheme="amber")),
        ("unreachable", rx.callout("GrowthBook is configured but cannot be reached: users get its flags as off, except for the "
                                   "overrides here.", icon="triangle-alert", color_scheme="red")),
        rx.fragment(),
    )
    return admin_layout(
        rx.vstack(
            rx.text("Changes reach users at their next page load. Every change is written to the audit log.", size="2",
                    color="var(--gray-11)"),
            growthbook,
            rx.cond(F.loaded, rx.grid(*(_flag_card(key) for key in FLAGS), columns=rx.breakpoints(initial="1", lg="2"),
                                      gap="16px", width="100%"),
                    rx.center(rx.spinner(size="3"), padding="48px", width="100%")),
            spacing="4", width="100%",
        ),
    )
