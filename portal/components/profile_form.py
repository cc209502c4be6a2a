"""The profile form (screen 10), bound to a state that mixes in `ProfileFormState`: the participant's own
/profile (pages/profile.py) and the staff view of a participant (pages/admin/profile.py)."""

from __future__ import annotations

from collections.abc import Sequence

import reflex as rx
from reflex.vars import ArrayVar

from portal.components.form import (
    checkbox_group_field,
    form_error,
    multi_select,
    radio_group_field,
    select_field,
    switch_field,
    text_field,
)
from portal.domain import geography
from portal.domain import profile_rules as rules
from portal.domain.reference_data import LANGUAGE_OPTIONS, SENIORITY_OPTIONS
from portal.states.profile_form import ProfileFormState

_CHANGED_STYLE = {"background": "var(--amber-3)", "borderRadius": "var(--radius-2)", "padding": "6px", "margin": "-6px"}


def _old_value(S: type[ProfileFormState], key: str) -> rx.Component:
    """Staff see the value before the last change."""
    return rx.cond(
        S.is_staff & S.old_data.contains(key),
        rx.text(
            "Previously: ",
            rx.text.strong(S.old_data.get(key, "")),
            size="1",
            class_name="profile-old-value",
            id=f"old-{key}",
        ),
    )


def _kept(S: type[ProfileFormState], key: str) -> dict:
    """What every profile field adds to the kit's: its message, and for staff the value before the last
    change (the field marked while it differs)."""
    return {
        "after": _old_value(S, key),
        "field_class": "profile-field",
        "field_style": rx.cond(S.is_staff & S.old_data.contains(key), _CHANGED_STYLE, {}),
    }


def _error(S: type[ProfileFormState], key: str) -> rx.Var:
    return S.errors.get(key, "")


def _text(
    S: type[ProfileFormState], key: str, label: str, *, debounce: int = 500, on_change=None, **props
) -> rx.Component:
    """A text field whose value goes to the state when typing pauses."""
    return text_field(
        label,
        id=f"profile-{key}",
        name=key,
        value=S.values.get(key, ""),
        on_change=on_change or (lambda value: S.set_text(key, value)),
        debounce=debounce,
        error=_error(S, key),
        **_kept(S, key),
        **props,
    )


def _select(S: type[ProfileFormState], key: str, label: str, options, *, placeholder: str) -> rx.Component:
    return select_field(
        label,
        id=f"profile-{key}",
        name=key,
        options=options,
        native=True,
        placeholder=placeholder,
        value=S.values.get(key, ""),
        on_change=lambda value: S.set_text(key, value),
        error=_error(S, key),
        **_kept(S, key),
    )


def _switch(S: type[ProfileFormState], key: str, label: str, helper: str | None = None) -> rx.Component:
    return switch_field(
        label,
        id=f"profile-{key}",
        checked=S.flags.get(key, False),
        on_change=lambda on: S.set_flag(key, on),
        helper=helper,
        **_kept(S, key),
    )


def _checkbox_group(
    S: type[ProfileFormState],
    key: str,
    label: str,
    options,
    checked: ArrayVar[Sequence[str]],
    on_toggle,
    *,
    disabled: ArrayVar[Sequence[str]] | None = None,
    helper: str | None = None,
) -> rx.Component:
    return checkbox_group_field(
        label,
        id=f"profile-{key}",
        options=[(o.value, o.label) for o in options],
        checked=checked,
        on_toggle=on_toggle,
        option_prefix=key,
        disabled_values=disabled,
        helper=helper,
        error=_error(S, key),
        **_kept(S, key),
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


def _industries(S: type[ProfileFormState]) -> rx.Component:
    return multi_select(
        "Industries",
        id="profile-industries",
        options=S.industry_options,
        chosen=S.industries,
        names=S.chosen_names,
        on_toggle=S.toggle_industry,
        chips_id="industry-chips",
        list_id="industry-list",
        option_class="industry-option",
        search_id="industry-search",
        search_value=S.industry_search,
        on_search=S.search_industries,
        search_placeholder="Search industries",
        no_matches=(S.industry_total == 0) & (S.industry_error == "") & (S.industry_search != ""),
        no_matches_id="industry-no-matches",
        on_more=S.more_industries,
        has_more=S.industry_options.length() < S.industry_total,
        load_error=S.industry_error,
        on_retry=S.retry_lists,
        helper=f"Choose up to {rules.MAX_INDUSTRIES}.",
        error=_error(S, "industries"),
        **_kept(S, "industries"),
    )


def _company_sizes(S: type[ProfileFormState]) -> rx.Component:
    key = "companySize"
    return radio_group_field(
        "Company size",
        id=f"profile-{key}",
        options=S.company_sizes,
        value=S.values.get(key, ""),
        on_change=lambda value: S.set_text(key, value),
        option_prefix="company-size",
        on_more=S.more_company_sizes,
        has_more=S.company_sizes.length() < S.company_size_total,
        load_error=S.company_size_error,
        on_retry=S.retry_lists,
        helper=rules.COMPANY_SIZE_HELPER,
        error=_error(S, key),
        **_kept(S, key),
    )


def _demographics(S: type[ProfileFormState]) -> list[rx.Component]:
    out: list[rx.Component] = []
    for key, label, options in rules.DEMOGRAPHIC_FIELDS:
        out.append(_select(S, key, label, [(o.value, o.label) for o in options], placeholder=rules.NOT_ANSWERED))
        custom = rules.CUSTOM_FIELDS.get(key)
        if custom:
            out.append(
                rx.cond(S.values.get(key, "") == rules.SELF_DESCRIBE, _text(S, custom, f"{label} (self-described)"))
            )
    return out


def _staff_section(S: type[ProfileFormState]) -> rx.Component:
    return rx.cond(
        S.is_staff,
        _section(
            "Internal (staff only)",
            multi_select(
                "Roles",
                id="profile-roles",
                options=S.role_options,
                chosen=S.roles,
                names=S.chosen_names,
                on_toggle=S.toggle_role,
                chips_id="role-chips",
                list_id="role-list",
                on_more=S.more_roles,
                has_more=S.role_options.length() < S.role_total,
                error=_error(S, "roles"),
                **_kept(S, "roles"),
            ),
            checkbox_group_field(
                "Audience",
                id="profile-audiences",
                options=S.audience_options,
                checked=S.audiences,
                on_toggle=S.toggle_audience,
                error=_error(S, "audiences"),
                **_kept(S, "audiences"),
            ),
            section_id="profile-staff",
        ),
    )


def form_messages(S: type[ProfileFormState]) -> rx.Component:
    """The verification warnings after a save, the form's error, and an error of no one field."""
    return rx.fragment(
        rx.foreach(
            S.warnings,
            lambda text: rx.callout(
                text, icon="mail", color_scheme="amber", high_contrast=True, class_name="verify-warning", width="100%"
            ),
        ),
        form_error(S.form_error, id="profile-form-error"),
        form_error(
            S.errors.get("_id", S.errors.get("verified", S.errors.get("_global", ""))), id="profile-other-error"
        ),
    )


def submit_buttons(S: type[ProfileFormState], *extra: rx.Component) -> rx.Component:
    """'Submit' (and what a page adds beside it), or the spec's 'Check that all values...' while errors show."""
    return rx.cond(
        S.submit_hidden,
        rx.callout(
            rules.CHECK_VALUES, icon="triangle-alert", color_scheme="red", id="profile-check-values", width="100%"
        ),
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
            _text(
                S,
                "email",
                "Email",
                required=True,
                type="email",
                autocomplete="email",
                debounce=800,
                on_change=lambda value: S.check_email("email", value),
            ),
            _text(
                S,
                "workEmail",
                "Work email",
                required=True,
                type="email",
                debounce=800,
                on_change=lambda value: S.check_email("workEmail", value),
            ),
            _text(S, "phoneNumber", "Phone number", type="tel", helper=rules.PHONE_HELPER, autocomplete="tel"),
            _text(S, "linkedin", "LinkedIn profile", type="url", placeholder="https://www.linkedin.com/in/your-name"),
            _text(S, "birthYear", "Birth year", input_mode="numeric", placeholder="YYYY", debounce=300),
            _select(S, "country", "Country", geography.countries(), placeholder="Choose a country"),
            _select(S, "state", "State / region", S.state_options, placeholder="Choose a state"),
            section_id="profile-personal",
        ),
        _section(
            "Experience",
            _text(S, "jobTitle", "Job title", autocomplete="organization-title"),
            _text(S, "companyName", "Company name", autocomplete="organization"),
            _checkbox_group(
                S,
                "experienceLevels",
                "Seniority (up to 2)",
                SENIORITY_OPTIONS,
                S.levels,
                S.toggle_level,
                disabled=S.disabled_levels,
            ),
            _company_sizes(S),
            _full(_industries(S)),
            _switch(S, "hasExperience", "I have professional work experience"),
            section_id="profile-experience",
        ),
        _section(
            "Languages",
            _checkbox_group(
                S,
                "languages",
                "Languages you speak fluently",
                LANGUAGE_OPTIONS,
                S.languages,
                S.toggle_language,
                helper=rules.LANGUAGES_HELPER,
            ),
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
