"""/admin/tests/[test_id]/preview: staff take a test as a participant would, with a 'Preview' bar on
every step; nothing is stored (portal/services/admin/preview.py).

The screens are the participants' own (each kind's view component and state); on this route their
state enters the preview (portal/states/taking/core.PreviewCore). The page adds the preview bar, kept
in view while scrolling, and the end of the preview in place of the thank-you or time-up step.
"""

from __future__ import annotations

import reflex as rx

from portal.components.admin_pages import staff_page
from portal.components.admin_test import test_base_path
from portal.components.layout import footer, ready_marker
from portal.components.taking.screens import screens
from portal.domain.taking.access import TIME_UP
from portal.pages.not_found import not_found_page
from portal.states.admin.guard import StaffState
from portal.states.admin.preview import DRAFT_INVALID, NOT_FOUND, NOT_TAKEN, UNAVAILABLE
from portal.states.admin.preview import PreviewState as P
from portal.states.taking.timed_session import EXPIRED, THANK_YOU

NOTHING_STORED = "You see this test as a participant would. Nothing you answer is stored."
_CARD = {"width": "100%", "maxWidth": "760px", "margin": "0 auto"}


def _bar() -> rx.Component:
    """The preview marker: the page's header, so it stays in view on every step."""
    return rx.el.header(
        ready_marker(),
        rx.box(
            rx.badge(
                rx.icon("eye", size=14),
                rx.cond(P.draft, "Preview of the draft", "Preview"),
                color_scheme="amber",
                variant="solid",
                size="3",
                id="preview-marker",
            ),
            rx.text(
                P.name, weight="bold", size="2", id="preview-test-name", style={"minWidth": "0", "flex": "1 1 160px"}
            ),
            rx.el.a(
                rx.icon("arrow-left", size=14),
                "Back to the test",
                href=test_base_path(),
                class_name="admin-back-link",
                id="preview-leave",
                style={"display": "inline-flex", "alignItems": "center", "gap": "4px"},
            ),
            rx.text(NOTHING_STORED, size="2", color="var(--gray-12)", id="preview-note", style={"flexBasis": "100%"}),
            class_name="portal-header-inner",
            style={"flexWrap": "wrap", "rowGap": "4px"},
        ),
        class_name="portal-header",
        role="region",
        aria_label="Preview",
        style={"background": "var(--amber-3)", "borderBottom": "1px solid var(--amber-7)"},
    )


def _end(S) -> rx.Component:
    """The end of the preview: after the submission (checked, not stored) or when the time is up."""
    return rx.card(
        rx.vstack(
            rx.icon("eye", size=36, color="var(--amber-10)"),
            rx.heading("End of preview", size="7", id="preview-end-title"),
            rx.cond(
                S.phase == EXPIRED,
                rx.text(TIME_UP, " The preview ended.", size="3", id="preview-end-text"),
                rx.vstack(
                    rx.text(
                        "The answers passed every check a participant's submission gets. A participant now sees:",
                        size="3",
                        id="preview-end-text",
                    ),
                    rx.blockquote(
                        rx.text(S.thank_title, weight="bold"),
                        rx.text(S.thank_description),
                        size="3",
                        id="preview-end-thank-you",
                    ),
                    spacing="2",
                    align="center",
                ),
            ),
            rx.text("Nothing was stored: no review, no reward, no invite change.", size="2", color="var(--gray-11)"),
            rx.hstack(
                rx.el.a(
                    rx.button("Preview again", size="3"),
                    href="/admin/tests/" + P.shown_id.to_string() + "/preview" + rx.cond(P.draft, "?draft=1", ""),
                    id="preview-again",
                ),
                rx.el.a(rx.button("Back to the test", size="3", variant="soft"), href=test_base_path()),
                spacing="3",
                wrap="wrap",
                justify="center",
            ),
            spacing="4",
            align="center",
            text_align="center",
        ),
        size="4",
        style=_CARD,
        id="preview-end",
    )


def _kind(S, view) -> rx.Component:
    """The kind's own screens (kept mounted: on mounting they enter the preview), and the end in place of
    their thank-you or time-up step."""
    ended = (S.phase == THANK_YOU) | (S.phase == EXPIRED)
    return rx.fragment(
        rx.box(
            view(signed_in=False, referral=False, starts_itself=True),
            display=rx.cond(ended, "none", "block"),
            width="100%",
        ),
        rx.cond(ended, _end(S)),
    )


def _message(text: str, message_id: str) -> rx.Component:
    return rx.callout(text, icon="info", id=message_id, style=_CARD)


@staff_page("/admin/tests/[test_id]/preview", "Preview", on_load=[P.load])
def preview_page() -> rx.Component:
    body = rx.box(
        rx.match(
            P.view,
            *[(s.view, _kind(s.state, s.component)) for s in screens()],
            (UNAVAILABLE, _message(NOT_TAKEN, "preview-unavailable")),
            (NOT_FOUND, _message("This test does not exist.", "preview-not-found")),
            (
                DRAFT_INVALID,
                rx.callout.root(
                    rx.callout.icon(rx.icon("triangle-alert")),
                    rx.callout.text(P.problem),
                    rx.el.a("Back to the builder", href=test_base_path() + "/build", id="preview-to-builder"),
                    color_scheme="amber",
                    id="preview-draft-invalid",
                    style=_CARD,
                ),
            ),
            rx.center(rx.spinner(size="3"), padding="64px", aria_label="Loading"),
        ),
        key=P.loads.to_string(),
        width="100%",
    )
    page = rx.box(
        _bar(),
        rx.el.main(rx.box(body, class_name="portal-main"), style={"flex": "1"}),
        footer(),
        class_name="portal-page",
        id="preview-page",
    )
    return rx.cond(
        StaffState.checked,
        rx.cond(StaffState.allowed, page, not_found_page()),
        rx.center(rx.spinner(size="3"), min_height="100vh", aria_label="Loading"),
    )
