"""The form kit's one markup (portal/components/form; issue 33, item 2): the label names the control by its
id and carries the required mark, the control points at its helper and (while shown) its error, and the
error is an alert with the field's id."""

from __future__ import annotations

import reflex as rx

from portal.components.form import (
    checkbox_group_field,
    field_label,
    form_error,
    radio_group_field,
    select_field,
    text_field,
)


def _error() -> rx.Var:
    return rx.Var(_js_expr="state.error", _var_type=str)


def test_a_text_field_ties_label_helper_and_error_to_its_control():
    js = str(
        text_field(
            "Work email",
            id="w",
            name="workEmail",
            type="email",
            error=_error(),
            helper="Your employer's address.",
            required=True,
            default_value="",
            on_blur=rx.console_log("left"),
        )
    )
    label = 'jsx("label",{className:"portal-label",htmlFor:"w"},"Work email"," ",'
    assert label + 'jsx("span",{className:"portal-required"},"*"))' in js
    assert '"aria-required":"true"' in js
    # While the error shows: invalid, described by the error and the helper; else by the helper only.
    assert '? "w-error w-helper" : "w-helper")' in js
    assert '? "true" : "false")' in js
    assert 'id:"w-helper"' in js and 'id:"w-error"' in js and 'role:"alert"' in js
    assert 'name:"workEmail"' in js and 'type:"email"' in js


def test_an_optional_field_says_so_and_a_field_without_messages_has_no_aria_for_them():
    js = str(text_field("Company", id="c", optional=True))
    assert 'jsx("span",{className:"portal-optional"}," (optional)")' in js
    assert "aria-describedby" not in js and "aria-invalid" not in js and "aria-required" not in js


def test_a_debounced_field_sends_when_typing_pauses():
    js = str(
        text_field(
            "Name",
            id="n",
            value=rx.Var(_js_expr="state.name", _var_type=str),
            on_change=rx.console_log("typed"),
            debounce=300,
        )
    )
    assert "DebounceInput" in js and "debounceTimeout:300" in js


def test_selects_native_for_long_lists_and_radix_otherwise():
    native = str(
        select_field(
            "Country",
            id="country",
            options=[("US", "United States")],
            native=True,
            placeholder="Choose a country",
            error=_error(),
        )
    )
    assert 'jsx("select",' in native and 'className:"portal-select"' in native
    assert 'jsx("option",{value:""},"Choose a country")' in native
    radix = str(select_field("Status", id="status", options=[("running", "Running")], size="2"))
    assert "RadixThemesSelect.Trigger" in radix and 'id:"status"' in radix and 'htmlFor:"status"' in radix


def test_a_checkbox_group_is_a_fieldset_named_by_its_legend_with_an_id_per_option():
    chosen = rx.Var(_js_expr="state.chosen", _var_type=list[str]).guess_type()
    js = str(
        checkbox_group_field(
            "Languages",
            id="profile-languages",
            options=[("english", "English")],
            checked=chosen,
            on_toggle=lambda value: rx.console_log(value),
            option_prefix="languages",
        )
    )
    assert 'jsx("fieldset",' in js and 'jsx("legend",{className:"portal-label"},"Languages")' in js
    assert 'id:"languages-english"' in js


def test_a_radio_group_is_named_by_its_label():
    js = str(
        radio_group_field(
            "Company size",
            id="size",
            options=[("1", "1 - 9")],
            value="",
            on_change=rx.console_log("chosen"),
            option_prefix="size",
        )
    )
    assert '"aria-labelledby":"size-label"' in js and 'id:"size-label"' in js and 'id:"size-1"' in js


def test_labels_and_form_errors_have_one_look():
    assert 'className:"portal-label"' in str(field_label("Upload a new image", html_for="u"))
    js = str(form_error(_error(), id="form-error"))
    assert "RadixThemesCallout.Root" in js and 'role:"alert"' in js and 'id:"form-error"' in js
