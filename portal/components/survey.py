"""The survey screens: welcome, one question at a time (every question type), thank-you, the timer.

Every input is labelled and keyboard operable (native radios, checkboxes, buttons and text boxes).
Text answers are sent 400 ms after typing stops; window.portalSurvey keeps each keystroke in local
storage meanwhile (data-answer-key), and reports pastes.
"""

from __future__ import annotations

import reflex as rx

from portal.domain import geography, test_access, worker_details
from portal.domain import survey_view as view
from portal.states.survey import SurveyState

TEXT_DEBOUNCE_MS = 400
_CARD = {"width": "100%", "maxWidth": "760px", "margin": "0 auto"}
_OPTION = {
    "display": "flex", "alignItems": "center", "gap": "10px", "padding": "10px 12px", "cursor": "pointer",
    "border": "1px solid var(--gray-6)", "borderRadius": "var(--radius-3)", "background": "var(--color-surface)",
    "width": "100%", "boxSizing": "border-box",
}
_INPUT = {"width": "18px", "height": "18px", "accentColor": "var(--accent-9)", "flexShrink": "0"}


def timer() -> rx.Component:
    """The countdown, drawn each second by window.portalSurvey from the server deadline."""
    return rx.hstack(
        rx.icon("timer", size=16),
        rx.el.span(id="survey-timer-text", aria_live="off"),
        id="survey-timer",
        data_test_id=SurveyState.test_id.to_string(),
        data_deadline=SurveyState.deadline_ms.to_string(),
        data_clock=SurveyState.clock_ms.to_string(),
        data_seconds=SurveyState.session_seconds.to_string(),
        data_can_extend=rx.cond(SurveyState.extensions < test_access.MAX_EXTENSIONS, "true", "false"),
        data_mid=str(test_access.MID_WARNING_SECONDS),
        data_warn=str(test_access.TIMEOUT_MODAL_SECONDS),
        align="center",
        spacing="1",
        class_name="survey-timer",
        aria_label="Time left",
    )


def bridge() -> rx.Component:
    """Where window.portalSurvey reports timer thresholds, tab focus, other tabs' saves and pastes."""
    return rx.el.input(
        id="survey-bridge", type="text", aria_hidden="true", tab_index=-1,
        style={"display": "none"}, on_change=SurveyState.bridge,
    )


def timeout_modal() -> rx.Component:
    return rx.alert_dialog.root(
        rx.alert_dialog.content(
            rx.alert_dialog.title(test_access.TIMEOUT_MODAL_TITLE),
            rx.alert_dialog.description(
                "Your time is almost up. Responses won't be accepted after the time is up. "
                "You can extend your time once by 10 minutes."
            ),
            rx.hstack(
                rx.alert_dialog.cancel(rx.button("Close", variant="soft", color_scheme="gray", on_click=SurveyState.close_timeout, id="timeout-close")),
                rx.alert_dialog.action(rx.button("Extend time", on_click=SurveyState.extend_time, id="timeout-extend")),
                spacing="3", justify="end", margin_top="16px",
            ),
            max_width="440px",
        ),
        open=SurveyState.timeout_open,
    )


def welcome() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.heading(SurveyState.title, size="7", id="survey-title"),
            rx.cond(SurveyState.description != "", rx.text(SurveyState.description, size="3", color="var(--gray-11)")),
            rx.text("Before you start, please agree to the following:", weight="medium", size="3"),
            rx.el.ul(
                *[rx.el.li(rx.text(item, size="3")) for item in view.AGREEMENTS],
                style={"paddingLeft": "20px", "margin": "0", "display": "flex", "flexDirection": "column", "gap": "6px"},
                id="survey-agreements",
            ),
            rx.button(SurveyState.start_label, size="3", on_click=SurveyState.start_survey, id="start-survey"),
            spacing="4", align="start",
        ),
        size="4", style=_CARD, id="survey-welcome",
    )


def _key() -> rx.Var:
    """The shown question's key: every answer event names its question."""
    return SurveyState.current["key"].to(str)


def _option_row(control: rx.Component, label: rx.Var | str, option_id: rx.Var | str) -> rx.Component:
    return rx.el.label(control, rx.text(label, size="3"), html_for=option_id, style=_OPTION, class_name="survey-option")


def _other_input(placeholder: str = "Please specify") -> rx.Component:
    return rx.cond(
        SurveyState.other_chosen,
        rx.input(
            default_value=SurveyState.other_text, key=SurveyState.text_key + "-other",
            on_change=lambda v: SurveyState.set_other_text(_key(), v).debounce(TEXT_DEBOUNCE_MS),
            on_blur=lambda v: SurveyState.set_other_text(_key(), v),
            placeholder=placeholder, max_length=120, size="3", id="survey-other-text",
            aria_label="Other answer", width="100%",
        ),
    )


def _single() -> rx.Component:
    key = SurveyState.current["key"].to(str)
    return rx.vstack(
        rx.foreach(
            SurveyState.current["options"].to(list[dict[str, str]]),
            lambda o, i: _option_row(
                rx.el.input(type="radio", name=key, value=o["value"], id="opt-" + i.to_string(),
                            checked=SurveyState.single_value == o["value"],
                            on_change=SurveyState.choose(key, o["value"]), style=_INPUT),
                o["label"], "opt-" + i.to_string(),
            ),
        ),
        rx.cond(
            SurveyState.current["withOther"].to(bool),
            _option_row(
                rx.el.input(type="radio", name=key, value=view.OTHER_VALUE, id="opt-other",
                            checked=SurveyState.single_value == view.OTHER_VALUE,
                            on_change=SurveyState.choose(key, view.OTHER_VALUE), style=_INPUT),
                view.OTHER_LABEL, "opt-other",
            ),
        ),
        _other_input(),
        role="radiogroup", aria_labelledby="question-text", width="100%", spacing="2",
    )


def _multi() -> rx.Component:
    return rx.vstack(
        rx.foreach(
            SurveyState.current["options"].to(list[dict[str, str]]),
            lambda o, i: _option_row(
                rx.el.input(type="checkbox", value=o["value"], id="opt-" + i.to_string(),
                            checked=SurveyState.multi_values.contains(o["value"]),
                            on_change=SurveyState.toggle_option(_key(), o["value"]), style=_INPUT),
                o["label"], "opt-" + i.to_string(),
            ),
        ),
        rx.cond(
            SurveyState.current["withOther"].to(bool),
            _option_row(
                rx.el.input(type="checkbox", id="opt-other", checked=SurveyState.multi_values.contains(view.OTHER_VALUE),
                            on_change=SurveyState.toggle_option(_key(), view.OTHER_VALUE), style=_INPUT),
                view.OTHER_LABEL, "opt-other",
            ),
        ),
        _other_input(),
        role="group", aria_labelledby="question-text", width="100%", spacing="2",
    )


def _text(long: bool) -> rx.Component:
    common = dict(
        default_value=SurveyState.text_value, key=SurveyState.text_key,
        on_change=lambda v: SurveyState.set_text(_key(), v).debounce(TEXT_DEBOUNCE_MS),
        # Leaving the box (e.g. clicking Continue) sends the text at once, before the click's event.
        on_blur=lambda v: SurveyState.set_text(_key(), v),
        placeholder=view.TEXT_PLACEHOLDER, id="survey-text", aria_labelledby="question-text",
        custom_attrs={"data-answer-key": SurveyState.current["key"].to(str), "data-test-id": SurveyState.test_id.to_string()},
        width="100%", size="3",
    )
    if long:
        return rx.vstack(
            rx.text_area(rows="7", max_length=10000, **common),
            rx.text(SurveyState.word_count.to_string() + " words", size="1", color="var(--gray-10)", id="survey-word-count"),
            width="100%", spacing="1",
        )
    return rx.input(max_length=10000, **common)


def _number() -> rx.Component:
    return rx.hstack(
        rx.input(
            default_value=SurveyState.number_text, key=SurveyState.text_key, type="text", input_mode="decimal",
            on_change=lambda v: SurveyState.set_number(_key(), v).debounce(TEXT_DEBOUNCE_MS),
            on_blur=lambda v: SurveyState.set_number(_key(), v), id="survey-number",
            aria_labelledby="question-text", size="3", width="220px",
        ),
        rx.cond(SurveyState.current["percentage"].to(bool), rx.text("%", size="4")),
        align="center",
    )


def _rank() -> rx.Component:
    return rx.vstack(
        rx.text("Use the arrows to put the most important first.", size="2", color="var(--gray-11)"),
        rx.el.ol(
            rx.foreach(
                SurveyState.rank_options,
                lambda o, i: rx.el.li(
                    rx.hstack(
                        rx.badge((i + 1).to_string(), variant="soft", size="2"),
                        rx.text(o["label"], size="3", flex="1"),
                        rx.icon_button(rx.icon("arrow-up", size=16), variant="soft", size="2",
                                       on_click=SurveyState.rank_up(_key(), o["value"]), aria_label="Move " + o["label"] + " up",
                                       disabled=i == 0),
                        rx.icon_button(rx.icon("arrow-down", size=16), variant="soft", size="2",
                                       on_click=SurveyState.rank_down(_key(), o["value"]), aria_label="Move " + o["label"] + " down",
                                       disabled=i == SurveyState.rank_options.length() - 1),
                        align="center", style=_OPTION, class_name="survey-rank-item",
                    ),
                    style={"listStyle": "none"},
                ),
            ),
            style={"padding": "0", "margin": "0", "display": "flex", "flexDirection": "column", "gap": "8px", "width": "100%"},
            id="survey-rank",
        ),
        rx.cond(
            ~SurveyState.rank_started,
            rx.button("Keep this order", variant="outline", on_click=SurveyState.keep_rank(_key()), id="rank-keep"),
        ),
        width="100%", spacing="2",
    )


def _rating() -> rx.Component:
    return rx.vstack(
        rx.hstack(
            rx.foreach(
                SurveyState.current["scales"].to(list[dict[str, str]]),
                lambda s, i: rx.el.label(
                    rx.el.input(type="radio", name="rating", id="rate-" + i.to_string(), value=s["value"],
                                checked=SurveyState.rating_value == s["value"], on_change=SurveyState.rate(_key(), s["value"]),
                                style=_INPUT),
                    rx.text(s["label"], size="3"),
                    html_for="rate-" + i.to_string(), style={**_OPTION, "flexDirection": "column", "minWidth": "48px", "width": "auto"},
                    class_name="survey-option",
                ),
            ),
            wrap="wrap", spacing="2", role="radiogroup", aria_labelledby="question-text",
        ),
        rx.hstack(
            rx.text(SurveyState.current["low"].to(str), size="2", color="var(--gray-11)"),
            rx.text(SurveyState.current["high"].to(str), size="2", color="var(--gray-11)"),
            justify="between", width="100%",
        ),
        width="100%",
    )


def _matrix() -> rx.Component:
    columns = SurveyState.current["columns"].to(list[dict[str, str]])
    multiple = SurveyState.current["multiple"].to(bool)
    return rx.vstack(
        rx.text("Scroll horizontally to see all options", size="1", color="var(--gray-10)", class_name="portal-mobile-only"),
        rx.box(
            rx.el.table(
                rx.el.thead(rx.el.tr(
                    rx.el.th(rx.el.span("Statement", class_name="sr-only")),
                    rx.foreach(columns, lambda c: rx.el.th(c["label"], scope="col", style={"padding": "8px", "fontWeight": 500})),
                )),
                rx.el.tbody(rx.foreach(
                    SurveyState.current["statements"].to(list[dict[str, str]]),
                    lambda s, si: rx.el.tr(
                        rx.el.th(s["label"], scope="row",
                                 style={"textAlign": "left", "padding": "8px", "fontWeight": 400, "minWidth": "160px"}),
                        rx.foreach(columns, lambda c, ci: rx.el.td(
                            rx.el.input(
                                type=rx.cond(multiple, "checkbox", "radio"), name="row-" + si.to_string(),
                                id="cell-" + si.to_string() + "-" + ci.to_string(),
                                checked=SurveyState.matrix_value.get(s["value"], []).to(list[str]).contains(c["value"]),
                                on_change=SurveyState.pick_cell(_key(), s["value"], c["value"]),
                                aria_label=s["label"] + ": " + c["label"], style=_INPUT,
                            ),
                            style={"textAlign": "center", "padding": "8px"},
                        )),
                        style={"borderTop": "1px solid var(--gray-5)"},
                    ),
                )),
                style={"borderCollapse": "collapse", "minWidth": "480px", "width": "100%"},
                id="survey-matrix",
            ),
            style={"overflowX": "auto", "width": "100%"},
        ),
        width="100%",
    )


def _answer_area() -> rx.Component:
    return rx.match(
        SurveyState.current["kind"].to(str),
        ("single", _single()),
        ("multi", _multi()),
        ("short", _text(long=False)),
        ("long", _text(long=True)),
        ("number", _number()),
        ("rank", _rank()),
        ("rating", _rating()),
        ("matrix", _matrix()),
        rx.fragment(),
    )


def question() -> rx.Component:
    current = SurveyState.current
    return rx.card(
        rx.vstack(
            rx.hstack(
                rx.text(SurveyState.progress, size="2", weight="medium", color="var(--gray-11)", id="survey-progress"),
                rx.cond(current["required"].to(bool), rx.badge("Required", color_scheme="red", variant="soft", id="survey-required")),
                spacing="2", align="center",
            ),
            rx.heading(current["text"].to(str), size="5", id="question-text", as_="h2"),
            rx.cond(current["description"].to(str) != "", rx.text(current["description"].to(str), size="3", color="var(--gray-11)")),
            rx.foreach(current["images"].to(list[str]), lambda src: rx.image(src=src, alt="Question image", max_width="100%", border_radius="8px")),
            rx.cond(
                current["embed"].to(str) != "",
                rx.el.iframe(src=current["embed"].to(str), width=str(view.EMBED_WIDTH), height=str(view.EMBED_HEIGHT),
                             title="Question video", allow="encrypted-media; picture-in-picture", allow_full_screen=True,
                             style={"maxWidth": "100%", "border": "0", "borderRadius": "8px"}),
            ),
            _answer_area(),
            rx.cond(current["hint"].to(str) != "", rx.text(current["hint"].to(str), size="2", color="var(--gray-11)", id="survey-hint")),
            rx.cond(SurveyState.current_error != "", rx.callout(SurveyState.current_error, color_scheme="red", icon="circle-alert", role="alert", id="survey-error", width="100%")),
            rx.hstack(
                rx.button("Back", variant="soft", color_scheme="gray", size="3", on_click=SurveyState.go_back,
                          disabled=~SurveyState.can_go_back, id="survey-back"),
                rx.cond(
                    SurveyState.is_last,
                    rx.button(rx.cond(SurveyState.submitting, view.SUBMITTING, "Submit"), size="3",
                              on_click=SurveyState.submit, disabled=SurveyState.submitting, loading=SurveyState.submitting,
                              id="survey-submit"),
                    rx.button("Continue", size="3", on_click=SurveyState.go_next, id="survey-continue"),
                ),
                justify="between", width="100%", padding_top="8px",
            ),
            spacing="4", align="start", width="100%",
        ),
        size="4", style=_CARD, id="survey-question",
    )



_SELECT = {
    "width": "100%", "height": "40px", "padding": "0 10px", "fontSize": "16px", "borderRadius": "var(--radius-2)",
    "border": "1px solid var(--gray-7)", "background": "var(--color-surface)", "color": "var(--gray-12)",
}


def _detail_control(field: str, field_id: str) -> rx.Component:
    busy = SurveyState.lookup_pending
    if field == "country":
        return rx.el.select(
            *[rx.el.option(name, value=code) for code, name in geography.countries()],
            value=SurveyState.details.get("country", "US"), id=field_id, disabled=busy, style=_SELECT,
            on_change=lambda v: SurveyState.set_detail("country", v),
        )
    if field == "state":
        return rx.el.select(
            rx.el.option("Choose a state", value=""),
            rx.foreach(SurveyState.state_options, lambda o: rx.el.option(o[1], value=o[0])),
            value=SurveyState.details.get("state", ""), id=field_id, disabled=busy, style=_SELECT,
            on_change=lambda v: SurveyState.set_detail("state", v),
        )
    if field == "workerId":
        return rx.input(
            default_value=SurveyState.details.get("workerId", ""), key=SurveyState.text_key + "-workerId", id=field_id,
            on_change=SurveyState.lookup_worker.debounce(worker_details.LOOKUP_DEBOUNCE_MS), size="3", width="100%",
        )
    kind = "email" if field in ("email", "paymentEmail") else ("tel" if field == "phoneNumber" else "text")
    return rx.input(
        default_value=SurveyState.details.get(field, ""), key=SurveyState.text_key + "-" + field, id=field_id, type=kind,
        on_blur=lambda v: SurveyState.set_detail(field, v), size="3", width="100%", disabled=busy,
    )


def _detail_field(field: str) -> rx.Component:
    field_id = f"detail-{field}"
    label = worker_details.LABELS[field] + ("" if field in worker_details.OPTIONAL_FIELDS else " *")
    error = SurveyState.detail_errors.get(field, "")
    help_text = worker_details.help_text(field)
    shown = SurveyState.personal_fields.contains(field)
    if field == "paymentEmail":
        shown = shown & SurveyState.different_payment
    return rx.cond(
        shown,
        rx.vstack(
            rx.el.label(label, html_for=field_id, style={"fontSize": "14px", "fontWeight": 500}),
            _detail_control(field, field_id),
            rx.text(help_text, size="1", color="var(--gray-10)") if help_text else rx.fragment(),
            rx.cond(error != "", rx.text(error, size="2", color="red", role="alert", id=field_id + "-error")),
            spacing="1", width="100%",
        ),
    )


def end_step() -> rx.Component:
    """'Personal info' after the last question (public respondents), with the messaging banner."""
    both_emails = SurveyState.personal_fields.contains("email") & SurveyState.personal_fields.contains("paymentEmail")
    return rx.card(
        rx.vstack(
            rx.callout(view.MESSAGING_BANNER, icon="info", color_scheme="amber", width="100%", id="survey-banner"),
            rx.heading(view.PERSONAL_INFO, size="5", as_="h2", id="personal-info-title"),
            rx.cond(SurveyState.lookup_pending, rx.hstack(rx.spinner(size="1"), rx.text("Looking up your details...", size="2"))),
            *[_detail_field(field) for field in worker_details.FIELDS],
            rx.cond(
                both_emails,
                rx.el.label(
                    rx.el.input(type="checkbox", id="different-payment", checked=SurveyState.different_payment,
                                on_change=SurveyState.set_different_payment, style=_INPUT),
                    rx.text(worker_details.DIFFERENT_PAYMENT_EMAIL_LABEL, size="2"),
                    html_for="different-payment", style={"display": "flex", "gap": "8px", "alignItems": "center"},
                ),
            ),
            rx.hstack(
                rx.button(view.BACK_TO_QUESTIONS, variant="soft", color_scheme="gray", size="3",
                          on_click=SurveyState.back_to_questions, id="back-to-questions"),
                rx.button(rx.cond(SurveyState.submitting, view.SUBMITTING, "Submit"), size="3",
                          on_click=SurveyState.submit_details, loading=SurveyState.submitting,
                          disabled=SurveyState.submitting | SurveyState.lookup_pending, id="details-submit"),
                justify="between", width="100%", padding_top="8px",
            ),
            spacing="4", align="start", width="100%",
        ),
        size="4", style=_CARD, id="survey-end",
    )

def thank_you(*, signed_in: rx.Var[bool], referral: rx.Var[bool]) -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.icon("circle-check", size=40, color="var(--green-9)"),
            rx.heading(SurveyState.thank_title, size="7", id="thank-you-title"),
            rx.text(SurveyState.thank_description, size="3"),
            rx.cond(
                signed_in,
                rx.text("Your reward of ", rx.el.strong(SurveyState.reward_label),
                        " is pending. Rewards are paid within 5 business days.", size="3", id="thank-you-reward"),
            ),
            rx.match(
                SurveyState.thank_action,
                (worker_details.CLOSE_WINDOW, rx.text("You can now close this window.", size="3", id="thank-you-close")),
                (worker_details.SIGN_UP_PROMO_BUTTON, rx.cond(
                    signed_in,
                    rx.link(rx.button(worker_details.BACK_TO_HOMEPAGE, size="3"), href="/", id="thank-you-home"),
                    rx.vstack(
                        rx.heading(worker_details.SIGN_UP_PROMO_TITLE, size="4"),
                        rx.text(worker_details.SIGN_UP_PROMO_TEXT, size="3"),
                        rx.link(rx.button(worker_details.SIGN_UP_PROMO_BUTTON, size="3"), href="/sign-up", id="thank-you-sign-up"),
                        align="center", id="thank-you-promo",
                    ),
                )),
                rx.link(rx.button(worker_details.BACK_TO_HOMEPAGE, size="3"), href="/", id="thank-you-home"),
            ),
            rx.cond(referral, rx.link("Invite colleagues and earn more: your referral link", href="/referral", id="thank-you-referral")),
            spacing="4", align="center", text_align="center",
        ),
        size="4", style=_CARD, id="survey-thank-you",
    )


def survey_view(*, signed_in: rx.Var[bool], referral: rx.Var[bool]) -> rx.Component:
    in_progress = (SurveyState.phase == view.QUESTIONS) | (SurveyState.phase == view.END)
    return rx.vstack(
        bridge(),
        rx.cond(in_progress, rx.hstack(rx.spacer(), timer(), width="100%", style={"maxWidth": "760px", "margin": "0 auto"})),
        rx.match(
            SurveyState.phase,
            (view.WELCOME, welcome()),
            (view.QUESTIONS, question()),
            (view.END, end_step()),
            (view.THANK_YOU, thank_you(signed_in=signed_in, referral=referral)),
            ("reviewed", rx.callout("You've already reviewed this test.", icon="info", id="survey-reviewed", style=_CARD)),
            rx.center(rx.spinner(size="3"), padding="48px"),
        ),
        timeout_modal(),
        width="100%", spacing="4",
        data_survey_phase=SurveyState.phase,
        id="survey-root",
    )
