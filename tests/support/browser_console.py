"""What the browser complained about during a test: console errors, page errors and
Content-Security-Policy violations, from every context the test's browser opened.

The `browser` fixture (tests/e2e/conftest.py) attaches a `ConsoleWatch` to each new context;
the autouse `console_guard` fixture fails the test at teardown when anything was recorded,
unless the test is marked `@pytest.mark.allow_console_errors(pattern, ...)` for errors it
provokes on purpose (a pattern is a regular expression searched in the message; with no
pattern, every console error is allowed). CSP violations are allowed only by a pattern that
names them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from playwright.sync_api import BrowserContext, ConsoleMessage, WebError

CSP_VIOLATION = "Content-Security-Policy violation"
# Reports each violation with its details (Chromium also logs its own error: "Refused to load ..."
# or "Executing inline script violates the following Content Security Policy directive ...").
_CSP_LISTENER = (
    """
document.addEventListener("securitypolicyviolation", (e) => {
  console.error(`"""
    + CSP_VIOLATION
    + """: ${e.effectiveDirective} blocked ${e.blockedURI || "inline code"} in `
    + `${e.sourceFile || e.documentURI}:${e.lineNumber}`);
});
"""
)


def failed_request(status: int, path: str) -> str:
    """The pattern of Chromium's console error for an answer with this status from this path,
    for @pytest.mark.allow_console_errors (e.g. a wrong password the test types on purpose)."""
    return rf"Failed to load resource: the server responded with a status of {status} \(.*\) \[https?://[^/\]]+{re.escape(path)}(\?[^\]]*)?\]"


WEBSOCKET_REFUSED = r"WebSocket connection to '.*/_event/.*' failed"


def is_csp_problem(text: str) -> bool:
    return CSP_VIOLATION in text or "Content Security Policy" in text


class ConsoleWatch:
    def __init__(self) -> None:
        self.problems: list[str] = []

    def attach(self, context: BrowserContext) -> BrowserContext:
        context.add_init_script(_CSP_LISTENER)
        context.on("console", self._console)
        context.on("weberror", self._web_error)
        return context

    def _console(self, message: ConsoleMessage) -> None:
        if message.type == "error" or is_csp_problem(message.text) or message.text.startswith("Refused to"):
            where = message.location.get("url") or (message.page.url if message.page else "")
            self.problems.append(f"console.{message.type}: {message.text} [{where}]")

    def _web_error(self, error: WebError) -> None:
        where = error.page.url if error.page else ""
        self.problems.append(f"page error: {error.error} [{where}]")

    def take(self) -> list[str]:
        problems, self.problems = self.problems, []
        return problems


def unexpected(problems: Iterable[str], allowed_patterns: Iterable[str] | None) -> list[str]:
    """The problems a test did not declare. None: nothing declared; () : any console error (not CSP)."""
    if allowed_patterns is None:
        return list(problems)
    patterns = [re.compile(p) for p in allowed_patterns]
    left = []
    for problem in problems:
        if patterns:
            if not any(p.search(problem) for p in patterns):
                left.append(problem)
        elif is_csp_problem(problem) or problem.startswith("console.error: Refused to"):
            left.append(problem)
    return left
