"""Error reporting to Sentry (the `sentry-sdk`), configured by SENTRY_DSN: empty leaves it off.

`init()` runs once per backend process, when portal/portal.py is imported. What reaches Sentry:
- errors from Python logging (LoggingIntegration, event_level=ERROR): `log.error(...)` and
  `log.exception(...)` anywhere, the app's backend exception handler's included, become events;
- warnings and errors from logging as Sentry Logs (`enable_logs`, level WARNING): searchable log
  lines, not issues; INFO and above are kept as breadcrumbs of a later event;
- `report_exception()`: an exception a handler caught (the API's unhandled-error middleware), with
  its stack, while the server log keeps its one line without a traceback;
- `report_browser_error()`: what the browser's error boundaries say crashed (the fallback reports
  it to the backend, which logs it and forwards it here).

Nothing personal leaves: the SDK collects no user, cookie, body, query or frame variables
(`data_collection`), and every event, breadcrumb and log line goes through the scrubbing rules of
portal/domain/error_scrubbing.py first.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, cast

import sentry_sdk
from sentry_sdk.integrations.logging import LoggingIntegration

from portal.domain import browser_errors, error_scrubbing
from portal.settings import Settings
from portal.settings import settings as current_settings

if TYPE_CHECKING:
    from sentry_sdk._types import DataCollectionUserOptions, Event, Hint, Log

log = logging.getLogger("portal.errors")

# A log line whose error was sent on its own (report_exception, report_browser_error): its log
# event is dropped so Sentry gets it once, with the exception or the browser's stacks.
REPORTED = "portal_reported"

# What the SDK may collect by itself (sentry-sdk 2.x `data_collection`; its `send_default_pii=False`
# is deprecated there): no user, cookies, query parameters, bodies or frame variables, and of the
# request headers only harmless ones (the scrubber keeps fewer still).
DATA_COLLECTION: DataCollectionUserOptions = {
    "user_info": False,
    "cookies": {"mode": "off"},
    "http_headers": {"request": {"mode": "allowlist", "terms": sorted(error_scrubbing.KEPT_HEADERS)}},
    "http_bodies": [],
    "url_query_params": {"mode": "off"},
    "graphql": {"document": False, "variables": False},
    "gen_ai": {"inputs": False, "outputs": False},
    "database_query_data": False,
    "queues": False,
    "stack_frame_variables": False,
}


# The SDK types its events and log lines as TypedDicts; the scrubbing rules read them as the JSON objects
# they are (and change them in place), hence the casts.
def before_send(event: Event, hint: Hint) -> Event | None:
    record = hint.get("log_record") if isinstance(hint, dict) else None
    if record is not None and getattr(record, REPORTED, False):
        return None
    return cast("Event", error_scrubbing.scrub_event(cast("dict[str, Any]", event)))


def before_breadcrumb(crumb: dict[str, Any], hint: dict[str, Any]) -> dict[str, Any] | None:
    return error_scrubbing.scrub_breadcrumb(crumb)


def before_send_log(record: Log, hint: Hint) -> Log | None:
    return cast("Log", error_scrubbing.scrub_log(cast("dict[str, Any]", record)))


def init(settings: Settings = current_settings) -> bool:
    """Start the Sentry SDK in this process when SENTRY_DSN is set (once; later calls do nothing).
    Returns whether error reporting is on."""
    if not settings.sentry_dsn:
        return False
    if sentry_sdk.is_initialized():
        return True
    sentry_sdk.init(
        dsn=settings.sentry_dsn,
        environment=settings.sentry_environment_name,
        release=settings.sentry_release or None,
        data_collection=DATA_COLLECTION,
        include_local_variables=False,
        max_request_body_size="never",
        before_send=before_send,
        before_breadcrumb=before_breadcrumb,
        enable_logs=True,
        before_send_log=before_send_log,
        integrations=[
            LoggingIntegration(level=logging.INFO, event_level=logging.ERROR, sentry_logs_level=logging.WARNING)
        ],
    )
    log.info("error reporting to Sentry is on (environment %s)", settings.sentry_environment_name)
    return True


def enabled() -> bool:
    return sentry_sdk.is_initialized()


def report_exception(exc: BaseException, message: str, *args: Any, logger: logging.Logger = log) -> None:
    """Log `message` as one error line (no traceback) and send `exc` with its stack to Sentry."""
    logger.error(message, *args, extra={REPORTED: True})
    if enabled():
        sentry_sdk.capture_exception(exc)


def report_browser_error(where: str, error: Any, component_stack: Any = "", *, logger: logging.Logger = log) -> None:
    """What a browser error boundary caught: one error line in the log, and an event in Sentry
    with the JavaScript error's type, message and stack and the React component stack."""
    crash = browser_errors.parse(where, error, component_stack)
    logger.error("the browser failed to render %s", crash.summary, extra={REPORTED: True})
    if not enabled():
        return
    with sentry_sdk.new_scope() as scope:
        scope.set_tag("source", "browser")
        scope.set_tag("boundary", crash.where)
        scope.set_context("browser_error", {"stack": crash.stack, "component_stack": crash.component_stack})
        sentry_sdk.capture_event(
            {
                "level": "error",
                "logger": logger.name,
                "message": crash.summary,
                "exception": {
                    "values": [
                        {
                            "type": crash.error_type,
                            "value": crash.message,
                            "mechanism": {"type": "react.error_boundary", "handled": True},
                        }
                    ]
                },
            }
        )
