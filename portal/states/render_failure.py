"""Reports from the browser of what failed to render, for error reporting (portal/services/error_reporting.py).

- `RenderFailureState.report` is the on_error of the page's error boundary (portal/components/page_failure.py).
- `on_frontend_exception` is the app's frontend exception handler: Reflex's own browser reports (a
  state update the page could not apply, its default boundary's event).
Both can be called by any browser with anything: only text is taken (portal/domain/browser_errors.py)
and a tab is heard a few times at most.
"""

from __future__ import annotations

from typing import Any

import reflex as rx

from portal.services.error_reporting import report_browser_error

MAX_REPORTS_PER_TAB = 5


class RenderFailureState(rx.State):
    _reports: int = 0

    @rx.event
    def report(self, error: Any, component_stack: Any):
        """The page failed to render and shows its fallback: log it and send it to Sentry."""
        if self._reports >= MAX_REPORTS_PER_TAB:
            return
        self._reports += 1
        report_browser_error("page", error, component_stack)


def on_frontend_exception(exception: Exception) -> None:
    """Reflex's frontend exception handler for the portal."""
    report_browser_error("page", str(exception))
