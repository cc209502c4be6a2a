"""What the browser says crashed, made fit for a log line and an error report.

A React error boundary reports `error` ("Name: message\\n<JavaScript stack>") and the component
stack ("\\n    at Component (...)" lines). Both come from the browser, so either may be anything:
only text is taken, cut to a bounded length.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

MAX_MESSAGE = 500
MAX_STACK = 2000
MAX_WHERE = 60
_ERROR_NAME = re.compile(r"[A-Za-z_$][\w$]{0,79}")


@dataclass(frozen=True)
class BrowserError:
    where: str  # which boundary caught it: "page", "table AdminTestsState", ...
    error_type: str  # the JavaScript error's name ("TypeError"), "Error" when it has none
    message: str  # its message, one line
    stack: str  # the JavaScript stack, truncated
    component_stack: str  # the React component stack, truncated

    @property
    def summary(self) -> str:
        """One log line: where, what, and the innermost component."""
        innermost = next((line.strip() for line in self.component_stack.splitlines() if line.strip()), "")
        return f"{self.where}: {self.error_type}: {self.message}" + (f" ({innermost[:200]})" if innermost else "")


def _text(value: Any, limit: int) -> str:
    return value[:limit] if isinstance(value, str) else ""


def parse(where: str, error: Any, component_stack: Any = "") -> BrowserError:
    """The browser's report as a BrowserError; values that are not text count as empty."""
    text = _text(error, MAX_MESSAGE + MAX_STACK)
    first, _, stack = text.partition("\n")
    name, sep, message = first.partition(": ")
    if not (sep and _ERROR_NAME.fullmatch(name)):
        name, message = "Error", first
    return BrowserError(
        where=" ".join(where.split())[:MAX_WHERE] or "page",
        error_type=name,
        message=" ".join(message.split())[:MAX_MESSAGE] or "(no message)",
        stack=stack[:MAX_STACK],
        component_stack=_text(component_stack, MAX_STACK),
    )
