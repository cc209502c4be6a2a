"""/profile (MY PROFILE, screen 10): 'Become a participant - Have an impact, get paid.'"""

from __future__ import annotations

import reflex as rx

from portal.components.layout import loading, main_layout
from portal.domain import geography
from portal.domain import profile_rules as rules
from portal.domain.reference_data import LANGUAGE_OPTIONS, SENIORITY_OPTIONS
from portal.states.profile import ProfileState

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


def _error(key: str, field_id: str) -> rx.Component:
    message = ProfileState.errors.get(key, "")
    return rx.cond(message != "", rx.text(message, color="red", size="2", id=f"{field_id}-error", role="alert"))


def _old_value(key: str) -> rx.Component:
    """Staff see the value before the last change."""
    return rx.cond(
        ProfileState.is_staff & ProfileState.old_data.contains(key),
        rx.text("Previously: ", rx.text.strong(ProfileState.old_data.get(key, "")), size="1",
                class_name="profile-old-value", id=f"old-{key}"),
    )


def _field_box(key: str, *children: rx.Component) -> rx.Component:
    return rx.vstack(
        *children,
        spacing="1",
        width="100%",
        align="stretch",
        class_name="profile-field",
        style=rx.cond(ProfileState.is_staff & ProfileState.old_data.contains(key), _CHANGED_STYLE, {}),
    )


def _text(key: str, label: str, *, required: bool = False, helper: str = "", type_: str = "text",
          autocomplete: str | None = None, debounce: int = 500, on_change=None, **props) -> rx.Component:
    field_id = f"profile-{key}"
    message = ProfileState.errors.get(key, "")
    handler = on_change or (lambda value: ProfileState.set_text(key, value))
    return _field_box(
        key,
        _label(label, field_id, required),
        rx.debounce_input(
            rx.input(
                id=field_id,
                name=key,
                type=type_,
                value=ProfileState.values.get(key, ""),
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
        _error(key, field_id),
        _old_value(key),
    )


def _select(key: str, label: str, options: list[tuple[str, str]] | rx.Var, *, placeholder: str = "Choose...") -> rx.Component:
    field_id = f"profile-{key}"
    if isinstance(options, rx.Var):
        items = rx.foreach(options, lambda row: rx.el.option(row[1], value=row[0]))
    else:
        items = [rx.el.option(text, value=value) for value, text in options]
    return _field_box(
        key,
        _label(label, field_id),
        rx.el.select(
            rx.el.option(placeholder, value=""),
            items,
            id=field_id,
            name=key,
            value=ProfileState.values.get(key, ""),
            on_change=lambda value: ProfileState.set_text(key, value),
            style=_SELECT_STYLE,
            aria_describedby=f"{field_id}-error",
        ),
        _error(key, field_id),
        _old_value(key),
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


def _switch(key: str, label: str, helper: str = "") -> rx.Component:
    field_id = f"profile-{key}"
    return _field_box(
        key,
        rx.el.label(
            rx.switch(
                checked=ProfileState.flags.get(key, False),
                on_change=lambda on: ProfileState.set_flag(key, on),
                id=field_id,
            ),
            rx.text(label, size="2", weight="medium"),
            style={"display": "inline-flex", "alignItems": "center", "gap": "8px", "cursor": "pointer"},
        ),
        _helper(helper, field_id) if helper else rx.fragment(),
        _old_value(key),
    )


def _checkbox_group(key: str, label: str, options, checked, on_toggle, *, disabled=None, helper: str = "") -> rx.Component:
    field_id = f"profile-{key}"
    return _field_box(
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
        _error(key, field_id),
        _old_value(key),
    )


def _chips(ids: rx.Var, on_remove, chips_id: str) -> rx.Component:
    return rx.flex(
        rx.foreach(
            ids,
            lambda i: rx.badge(
                ProfileState.chosen_names.get(i, i),
                rx.el.button(
                    rx.icon("x", size=12),
                    type="button",
                    on_click=on_remove(i),
                    aria_label=f"Remove {ProfileState.chosen_names.get(i, i)}",
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


def _list_error(message: rx.Var[str], list_id: str) -> rx.Component:
    return rx.cond(
        message != "",
        rx.callout.root(
            rx.callout.text(message),
            rx.button("Try again", size="1", variant="soft", on_click=ProfileState.retry_lists, type="button"),
            color_scheme="red",
            id=f"{list_id}-load-error",
            role="alert",
        ),
    )


def _industries() -> rx.Component:
    field_id = "profile-industries"
    return _field_box(
        "industries",
        rx.el.label("Industries", html_for="industry-search", style=_LABEL_STYLE),
        _helper(f"Choose up to {rules.MAX_INDUSTRIES}.", field_id),
        _chips(ProfileState.industries, ProfileState.toggle_industry, "industry-chips"),
        rx.debounce_input(
            rx.input(
                rx.input.slot(rx.icon("search", size=14)),
                placeholder="Search industries",
                value=ProfileState.industry_search,
                on_change=ProfileState.search_industries,
                id="industry-search",
                size="2",
            ),
            debounce_timeout=400,
        ),
        rx.box(
            rx.foreach(
                ProfileState.industry_options,
                lambda row: rx.checkbox(
                    row[1],
                    checked=ProfileState.industries.contains(row[0]),
                    on_change=lambda _on: ProfileState.toggle_industry(row[0]),
                    class_name="industry-option",
                    size="2",
                ),
            ),
            rx.cond(
                ProfileState.industry_options.length() < ProfileState.industry_total,
                rx.button("Load more", size="1", variant="ghost", type="button", on_click=ProfileState.more_industries),
            ),
            rx.cond(
                (ProfileState.industry_total == 0) & (ProfileState.industry_error == "") & (ProfileState.industry_search != ""),
                rx.text("No matches found", size="2", color="var(--gray-11)", id="industry-no-matches"),
            ),
            style=_PICKER_STYLE,
            id="industry-list",
            role="group",
            aria_label="Industries",
            on_scroll=ProfileState.more_industries.throttle(500),
        ),
        _list_error(ProfileState.industry_error, "industries"),
        _error("industries", field_id),
        _old_value("industries"),
    )


def _company_sizes() -> rx.Component:
    field_id = "profile-companySize"
    return _field_box(
        "companySize",
        rx.text("Company size", as_="div", style=_LABEL_STYLE, id="company-size-label"),
        rx.box(
            rx.radio_group.root(
                rx.foreach(
                    ProfileState.company_sizes,
                    lambda row: rx.el.label(
                        rx.radio_group.item(value=row[0], id="company-size-" + row[0]),
                        rx.text(row[1], size="2"),
                        style={"display": "flex", "alignItems": "center", "gap": "8px", "cursor": "pointer"},
                    ),
                ),
                value=ProfileState.values.get("companySize", ""),
                on_change=lambda value: ProfileState.set_text("companySize", value),
                aria_labelledby="company-size-label",
                id=field_id,
            ),
            rx.cond(
                ProfileState.company_sizes.length() < ProfileState.company_size_total,
                rx.button("Load more", size="1", variant="ghost", type="button", on_click=ProfileState.more_company_sizes),
            ),
            style=_PICKER_STYLE,
            on_scroll=ProfileState.more_company_sizes.throttle(500),
        ),
        _helper(rules.COMPANY_SIZE_HELPER, field_id),
        _list_error(ProfileState.company_size_error, "company-sizes"),
        _error("companySize", field_id),
        _old_value("companySize"),
    )


def _demographics() -> list[rx.Component]:
    out: list[rx.Component] = []
    for key, label, options in rules.DEMOGRAPHIC_FIELDS:
        out.append(_select(key, label, [(o.value, o.label) for o in options], placeholder="Prefer not to answer"))
        custom = rules.CUSTOM_FIELDS.get(key)
        if custom:
            out.append(rx.cond(ProfileState.values.get(key, "") == rules.SELF_DESCRIBE,
                               _text(custom, f"{label} (self-described)")))
    return out


def _staff_section() -> rx.Component:
    return rx.cond(
        ProfileState.is_staff,
        _section(
            "Internal (staff only)",
            _field_box(
                "roles",
                rx.text("Roles", as_="div", style=_LABEL_STYLE),
                _chips(ProfileState.roles, ProfileState.toggle_role, "role-chips"),
                rx.box(
                    rx.foreach(
                        ProfileState.role_options,
                        lambda row: rx.checkbox(row[1], checked=ProfileState.roles.contains(row[0]),
                                                on_change=lambda _on: ProfileState.toggle_role(row[0]), size="2"),
                    ),
                    style=_PICKER_STYLE,
                    on_scroll=ProfileState.more_roles.throttle(500),
                    id="role-list",
                    role="group",
                    aria_label="Roles",
                ),
                _error("roles", "profile-roles"),
                _old_value("roles"),
            ),
            _field_box(
                "audiences",
                rx.text("Audience", as_="div", style=_LABEL_STYLE),
                rx.flex(
                    rx.foreach(
                        ProfileState.audience_options,
                        lambda row: rx.checkbox(row[1], checked=ProfileState.audiences.contains(row[0]),
                                                on_change=lambda _on: ProfileState.toggle_audience(row[0]), size="2"),
                    ),
                    direction="column",
                    gap="8px",
                    id="audience-list",
                ),
                _error("audiences", "profile-audiences"),
                _old_value("audiences"),
            ),
            section_id="profile-staff",
        ),
    )


def _actions() -> rx.Component:
    return rx.vstack(
        rx.foreach(
            ProfileState.warnings,
            lambda text: rx.callout(text, icon="mail", color_scheme="amber", high_contrast=True, class_name="verify-warning", width="100%"),
        ),
        rx.cond(
            ProfileState.form_error != "",
            rx.callout(ProfileState.form_error, icon="triangle-alert", color_scheme="red", id="profile-form-error", width="100%"),
        ),
        rx.cond(
            ProfileState.errors.contains("_id") | ProfileState.errors.contains("verified") | ProfileState.errors.contains("_global"),
            rx.text(ProfileState.errors.get("_id", ProfileState.errors.get("verified", ProfileState.errors.get("_global", ""))),
                    color="red", size="2", role="alert"),
        ),
        rx.cond(
            ProfileState.submit_hidden,
            rx.callout(rules.CHECK_VALUES, icon="triangle-alert", color_scheme="red", id="profile-check-values", width="100%"),
            rx.flex(
                rx.button("Submit", size="3", loading=ProfileState.saving, on_click=ProfileState.save(False),
                          id="profile-submit", type="button"),
                rx.cond(
                    ProfileState.is_staff,
                    rx.button(
                        rx.cond(ProfileState.verified, rules.VERIFIED_BUTTON, rules.VERIFY_BUTTON),
                        size="3",
                        variant="soft",
                        color_scheme="green",
                        disabled=ProfileState.verified | ProfileState.saving,
                        on_click=ProfileState.save(True),
                        id="profile-verify",
                        type="button",
                    ),
                ),
                gap="12px",
                wrap="wrap",
            ),
        ),
        spacing="3",
        width="100%",
        align="start",
    )


def _form() -> rx.Component:
    return rx.vstack(
        _section(
            "Personal information",
            _text("firstName", "First name", required=True, autocomplete="given-name"),
            _text("lastName", "Last name", required=True, helper=rules.LAST_NAME_HELPER, autocomplete="family-name"),
            _full(_switch("hasAnonymizationEnabled", "Keep my name private", rules.NAME_PRIVATE_HELPER)),
            _text("email", "Email", required=True, type_="email", autocomplete="email", debounce=800,
                  on_change=lambda value: ProfileState.check_email("email", value)),
            _text("workEmail", "Work email", required=True, type_="email", debounce=800,
                  on_change=lambda value: ProfileState.check_email("workEmail", value)),
            _text("phoneNumber", "Phone number", type_="tel", helper=rules.PHONE_HELPER, autocomplete="tel"),
            _text("linkedin", "LinkedIn profile", type_="url", placeholder="https://www.linkedin.com/in/your-name"),
            _text("birthYear", "Birth year", input_mode="numeric", placeholder="YYYY", debounce=300),
            _select("country", "Country", geography.countries(), placeholder="Choose a country"),
            _select("state", "State / region", ProfileState.state_options, placeholder="Choose a state"),
            section_id="profile-personal",
        ),
        _section(
            "Experience",
            _text("jobTitle", "Job title", autocomplete="organization-title"),
            _text("companyName", "Company name", autocomplete="organization"),
            _checkbox_group("experienceLevels", "Seniority (up to 2)", SENIORITY_OPTIONS, ProfileState.levels,
                            ProfileState.toggle_level, disabled=ProfileState.disabled_levels),
            _company_sizes(),
            _full(_industries()),
            _switch("hasExperience", "I have professional work experience"),
            section_id="profile-experience",
        ),
        _section(
            "Languages",
            _checkbox_group("languages", "Languages you speak fluently", LANGUAGE_OPTIONS, ProfileState.languages,
                            ProfileState.toggle_language, helper=rules.LANGUAGES_HELPER),
            section_id="profile-languages",
        ),
        _section(
            "About you (optional)",
            *_demographics(),
            section_id="profile-demographics",
        ),
        _staff_section(),
        _actions(),
        spacing="4",
        width="100%",
        key=ProfileState.form_key,
    )


def profile_page() -> rx.Component:
    return main_layout(
        rx.vstack(
            rx.heading(rules.TITLE, size="7", as_="h1", id="profile-title"),
            rx.text(rules.INTRO, color="var(--gray-11)"),
            spacing="1",
            margin_bottom="24px",
        ),
        rx.cond(
            ProfileState.loaded,
            rx.cond(
                ProfileState.load_error != "",
                rx.callout(ProfileState.load_error, color_scheme="red", icon="triangle-alert", id="profile-load-error"),
                _form(),
            ),
            loading(),
        ),
    )
