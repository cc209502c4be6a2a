"""/admin/api-keys: make a key with scopes and a rate (shown once, in a dialog), the keys with their last use, and
revoking one after a confirmation."""

from __future__ import annotations

import reflex as rx
from reflex.vars import ObjectVar

from portal.components.admin import admin_layout, confirm_dialog, status_badge
from portal.components.admin_pages import staff_page
from portal.components.form import checkbox_group_field, form, form_error, text_field
from portal.domain import api_keys as rules
from portal.domain.staff import roles
from portal.states.admin.api_keys import COPY_JS, VALUE_ID
from portal.states.admin.api_keys import AdminApiKeysState as K
from portal.states.browser import toast

SCOPE_OPTIONS = [(scope, f"{label} ({scope})") for scope, label in rules.SCOPE_LABELS.items()]
COLUMNS = ("Name", "Key", "Scopes", "Rate", "Created (UTC), by", "Last used (UTC)", "Status", "Actions")


def _create_form() -> rx.Component:
    return rx.card(
        form(
            rx.heading("New key", as_="h2", size="4"),
            text_field(
                "Name",
                id="api-key-name",
                name="name",
                required=True,
                size="2",
                max_length=rules.NAME_MAX,
                key="name-" + K.revision.to_string(),
                error=K.errors["name"],
                helper="What the key is for, e.g. the customer web app.",
            ),
            checkbox_group_field(
                "Scopes *",
                id="api-key-scopes",
                options=SCOPE_OPTIONS,
                checked=K.chosen,
                on_toggle=K.toggle_scope,
                error=K.errors["scopes"],
                helper="A key does only what its scopes allow, and only what your role allows.",
            ),
            text_field(
                "Requests a minute",
                id="api-key-rate",
                name="rate_per_minute",
                required=True,
                size="2",
                type="number",
                input_mode="numeric",
                min=rules.RATE_MIN,
                max=rules.RATE_MAX,
                step=1,
                width="160px",
                default_value=str(rules.DEFAULT_RATE_PER_MINUTE),
                key="rate-" + K.revision.to_string(),
                error=K.errors["rate_per_minute"],
                helper="More requests in a minute are answered 429 until the minute ends.",
            ),
            form_error(K.form_error, id="api-key-form-error"),
            rx.button("Create key", type="submit", size="2", id="api-key-create"),
            on_submit=K.create,
            no_validate=True,  # the server's message says what is wrong, not the browser's bubble
            id="api-key-form",
        ),
        width="100%",
        max_width="720px",
    )


def _row(row: ObjectVar[dict[str, str]]) -> rx.Component:
    revoke = rx.button(
        "Revoke",
        size="1",
        variant="soft",
        color_scheme="red",
        on_click=K.ask_revoke(row["id"]),
        aria_label="Revoke the key " + row["name"],
    )
    return rx.el.tr(
        rx.el.td(rx.text(row["name"], weight="medium", size="2")),
        rx.el.td(rx.code(row["prefix"], size="2")),
        rx.el.td(rx.text(row["scopes"], size="1", style={"maxWidth": "260px"})),
        rx.el.td(row["rate"]),
        rx.el.td(
            rx.text(row["created"], size="2"),
            rx.text(row["creator"], size="1", color="var(--gray-11)", style={"overflowWrap": "anywhere"}),
        ),
        rx.el.td(row["last_used"]),
        rx.el.td(status_badge(row["status"]), rx.cond(row["revoked"] != "", rx.text(row["revoked"], size="1"))),
        rx.el.td(rx.cond(row["status"] == "Active", revoke)),
        custom_attrs={"data-testid": "api-key-row", "data-row-id": row["id"], "data-prefix": row["prefix"]},
    )


def _keys() -> rx.Component:
    return rx.cond(
        K.keys.length() > 0,
        rx.box(
            rx.el.table(
                rx.el.thead(rx.el.tr(*(rx.el.th(name, scope="col") for name in COLUMNS))),
                rx.el.tbody(rx.foreach(K.keys, _row)),
                id="api-keys-table",
                class_name="results-table",
            ),
            class_name="results-scroll",
            tab_index=0,
            role="region",
            aria_label="API keys",
        ),
        rx.text("No API keys yet.", size="2", id="api-keys-empty"),
    )


def _created_dialog() -> rx.Component:
    """The new key, once: its value reaches the field from the create event, never from the page's state."""
    return rx.alert_dialog.root(
        rx.alert_dialog.content(
            rx.alert_dialog.title(rx.el.span("Your new key: ", K.created_name, id="api-key-created-title")),
            rx.alert_dialog.description(
                rx.el.span(
                    "Copy it now and keep it somewhere safe: it will not be shown again. The portal keeps only a "
                    "fingerprint of it and its first characters.",
                    id="api-key-created-body",
                ),
                size="2",
            ),
            rx.el.label(
                "API key", html_for=VALUE_ID, class_name="portal-label", style={"display": "block", "marginTop": "16px"}
            ),
            rx.flex(
                rx.input(
                    id=VALUE_ID,
                    read_only=True,
                    size="2",
                    width="100%",
                    auto_complete="off",
                    spell_check=False,
                    style={"fontFamily": "var(--code-font-family)"},
                ),
                rx.button(
                    rx.icon("copy", size=14),
                    "Copy key",
                    size="2",
                    variant="soft",
                    id="api-key-copy",
                    on_click=[rx.call_script(COPY_JS), toast("success", "Key copied.")],
                ),
                gap="8px",
                align="center",
                wrap="wrap",
                margin_top="4px",
            ),
            rx.flex(
                rx.alert_dialog.action(rx.button("Done", on_click=K.close_created, id="api-key-created-done")),
                justify="end",
                margin_top="16px",
            ),
            id="api-key-created",
        ),
        open=K.created_name != "",
    )


@staff_page("/admin/api-keys", "API keys", on_load=[K.load], permission=roles.API_KEYS, menu="API keys")
def api_keys_page() -> rx.Component:
    return admin_layout(
        rx.vstack(
            rx.text(
                "Keys for the REST API at /api/v1 (documentation at ",
                rx.link("/api/docs", href="/api/docs"),
                "). A key acts for the super-admin who made it, within its scopes; every write made with it is in "
                "the audit log under the key.",
                size="2",
                color="var(--gray-11)",
            ),
            _create_form(),
            rx.heading("Keys", as_="h2", size="4"),
            rx.cond(K.loaded, _keys(), rx.center(rx.spinner(size="3"), padding="48px", width="100%")),
            spacing="4",
            width="100%",
        ),
        _created_dialog(),
        confirm_dialog(
            K.revoke_id != "",
            rx.text("Revoke ", K.revoke_name, "?"),
            "Requests made with this key are refused from now on. A revoked key cannot be turned back on.",
            "Revoke key",
            K.revoke(K.revoke_id),
            K.cancel_revoke,
            "api-key-revoke",
            color="red",
        ),
    )
