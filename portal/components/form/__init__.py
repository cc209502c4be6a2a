"""The form kit: every form of the portal is built from these fields (participants' and staff's alike).

A field takes its value and its events as arguments, plain Vars and event handlers, never a state class:

    text_field("Email Address", id="sign-in-email", name="email", type="email", error=SignInState.email_error)
    select_field("Status", id="edit-status", options=S.status_options, value=S.form["status"],
                 on_change=lambda v: S.set_field("status", v), size="2")

Each renders one markup (field.py): a `label` for the control's id with the required mark ('Label *') or
'(optional)', the Radix control with aria-invalid, aria-describedby (its `id-error` while shown and its
`id-helper`) and aria-required, the helper text, the error message (role=alert), then what the form adds
(`after`). Text fields send on blur or when typing pauses (`debounce=`), one event per deliberate action.
The look is in assets/portal.css ('The form kit').
"""

from portal.components.form.actions import form, form_error, submit_button
from portal.components.form.choices import (
    checkbox_field,
    checkbox_group_field,
    chips,
    multi_select,
    radio_group_field,
    scroll_list,
    switch_field,
)
from portal.components.form.field import control_aria, field, field_error, field_helper, field_label
from portal.components.form.inputs import select_field, text_field, textarea_field

__all__ = [
    "checkbox_field",
    "checkbox_group_field",
    "chips",
    "control_aria",
    "field",
    "field_error",
    "field_helper",
    "field_label",
    "form",
    "form_error",
    "multi_select",
    "radio_group_field",
    "scroll_list",
    "select_field",
    "submit_button",
    "switch_field",
    "text_field",
    "textarea_field",
]
