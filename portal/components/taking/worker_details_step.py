"""The 'Personal info' end step every kind ends with for a public respondent, with the messaging banner.

Takes the kind's state class (WorkerDetailsStep and TimedSession mixins).
"""

from __future__ import annotations

import reflex as rx

from portal.components.form import checkbox_field, select_field, text_field
from portal.components.taking.questions import TEXT_DEBOUNCE_MS
from portal.domain import geography
from portal.domain.taking import survey_view as view
from portal.domain.taking import worker_details

_CARD = {"width": "100%", "maxWidth": "760px", "margin": "0 auto"}


def _kept_in_browser(S, field: str) -> dict:
    """Each keystroke goes to the browser's copy of the draft at once (assets/portal.js), as a text
    answer's does: a tab closed before the field was left keeps what was typed."""
    return {
        "data-answer-key": worker_details.detail_key(field),
        "data-test-id": S.test_id.to_string(),
        "data-store-key": S.store_key,
    }


def _detail_control(S, field: str) -> rx.Component:
    busy = S.lookup_pending
    common = {
        "id": f"detail-{field}",
        "error": S.detail_errors.get(field, ""),
        "helper": worker_details.help_text(field) or None,
        "required": field not in worker_details.OPTIONAL_FIELDS,
    }
    label = worker_details.LABELS[field]
    if field in ("country", "state"):
        options = geography.countries() if field == "country" else S.state_options
        return select_field(
            label,
            options=options,
            native=True,
            placeholder="Choose a state" if field == "state" else None,
            value=S.details.get(field, "US" if field == "country" else ""),
            disabled=busy,
            on_change=lambda v: S.set_detail(field, v),
            **common,
        )
    typed = {
        "default_value": S.details.get(field, ""),
        "key": S.epoch.to_string() + "-" + field,
        "custom_attrs": _kept_in_browser(S, field),
    }
    if field == "workerId":
        # Leaving the field (a click on Submit blurs it first) keeps what was typed at once, so a
        # Submit within the look-up's debounce does not find the worker ID empty.
        return text_field(
            label,
            on_change=S.lookup_worker.debounce(worker_details.LOOKUP_DEBOUNCE_MS),
            on_blur=lambda v: S.set_detail("workerId", v),
            **typed,
            **common,
        )
    kind = "email" if field in ("email", "paymentEmail") else ("tel" if field == "phoneNumber" else "text")
    # Sent while typing (debounced, as a text answer is) and at once on leaving the field.
    return text_field(
        label,
        type=kind,
        on_change=lambda v: S.set_detail(field, v).debounce(TEXT_DEBOUNCE_MS),
        on_blur=lambda v: S.set_detail(field, v),
        disabled=busy,
        **typed,
        **common,
    )


def _detail_field(S, field: str) -> rx.Component:
    shown = S.personal_fields.contains(field)
    if field == "paymentEmail":
        shown = shown & S.different_payment
    return rx.cond(shown, _detail_control(S, field))


def end_step(
    S, *, back_label: str = view.BACK_TO_QUESTIONS, submit_label: str = "Submit", summary: rx.Component | None = None
) -> rx.Component:
    """'Personal info' after the last question (public respondents), with the messaging banner; a
    kind may put a summary of the answers first and name its buttons (a preference test's confirm
    step: Cancel and 'Submit feedback'). Without fields to fill only the summary and the buttons show."""
    both_emails = S.personal_fields.contains("email") & S.personal_fields.contains("paymentEmail")
    has_fields = S.personal_fields.length() > 0
    return rx.card(
        rx.vstack(
            summary if summary is not None else rx.fragment(),
            rx.callout(
                view.MESSAGING_BANNER,
                icon="info",
                color_scheme="amber",
                high_contrast=True,
                width="100%",
                id="survey-banner",
            )
            if summary is None
            else rx.fragment(),
            rx.cond(
                has_fields,
                rx.heading(
                    view.PERSONAL_INFO, size="5", as_="h2" if summary is not None else "h1", id="personal-info-title"
                ),
            ),
            rx.cond(S.lookup_pending, rx.hstack(rx.spinner(size="1"), rx.text("Looking up your details...", size="2"))),
            *[_detail_field(S, field) for field in worker_details.FIELDS],
            rx.cond(
                both_emails,
                checkbox_field(
                    worker_details.DIFFERENT_PAYMENT_EMAIL_LABEL,
                    id="different-payment",
                    checked=S.different_payment,
                    on_change=S.set_different_payment,
                ),
            ),
            rx.hstack(
                rx.button(
                    back_label,
                    variant="soft",
                    color_scheme="gray",
                    size="3",
                    on_click=S.back_to_questions,
                    id="back-to-questions",
                ),
                rx.button(
                    rx.cond(S.submitting, view.SUBMITTING, submit_label),
                    size="3",
                    on_click=S.submit_details,
                    loading=S.submitting,
                    disabled=S.submitting | S.lookup_pending,
                    id="details-submit",
                ),
                justify="between",
                width="100%",
                padding_top="8px",
            ),
            spacing="4",
            align="start",
            width="100%",
        ),
        size="4",
        style=_CARD,
        id="survey-end",
    )
