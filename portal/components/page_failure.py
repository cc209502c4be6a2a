"""The page's error boundary: when a page fails to render, a fallback instead of a blank page, and
the failure reported to the backend (logged, and sent to Sentry when it is configured)."""

from __future__ import annotations

import reflex as rx
from reflex.components.base.error_boundary import ErrorBoundary
from reflex_base.event import noop

from portal.states.render_failure import RenderFailureState

TITLE = "Something went wrong while showing this page."
TEXT = "Please refresh the page or contact support."


def fallback() -> rx.Component:
    # Outside the Radix theme (the boundary wraps it): plain elements, styled in assets/portal.css.
    return rx.el.main(
        rx.el.h1(TITLE),
        rx.el.p(TEXT),
        rx.el.a("Go to the home page", href="/"),
        class_name="portal-page-failure",
        role="alert",
        id="page-failure",
    )


def page_error_boundary(stateful: bool) -> rx.Component:
    """The app wrap that replaces Reflex's default error boundary (rx.App.app_wraps)."""
    return ErrorBoundary.create(on_error=RenderFailureState.report if stateful else noop(), fallback_render=fallback())
