"""The profile form (screen 10), bound to a state that mixes in `ProfileFormState`: the participant's own
/profile (pages/profile.py) and the staff view of a participant (pages/admin/profile.py)."""

from __future__ import annotations

import reflex as rx

from portal.domain import geography
from portal.domain import profile_rules as rules
from portal.domain.reference_data import LANGUAGE_OPTIONS, SENIORITY_OPTIONS
from portal.states.profile_form import ProfileFormState

_LABEL_STYLE = {"fontSize": "14px", "fontWeight": 500, "color": "var(--gray-12)"}
_SELECT_STYLE = {
    "width": "100%", "height": "40px", "padding": "0 10px", "fontSize": "16px", "borderRadius": "var(--radius-2)",
    "border": "1px solid var(--gray-7)", "background": "var(--color-surface)", "color": "var(--gray-12)",
}
_PICKER_STYLE = {
    "maxHeight": "220px", "overflowY": "auto", "display": "flex", "flexDirection": "column", "gap": "8px",
    "padding": "10px 12px", "border": "1px solid var(--gray-6)", "borderRadius": "var(--radius-2)",
    "background": "var(--gray-1)",
}
_CHANGED_STYLE = {"background": "var(--amber-3)", "borderRadius": "var(--radius-2)", "padding": "6px", "margin": "-6px"}


def _label(text: str, field_id: str, required: bool = False) -> rx.Component:
    return rx.el.label(text + (" *" if required else ""), html_for=field_id, style=_LABEL_STYLE)


def _helper(text: str, field_id: str) -> rx.Component:
    return rx.text(text, size="1", color="var(--gray-11)", id=f"{field_id}-helper")


def _error(S: type[ProfileFormState], key: str, field_id: str) -> rx.Component:
    message = S.errors.get(key, "")
    return rx.cond(message != "", rx.text(message, color="red", size="2", id=f"{field_id}-error", role="alert"))


def _old_value(S: type[ProfileFormState], key: str) -> rx.Component:
    """Staff see the value before the last change."""
    return rx.cond(
        S.is_staff & S.old_data.contains(key),
        rx.text("Previously: ", rx.text.strong(S.old_data.get(key, "")), size="1",
                class_name="profile-old-value", id=f"old-{key}"),
    )


def _field_box(S: type[ProfileFormState], key: str, *children: rx.Component) -> rx.Component:
    return rx.vstack(
        *children,
        spacing="1",
        width="100%",
        align="stretch",
        class_name="profile-field",
        style=rx.cond(S.is_staff & S.old_data.contains(key), _CHANGED_STYLE, {}),
    )


def _text(S: type[ProfileFormState], key: str, label: str, *, required: bool = False, helper: str = "", type_: str = "text",
          autocomplete: str | None = None, debounce: int = 500, on_change=None, **props) -> rx.Component:
    field_id = f"profile-{key}"
    message = S.errors.get(key, "")
    handler = on_change or (lambda value: S.set_text(key, value))
    return _field_box(S, 
        key,
        _label(label, field_id, required),
        rx.debounce_input(
            rx.input(
                id=field_id,
                name=key,
                type=type_,
                value=S.values.get(key, ""),
                on_change=handler,
                auto_complete=autocomplete,
                aria_invalid=rx.cond(message != "", "true", "false"),
                aria_describedby=f"{field_id}-error {field_id}-helper",
                color_scheme=rx.cond(message != "", "red", "indigo"),
                size="3",
                width="100%",
                **props,
            ),
            debounce_timeout=debounce,
        ),
        _helper(helper, field_id) if helper else rx.fragment(),
        _error(S, key, field_id),
        _old_value(S, key),
    )


def _select(S: type[ProfileFormState], key: str, label: str, options: list[tuple[str, str]] | rx.Var, *, placeholder: str = "Choose...") -> rx.Component:
    field_id = f"profile-{key}"
    if isinstance(options, rx.Var):
        items = rx.foreach(options, lambda row: rx.el.option(row[1], value=row[0]))
    else:
        items = [rx.el.option(text, value=value) for value, text in options]
    return _field_box(S, 
        key,
        _label(label, field_id),
        rx.el.select(
            rx.el.option(placeholder, value=""),
            items,
            id=field_id,
            name=key,
            value=S.values.get(key, ""),
            on_change=lambda value: S.set_text(key, value),
            style=_SELECT_STYLE,
            aria_describedby=f"{field_id}-error",
        ),
        _error(S, key, field_id),
        _old_value(S, key),
    )


def _section(title: str, *children: rx.Component, section_id: str) -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.heading(title, size="4", as_="h2"),
            rx.grid(*children, columns=rx.breakpoints(initial="1", md="2"), gap="16px", width="100%"),
            spacing="4",
            width="100%",
        ),
        size="3",
        width="100%",
        id=section_id,
    )


def _full(child: rx.Component) -> rx.Component:
    return rx.box(child, grid_column="1 / -1", width="100%")


def _switch(S: type[ProfileFormState], key: str, label: str, helper: str = "") -> rx.Component:
    field_id = f"profile-{key}"
    return _field_box(S, 
        key,
        rx.el.label(
            rx.switch(
                checked=S.flags.get(key, False),
                on_change=lambda on: S.set_flag(key, on),
                id=field_id,
            ),
            rx.text(label, size="2", weight="medium"),
            style={"display": "inline-flex", "alignItems": "center", "gap": "8px", "cursor": "pointer"},
        ),
        _helper(helper, field_id) if helper else rx.fragment(),
        _old_value(S, key),
    )


def _checkbox_group(S: type[ProfileFormState], key: str, label: str, options, checked, on_toggle, *, disabled=None, helper: str = "") -> rx.Component:
    field_id = f"profile-{key}"
    return _field_box(S, 
        key,
        rx.el.fieldset(
            rx.el.legend(label, style=_LABEL_STYLE),
            rx.flex(
                *[
                    rx.checkbox(
                        option.label,
                        checked=checked.contains(option.value),
                        on_change=lambda _on, v=option.value: on_toggle(v),
                        disabled=disabled.contains(option.value) if disabled is not None else False,
                        id=f"{key}-{option.value}",
                        size="2",
                    )
                    for option in options
                ],
                direction="column",
                gap="8px",
            ),
            style={"border": "0", "padding": "0", "margin": "0"},
            aria_describedby=f"{field_id}-error",
        ),
        _helper(helper, field_id) if helper else rx.fragment(),
        _error(S, key, field_id),
        _old_value(S, key),
    )


def _chips(S: type[ProfileFormState], ids: rx.Var, on_remove, chips_id: str) -> rx.Component:
    return rx.flex(
        rx.foreach(
            ids,
            lambda i: rx.badge(
                S.chosen_names.get(i, i),
                rx.el.button(
                    rx.icon("x", size=12),
                    type="button",
                    on_click=on_remove(i),
                    aria_label=f"Remove {S.chosen_names.get(i, i)}",
                    style={"border": "0", "background": "transparent", "padding": "0", "color": "inherit",
                           "cursor": "pointer", "display": "inline-flex", "marginLeft": "4px", "borderRadius": "4px"},
                ),
                size="2",
                variant="soft",
                radius="full",
                class_name="profile-chip",
            ),
        ),
        gap="6px",
        wrap="wrap",
        id=chips_id,
    )


def _list_error(S: type[ProfileFormState], message: rx.Var[str], list_id: str) -> rx.Component:
    return rx.cond(
        message != "",
        rx.callout.root(
            rx.callout.text(message),
            rx.button("Try again", size="1", variant="soft", on_click=S.retry_lists, type="button"),
            color_scheme="red",
            id=f"{list_id}-load-error",
            role="alert",
        ),
    )


def _industries(S: type[ProfileFormState]) -> rx.Component:
    field_id = "profile-industries"
    return _field_box(S, 
        "industries",
        rx.el.label("Industries", html_for="industry-search", style=_LABEL_STYLE),
        _helper(f"Choose up to {rules.MAX_INDUSTRIES}.", field_id),
        _chips(S, S.industries, S.toggle_industry, "industry-chips"),
        rx.debounce_input(
            rx.input(
                rx.input.slot(rx.icon("search", size=14)),
                placeholder="Search industries",
                value=S.industry_search,
                on_change=S.search_industries,
                id="industry-search",
                size="2",
            ),
            debounce_timeout=400,
        ),
        rx.box(
            rx.foreach(
                S.industry_options,
                lambda row: rx.checkbox(
                    row[1],
                    checked=S.industries.contains(row[0]),
                    on_change=lambda _on: S.toggle_industry(row[0]),
                    class_name="industry-option",
                    size="2",
                ),
            ),
            rx.cond(
                S.industry_options.length() < S.industry_total,
                rx.button("Load more", size="1", variant="ghost", type="button", on_click=S.more_industries),
            ),
            rx.cond(
                (S.industry_total == 0) & (S.industry_error == "") & (S.industry_search != ""),
                rx.text("No matches found", size="2", color="var(--gray-11)", id="industry-no-matches"),
            ),
            style=_PICKER_STYLE,
            id="industry-list",
            role="group",
            aria_label="Industries",
            on_scroll=S.more_industries.throttle(500),
        ),
        _list_error(S, S.industry_error, "industries"),
        _error(S, "industries", field_id),
        _old_value(S, "industries"),
    )


def _company_sizes(S: type[ProfileFormState]) -> rx.Component:
    field_id = "profile-companySize"
    return _field_box(S, 
        "companySize",
        rx.text("Company size", as_="div", style=_LABEL_STYLE, id="company-size-label"),
        rx.box(
            rx.radio_group.root(
                rx.foreach(
                    S.company_sizes,
                    lambda row: rx.el.label(
                        rx.radio_group.item(value=row[0], id="company-size-" + row[0]),
                        rx.text(row[1], size="2"),
                        style={"display": "flex", "alignItems": "center", "gap": "8px", "cursor": "pointer"},
                    ),
                ),
                value=S.values.get("companySize", ""),
                on_change=lambda value: S.set_text("companySize", value),
                aria_labelledby="company-size-label",
                id=field_id,
            ),
            rx.cond(
                S.company_sizes.length() < S.company_size_total,
                rx.button("Load more", size="1", variant="ghost", type="button", on_click=S.more_company_sizes),
            ),
            style=_PICKER_STYLE,
            on_scroll=S.more_company_sizes.throttle(500),
        ),
        _helper(rules.COMPANY_SIZE_HELPER, field_id),
        _list_error(S, S.company_size_error, "company-sizes"),
        _error(S, "companySize", field_id),
        _old_value(S, "companySize"),
    )


def _demographics(S: type[ProfileFormState]) -> list[rx.Component]:
    out: list[rx.Component] = []
    for key, label, options in rules.DEMOGRAPHIC_FIELDS:
        out.append(_select(S, key, label, [(o.value, o.label) for o in options], placeholder="Prefer not to answer"))
        custom = rules.CUSTOM_FIELDS.get(key)
        if custom:
            out.append(rx.cond(S.values.get(key, "") == rules.SELF_DESCRIBE,
                               _text(S, custom, f"{label} (self-described)")))
    return out


def _staff_section(S: type[ProfileFormState]) -> rx.Component:
    return rx.cond(
        S.is_staff,
        _section(
            "Internal (staff only)",
            _field_box(S, 
                "roles",
                rx.text("Roles", as_="div", style=_LABEL_STYLE),
                _chips(S, S.roles, S.toggle_role, "role-chips"),
                rx.box(
                    rx.foreach(
                        S.role_options,
                        lambda row: rx.checkbox(row[1], checked=S.roles.contains(row[0]),
                                                on_change=lambda _on: S.toggle_role(row[0]), size="2"),
                    ),
                    style=_PICKER_STYLE,
                    on_scroll=S.more_roles.throttle(500),
                    id="role-list",
                    role="group",
                    aria_label="Roles",
                ),
                _error(S, "roles", "profile-roles"),
                _old_value(S, "roles"),
            ),
            _field_box(S, 
                "audiences",
                rx.text("Audience", as_="div", style=_LABEL_STYLE),
                rx.flex(
                    rx.foreach(
                        S.audience_options,
                        lambda row: rx.checkbox(row[1], checked=S.audiences.contains(row[0]),
                                                on_change=lambda _on: S.toggle_audience(row[0]), size="2"),
                    ),
                    direction="column",
                    gap="8px",
                    id="audience-list",
                ),
                _error(S, "audiences", "profile-audiences"),
                _old_value(S, "audiences"),
            ),
            section_id="profile-staff",
        ),
    )


def form_messages(S: type[ProfileFormState]) -> rx.Component:
    """The verification warnings after a save, the form's error, and an error of no one field."""
    return rx.fragment(
        rx.foreach(
            S.warnings,
            lambda text: rx.callout(text, icon="mail", color_scheme="amber", high_contrast=True, class_name="verify-warning", width="100%"),
        ),
        rx.cond(
            S.form_error != "",
            rx.callout(S.form_error, icon="triangle-alert", color_scheme="red", id="profile-form-error", width="100%"),
        ),
        rx.cond(
            S.errors.contains("_id") | S.errors.contains("verified") | S.errors.contains("_global"),
            rx.text(S.errors.get("_id", S.errors.get("verified", S.errors.get("_global", ""))),
                    color="red", size="2", role="alert"),
        ),
    )


def submit_buttons(S: type[ProfileFormState], *extra: rx.Component) -> rx.Component:
    """'Submit' (and what a page adds beside it), or the spec's 'Check that all values...' while errors show."""
    return rx.cond(
        S.submit_hidden,
        rx.callout(rules.CHECK_VALUES, icon="triangle-alert", color_scheme="red", id="profile-check-values", width="100%"),
        rx.flex(
            rx.button("Submit", size="3", loading=S.saving, on_click=S.save(False), id="profile-submit", type="button"),
            *extra,
            gap="12px",
            wrap="wrap",
        ),
    )


def actions_box(*children: rx.Component) -> rx.Component:
    return rx.vstack(*children, spacing="3", width="100%", align="start")


def _actions(S: type[ProfileFormState]) -> rx.Component:
    return actions_box(form_messages(S), submit_buttons(S))


def profile_form(S: type[ProfileFormState], actions: rx.Component | None = None) -> rx.Component:
    return rx.vstack(
        _section(
            "Personal information",
            _text(S, "firstName", "First name", required=True, autocomplete="given-name"),
            _text(S, "lastName", "Last name", required=True, helper=rules.LAST_NAME_HELPER, autocomplete="family-name"),
            _full(_switch(S, "hasAnonymizationEnabled", "Keep my name private", rules.NAME_PRIVATE_HELPER)),
            _text(S, "email", "Email", required=True, type_="email", autocomplete="email", debounce=800,
                  on_change=lambda value: S.check_email("email", value)),
            _text(S, "workEmail", "Work email", required=True, type_="email", debounce=800,
                  on_change=lambda value: S.check_email("workEmail", value)),
            _text(S, "phoneNumber", "Phone number", type_="tel", helper=rules.PHONE_HELPER, autocomplete="tel"),
            _text(S, "linkedin", "LinkedIn profile", type_="url", placeholder="https://www.linkedin.com/in/your-name"),
            _text(S, "birthYear", "Birth year", input_mode="numeric", placeholder="YYYY", debounce=300),
            _select(S, "country", "Country", geography.countries(), placeholder="Choose a country"),
            _select(S, "state", "State / region", S.state_options, placeholder="Choose a state"),
            section_id="profile-personal",
        ),
        _section(
            "Experience",
            _text(S, "jobTitle", "Job title", autocomplete="organization-title"),
            _text(S, "companyName", "Company name", autocomplete="organization"),
            _checkbox_group(S, "experienceLevels", "Seniority (up to 2)", SENIORITY_OPTIONS, S.levels,
                            S.toggle_level, disabled=S.disabled_levels),
            _company_sizes(S),
            _full(_industries(S)),
            _switch(S, "hasExperience", "I have professional work experience"),
            section_id="profile-experience",
        ),
        _section(
            "Languages",
            _checkbox_group(S, "languages", "Languages you speak fluently", LANGUAGE_OPTIONS, S.languages,
                            S.toggle_language, helper=rules.LANGUAGES_HELPER),
            section_id="profile-languages",
        ),
        _section(
            "About you (optional)",
            *_demographics(S),
            section_id="profile-demographics",
        ),
        _staff_section(S),
        actions if actions is not None else _actions(S),
        spacing="4",
        width="100%",
        key=S.form_key,
    )
