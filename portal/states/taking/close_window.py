"""The crowd-work thank-you's 'Close this window' button: whether the browser refused to close the tab.

A browser closes only a tab that a script opened (or one with a single page in its history); when it
refuses, the thank-you says so and asks the respondent to close the tab themselves
(docs/decisions.md, 'Close this window').
"""

from __future__ import annotations

from typing import Any

import reflex as rx
from reflex_base.event import EventSpec

from portal.states.tab_owner import TabOwned

# window.close() marks a tab the browser lets go as closed at once; the answer tells the state.
CLOSE_SCRIPT: rx.Var[Any] = rx.Var("() => { window.close(); return window.closed === true; }")


class CloseWindowState(TabOwned, rx.State):
    refused: bool = False

    @rx.event
    def closed(self, closed: bool = False):
        """The browser's answer to window.close(): anything but true means the tab is still open."""
        self.refused = closed is not True


def close_window_event() -> EventSpec:
    """Close the tab in the browser (a function, not eval'd text) and report whether it closed."""
    return rx.call_function(CLOSE_SCRIPT, callback=CloseWindowState.closed)
