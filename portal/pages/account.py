"""/account (issue 40, item 1): account settings, linked from the user menu: the password and where the account is
signed in."""

from __future__ import annotations

import reflex as rx
from reflex.vars import ObjectVar

from portal.components.form import form, form_error, submit_button, text_field
from portal.components.layout import loading, main_layout
from portal.domain import account_deletion as deletion_rules
from portal.domain import account_settings as rules
from portal.domain import password_policy as policy
from portal.domain import two_factor as tf_rules
from portal.pages.password_reset import CHECKLIST_DEBOUNCE_MS, password_checklist
from portal.states.account import AccountState

CURRENT_ID = "account-current-password"
PASSWORD_ID = "account-new-password"
CONFIRM_ID = "account-confirm-password"


def _value_of(element_id: str) -> rx.Var:
    return rx.Var(_js_expr=f"(document.getElementById({element_id!r})?.value ?? '')", _var_type=str)


def _evaluate(field: str):
    """The three values, read when the debounced event fires, go to the policy on the server (never kept)."""
    return lambda _value: AccountState.evaluate(
        field, _value_of(CURRENT_ID), _value_of(PASSWORD_ID), _value_of(CONFIRM_ID)
    ).debounce(CHECKLIST_DEBOUNCE_MS)


def _password_form() -> rx.Component:
    return form(
        text_field(
            rules.CURRENT_LABEL,
            id=CURRENT_ID,
            name=rules.CURRENT_FIELD,
            type="password",
            error=AccountState.current_error,
            autocomplete="current-password",
            on_change=_evaluate(rules.CURRENT_FIELD),
        ),
        text_field(
            "New Password",
            id=PASSWORD_ID,
            name=policy.PASSWORD_FIELD,
            type="password",
            error=AccountState.password_feedback,
            autocomplete="new-password",
            placeholder=f"{policy.MIN_LENGTH}+ characters",
            on_change=_evaluate(policy.PASSWORD_FIELD),
            on_blur=AccountState.touch(policy.PASSWORD_FIELD),
        ),
        password_checklist(AccountState.requirements),
        text_field(
            "Confirm New Password",
            id=CONFIRM_ID,
            name=policy.CONFIRM_FIELD,
            type="password",
            error=AccountState.confirm_feedback,
            autocomplete="new-password",
            on_change=_evaluate(policy.CONFIRM_FIELD),
            on_blur=AccountState.touch(policy.CONFIRM_FIELD),
        ),
        form_error(AccountState.global_error, id="account-password-error"),
        submit_button(
            rules.CHANGE_BUTTON,
            "Changing...",
            submitting=AccountState.submitting,
            disabled=AccountState.submitting | ~AccountState.ready | ~AccountState.current_filled,
            button_id="account-password-submit",
        ),
        id="change-password-form",
        on_submit=AccountState.submit,
    )


def _password_card() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.heading(rules.PASSWORD_HEADING, size="5", as_="h2"),
            rx.cond(
                AccountState.has_password,
                rx.vstack(
                    rx.text(rules.PASSWORD_HINT, color="var(--gray-11)", size="2"),
                    rx.box(_password_form(), width="100%", max_width="440px"),
                    spacing="4",
                    width="100%",
                ),
                rx.text(rules.NO_PASSWORD, color="var(--gray-11)", id="account-no-password"),
            ),
            spacing="4",
            width="100%",
        ),
        width="100%",
        id="account-password",
    )


def _session_row(item: ObjectVar[dict]) -> rx.Component:
    return rx.el.li(
        rx.hstack(
            rx.box(
                rx.cond(item["mobile"], rx.icon("smartphone", size=20), rx.icon("monitor", size=20)),
                aria_hidden="true",
                color="var(--gray-11)",
                padding_top="2px",
            ),
            rx.vstack(
                rx.hstack(
                    rx.text(item["device"].to(str), weight="medium", class_name="account-session-device"),
                    rx.cond(item["current"], rx.badge(rules.THIS_DEVICE, color_scheme="grass", variant="soft")),
                    spacing="2",
                    align="center",
                    wrap="wrap",
                ),
                rx.text(
                    item["place"].to(str) + " · last used " + item["last_used"].to(str),
                    size="2",
                    color="var(--gray-11)",
                ),
                rx.text("Signed in " + item["signed_in"].to(str), size="1", color="var(--gray-11)"),
                spacing="1",
                flex="1",
                min_width="0",
            ),
            rx.cond(
                item["current"],
                rx.fragment(),
                rx.button(
                    rules.SIGN_OUT,
                    variant="soft",
                    color_scheme="red",
                    on_click=AccountState.sign_out_session(item["id"]),
                    aria_label=rules.SIGN_OUT + ": " + item["device"].to(str) + ", " + item["last_used"].to(str),
                    class_name="account-session-sign-out",
                ),
            ),
            spacing="3",
            align="start",
            width="100%",
        ),
        class_name="account-session",
        data_current=rx.cond(item["current"], "true", "false"),
        style={"listStyle": "none", "padding": "12px 0", "borderTop": "1px solid var(--gray-4)"},
    )


def _sessions_card() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.heading(rules.SESSIONS_HEADING, size="5", as_="h2", id="account-sessions-title"),
            rx.text(rules.SESSIONS_HINT, color="var(--gray-11)", size="2"),
            rx.el.ul(
                rx.foreach(AccountState.sessions, _session_row),
                id="account-sessions",
                aria_labelledby="account-sessions-title",
                style={"margin": 0, "padding": 0, "width": "100%"},
            ),
            rx.button(
                rules.SIGN_OUT_OTHERS,
                variant="outline",
                color_scheme="red",
                disabled=AccountState.other_sessions == 0,
                on_click=AccountState.sign_out_others,
                id="account-sign-out-others",
            ),
            spacing="3",
            width="100%",
            align="start",
        ),
        width="100%",
        id="account-sessions-card",
    )


def _code_form(label: str, button: str, on_submit, form_id: str, *, destructive: bool = False) -> rx.Component:
    return form(
        text_field(
            label,
            id=f"{form_id}-code",
            name="code",
            autocomplete="one-time-code",
            error=AccountState.two_factor_error,
            max_length=32,
        ),
        rx.button(
            button,
            type="submit",
            size="3",
            color_scheme="red" if destructive else None,
            variant="outline" if destructive else "solid",
            id=f"{form_id}-submit",
        ),
        on_submit=on_submit,
        id=form_id,
    )


def _setup() -> rx.Component:
    return rx.vstack(
        rx.text(tf_rules.SCAN, size="2"),
        rx.image(
            src=AccountState.setup_qr,
            alt="QR code to scan with your authenticator app",
            width="200px",
            height="200px",
            id="two-factor-qr",
        ),
        rx.text(
            tf_rules.KEY_LABEL + ": ",
            rx.code(AccountState.setup_key, id="two-factor-key", variant="ghost", size="3"),
            size="2",
        ),
        rx.box(
            _code_form(tf_rules.CODE_LABEL, tf_rules.CONFIRM, AccountState.confirm_two_factor, "two-factor-setup"),
            width="100%",
            max_width="320px",
        ),
        spacing="3",
        width="100%",
    )


def _recovery_codes() -> rx.Component:
    return rx.callout.root(
        rx.callout.text(rx.text(tf_rules.CODES_TITLE, weight="bold", as_="span"), " ", tf_rules.CODES_TEXT),
        rx.el.ul(
            rx.foreach(AccountState.recovery_codes, lambda code: rx.el.li(rx.code(code, size="3"))),
            id="recovery-codes",
            aria_label=tf_rules.CODES_TITLE,
            style={
                "display": "grid",
                "gridTemplateColumns": "repeat(2, max-content)",
                "gap": "6px 24px",
                "listStyle": "none",
                "margin": 0,
                "padding": 0,
            },
        ),
        rx.button(tf_rules.CODES_DONE, on_click=AccountState.codes_saved, id="recovery-codes-done"),
        color_scheme="amber",
        id="recovery-codes-box",
    )


def _two_factor_card() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.heading(tf_rules.HEADING, size="5", as_="h2", id="two-factor-title"),
            rx.cond(
                AccountState.sent_to_turn_on & ~AccountState.two_factor_on,
                rx.callout(
                    tf_rules.STAFF_REQUIRED, icon="shield-alert", color_scheme="amber", id="two-factor-required"
                ),
            ),
            rx.cond(AccountState.recovery_codes.length() > 0, _recovery_codes()),
            rx.cond(
                AccountState.two_factor_on,
                rx.vstack(
                    rx.hstack(
                        rx.badge("On", color_scheme="grass", variant="soft", size="2"),
                        rx.text(tf_rules.ON_TEXT, size="2", color="var(--gray-11)"),
                        spacing="2",
                        align="center",
                        wrap="wrap",
                        id="two-factor-on",
                    ),
                    rx.text(AccountState.codes_left.to(str) + " of 10 recovery codes left.", size="2", id="codes-left"),
                    rx.cond(
                        AccountState.two_factor_required,
                        rx.text(tf_rules.STAFF_KEEP, size="2", color="var(--gray-11)"),
                        rx.box(
                            _code_form(
                                tf_rules.TURN_OFF_CODE_LABEL,
                                tf_rules.TURN_OFF,
                                AccountState.turn_off_two_factor,
                                "two-factor-off",
                                destructive=True,
                            ),
                            width="100%",
                            max_width="360px",
                        ),
                    ),
                    spacing="3",
                    width="100%",
                ),
                rx.vstack(
                    rx.text(tf_rules.OFF_TEXT, size="2", color="var(--gray-11)"),
                    rx.cond(
                        AccountState.setup_qr != "",
                        _setup(),
                        rx.button(tf_rules.TURN_ON, on_click=AccountState.start_two_factor, id="two-factor-start"),
                    ),
                    spacing="3",
                    width="100%",
                ),
            ),
            spacing="4",
            width="100%",
        ),
        width="100%",
        id="two-factor",
    )


def _data_card() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.heading(deletion_rules.DATA_HEADING, size="5", as_="h2"),
            rx.text(deletion_rules.DATA_TEXT, size="2", color="var(--gray-11)"),
            rx.button(
                rx.icon("download", size=16, aria_hidden="true"),
                deletion_rules.DATA_BUTTON,
                variant="soft",
                on_click=AccountState.download_my_data,
                id="download-my-data",
            ),
            rx.divider(),
            rx.heading(deletion_rules.HEADING, size="5", as_="h2"),
            rx.text(deletion_rules.TEXT, size="2", color="var(--gray-11)"),
            rx.button(
                deletion_rules.BUTTON,
                color_scheme="red",
                variant="outline",
                on_click=AccountState.request_deletion,
                id="delete-account-request",
            ),
            spacing="3",
            width="100%",
            align="start",
        ),
        width="100%",
        id="account-data",
    )


def account_page() -> rx.Component:
    return main_layout(
        rx.vstack(
            rx.heading(rules.TITLE, size="7", as_="h1", id="account-title"),
            rx.cond(
                AccountState.loaded,
                rx.vstack(
                    _password_card(), _two_factor_card(), _sessions_card(), _data_card(), spacing="5", width="100%"
                ),
                loading(),
            ),
            spacing="4",
            align="start",
            width="100%",
            max_width="760px",
        )
    )
