"""/sign-up/finish (screen 9): 'Review info', 'Additional details', 'Validate email' with a step indicator."""

from __future__ import annotations

import reflex as rx

from portal.components.form import form, form_error, select_field, text_field
from portal.components.layout import auth_layout, loading
from portal.domain import geography
from portal.domain import onboarding as steps
from portal.domain import sign_up_fields as fields
from portal.domain import work_email as work_rules
from portal.settings import settings
from portal.states.onboarding import OnboardingState

_MUTED = "var(--gray-11)"


def _field_id(key: str) -> str:
    return f"onboarding-{key}"


# A typed value is kept this long after the last keystroke.
KEEP_DEBOUNCE_MS = 300


def _bound(key: str) -> dict:
    """A field's label, marks, message and value: kept by the browser while typed, sent when it is left."""
    return {
        "id": _field_id(key),
        "name": key,
        "default_value": OnboardingState.values.get(key, ""),
        "error": OnboardingState.errors.get(key, ""),
        "required": key in fields.REQUIRED,
        "optional": key not in fields.REQUIRED,
    }


def _input(key: str, **props) -> rx.Component:
    """A text field: kept while typed (a reload shows it again), checked when it is left."""
    props.setdefault("on_change", lambda value: OnboardingState.keep_field(key, value).debounce(KEEP_DEBOUNCE_MS))
    return text_field(
        fields.LABELS[key], on_blur=lambda value: OnboardingState.set_field(key, value), **_bound(key), **props
    )


def _country_select() -> rx.Component:
    key = "employerHqCountry"
    return select_field(
        fields.LABELS[key],
        options=geography.countries(),
        native=True,
        placeholder="Choose a country",
        on_change=lambda value: OnboardingState.set_field(key, value),
        **_bound(key),
    )


# ---- the step indicator ---------------------------------------------------------------------------


def _step_tab(index: int, label: str) -> rx.Component:
    current = OnboardingState.step == index
    done = OnboardingState.step > index
    enabled = OnboardingState.tabs_enabled[index]
    return rx.el.li(
        rx.el.button(
            rx.el.span(
                rx.cond(done, rx.icon("check", size=14), rx.text(str(index + 1), as_="span")),
                class_name="onboarding-step-dot",
            ),
            rx.el.span(label, class_name="onboarding-step-label"),
            type="button",
            id=f"onboarding-step-{index}",
            role="tab",
            aria_selected=rx.cond(current, "true", "false"),
            aria_current=rx.cond(current, "step", "false"),
            disabled=~enabled,
            on_click=OnboardingState.go_to_step(index),
            class_name="onboarding-step",
            custom_attrs={"data-state": rx.cond(current, "current", rx.cond(done, "done", "todo"))},
        ),
        role="presentation",
        style={"listStyle": "none", "flex": "1 1 0", "minWidth": 0},
    )


def step_indicator() -> rx.Component:
    return rx.el.nav(
        rx.el.ol(
            *[_step_tab(i, label) for i, label in enumerate(steps.STEPS)],
            role="tablist",
            aria_label="Sign-up steps",
            style={"display": "flex", "gap": "8px", "padding": 0, "margin": 0, "width": "100%"},
        ),
        aria_label="Sign-up progress",
        width="100%",
        style={"width": "100%"},
    )


# ---- the steps --------------------------------------------------------------------------------------


def _review_step() -> rx.Component:
    return form(
        rx.heading(steps.REVIEW_TITLE, size="4", as_="h2", id="onboarding-review-title"),
        rx.cond(
            OnboardingState.from_linkedin,
            rx.text("We filled these in from your LinkedIn profile. Please check them.", size="2", color=_MUTED),
            rx.text("Please check your details.", size="2", color=_MUTED),
        ),
        rx.box(
            _input("firstName", autocomplete="given-name"),
            _input("lastName", autocomplete="family-name"),
            class_name="onboarding-names",
        ),
        _input("jobTitle", autocomplete="organization-title", helper="Your current full-time job title."),
        _input(
            "email",
            type="email",
            autocomplete="email",
            on_change=OnboardingState.email_typed.debounce(work_rules.EMAIL_DUPLICATE_DELAY_MS),
        ),
        _input("companyName", autocomplete="organization"),
        form_error(OnboardingState.form_message, id="onboarding-form-message"),
        rx.button(steps.LOOKS_GOOD, type="submit", size="3", width="100%", id="onboarding-next"),
        on_submit=OnboardingState.submit_step,
        key=f"review-{OnboardingState.form_key}",
    )


def _details_step() -> rx.Component:
    work_helper = rx.cond(
        OnboardingState.work_email_verified,
        "Your work email is verified.",
        rx.cond(
            OnboardingState.checking_work_email,
            "Checking...",
            "The email address of your employer. We will send a verification link to it.",
        ),
    )
    return form(
        rx.heading("Additional details", size="4", as_="h2", id="onboarding-details-title"),
        _input(
            "workEmail",
            type="email",
            autocomplete="work email",
            on_change=OnboardingState.work_email_typed.debounce(work_rules.CHECK_DEBOUNCE_MS),
            disabled=OnboardingState.work_email_verified,
            helper=work_helper,
        ),
        _country_select(),
        form_error(OnboardingState.form_message, id="onboarding-form-message"),
        rx.flex(
            rx.button(
                steps.GO_BACK,
                type="button",
                variant="soft",
                color_scheme="gray",
                size="3",
                on_click=OnboardingState.go_back,
                disabled=OnboardingState.submitting,
                id="onboarding-back",
                flex="1",
            ),
            rx.button(
                rx.cond(OnboardingState.submitting, steps.SUBMITTING, steps.CONTINUE),
                type="submit",
                size="3",
                loading=OnboardingState.submitting,
                disabled=OnboardingState.submitting,
                id="onboarding-next",
                flex="1",
            ),
            gap="3",
            width="100%",
        ),
        on_submit=OnboardingState.submit_step,
        key=f"details-{OnboardingState.form_key}",
    )


def _resend_button(kind: str, label: str) -> rx.Component:
    return rx.button(
        steps.RESEND,
        on_click=OnboardingState.resend(kind),
        loading=OnboardingState.resending == kind,
        disabled=OnboardingState.resending != "",
        variant="solid" if kind == "work" else "soft",
        size="3",
        width="100%",
        aria_label=label,
        id=f"onboarding-resend-{kind}",
    )


def _validate_step() -> rx.Component:
    return rx.vstack(
        rx.window_event_listener(on_focus=OnboardingState.refresh_status),
        rx.heading("Validate email", size="4", as_="h2", id="onboarding-validate-title"),
        rx.text(
            "We've sent a verification link to ",
            rx.text.strong(OnboardingState.stored_work_email, id="onboarding-sent-to"),
            ". Open it to verify your work email and finish signing up. Check your spam folder too.",
            color=_MUTED,
        ),
        _resend_button("work", steps.RESEND),
        rx.cond(
            ~OnboardingState.email_verified,
            rx.vstack(
                rx.text(
                    "Your personal email ",
                    rx.text.strong(OnboardingState.stored_email),
                    " is not verified yet either: open the link we sent there as well.",
                    size="2",
                    color=_MUTED,
                ),
                _resend_button("personal", "Resend email to your personal email"),
                spacing="2",
                width="100%",
            ),
        ),
        spacing="4",
        width="100%",
    )


def onboarding_page() -> rx.Component:
    content = rx.vstack(
        rx.heading(steps.TITLE, size="6", as_="h1", id="finish-title"),
        step_indicator(),
        rx.match(
            OnboardingState.step,
            (steps.REVIEW, _review_step()),
            (steps.DETAILS, _details_step()),
            _validate_step(),
        ),
        rx.text(
            "Need help? ",
            rx.link("Contact support", href=settings.help_center_url, is_external=True, id="contact-support"),
            size="2",
        ),
        spacing="5",
        width="100%",
    )
    return auth_layout(
        rx.card(
            rx.cond(OnboardingState.loaded, content, loading()),
            size="4",
            width="100%",
        ),
        rx.el.style(_CSS),
    )


_CSS = """
.onboarding-step { all: unset; box-sizing: border-box; width: 100%; display: flex; flex-direction: column;
  align-items: center; gap: 6px; cursor: pointer; padding: 6px 2px; border-radius: var(--radius-2);
  text-align: center; }
.onboarding-step:disabled { cursor: not-allowed; opacity: 0.55; }
.onboarding-step:focus-visible { outline: 2px solid var(--accent-9); outline-offset: 2px; }
.onboarding-step:not(:disabled):hover .onboarding-step-label { color: var(--accent-11); }
.onboarding-step-dot { width: 28px; height: 28px; border-radius: 999px; display: inline-flex; align-items: center;
  justify-content: center; font-size: 13px; font-weight: 600; border: 2px solid var(--gray-7); color: var(--gray-11);
  background: var(--color-panel-solid); }
.onboarding-step[data-state="current"] .onboarding-step-dot { border-color: var(--accent-9);
  background: var(--accent-9); color: white; }
.onboarding-step[data-state="done"] .onboarding-step-dot { border-color: var(--accent-9); color: var(--accent-11); }
.onboarding-names { display: grid; grid-template-columns: 1fr 1fr; gap: 16px 12px; width: 100%; }
@media (max-width: 519.98px) { .onboarding-names { grid-template-columns: 1fr; } }
.onboarding-step-label { font-size: 13px; line-height: 1.25; color: var(--gray-11); }
.onboarding-step[data-state="current"] .onboarding-step-label { color: var(--gray-12); font-weight: 600; }
"""
