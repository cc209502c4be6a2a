"""What an error report may carry out of the portal: no personal data and no credential.

An error report (a Sentry event, breadcrumb or log line, see portal/services/error_reporting.py)
leaves with:
- no e-mail address and no IPv4 address (in any text: replaced by '[email]' / '[ip]');
- no token: session cookies, sign-in, reset and verification link tokens (`token=`, `code=`,
  `state=` ... in a URL or a text), `Authorization` values, and any long random-looking string
  (what `secrets.token_urlsafe` makes);
- no survey answer, draft or request body, no cookie, no user, no local variables of a stack frame;
- of a request: its method, its path (no query) and a few harmless headers only.

The rules are pure functions over the plain dicts the SDK hands to `before_send`,
`before_breadcrumb` and `before_send_log`; they never raise on an odd shape.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit, urlunsplit

FILTERED = "[Filtered]"

# Keys whose values never leave, wherever they sit (case-insensitive; a key containing the word).
SENSITIVE_KEY_PARTS = (
    "password",
    "passwd",
    "secret",
    "token",
    "auth",
    "cookie",
    "session",
    "csrf",
    "xsrf",
    "api_key",
    "apikey",
    "private_key",
    "credential",
    "signature",
    "email",
    "e_mail",
    "e-mail",
    "phone",
    "answer",
    "draft",
    "body",
    "params",
    "query",
    "forwarded",
    "remote_addr",
    "ip_address",
)
# Short keys that name a secret only when they are the whole key (`code` of an OAuth callback).
SENSITIVE_KEYS = frozenset({"code", "state", "nonce", "key", "sid", "ip", "data", "x-real-ip"})

# Request headers an error report keeps (everything else, cookies and authorization first, is dropped).
KEPT_HEADERS = frozenset(
    {"user-agent", "content-type", "content-length", "accept", "accept-language", "host", "origin"}
)

_SECRET_NAMES = (
    r"(?:access_token|id_token|refresh_token|token|code|state|nonce|password|secret|"
    r"session|session_id|sid|key|sig|signature|auth|authorization|cookie)"
)
# name=value or "name": "value" (a URL query, a form, a cookie header, JSON in a message).
SECRET_PAIR = re.compile(r"(?i)(?<![A-Za-z0-9_])(" + _SECRET_NAMES + r"""["']?\s*[=:]\s*["']?)([^&\s#"',;<>}\])]+)""")
AUTH_VALUE = re.compile(r"(?i)\b(Bearer|Basic|Token|Digest)\s+[A-Za-z0-9._~+/=-]{6,}")
EMAIL = re.compile(r"[A-Za-z0-9.!#$%&*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9-]+)+")
# A run of 32+ URL-safe characters with upper- and lower-case letters: a random token (a 256-bit
# token_urlsafe has both with near certainty), never a snake_case name, a hex hash or a trace id.
OPAQUE = re.compile(
    r"(?<![A-Za-z0-9_-])(?=[A-Za-z0-9_-]*[A-Z])(?=[A-Za-z0-9_-]*[a-z])[A-Za-z0-9_-]{32,}(?![A-Za-z0-9_-])"
)
IPV4 = re.compile(r"(?<![\d.])(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)(?![\d.])")


def is_sensitive_key(key: Any) -> bool:
    if not isinstance(key, str):
        return False
    lowered = key.lower()
    return lowered in SENSITIVE_KEYS or any(part in lowered for part in SENSITIVE_KEY_PARTS)


def scrub_text(text: str) -> str:
    """The text with every credential, e-mail address and IP address replaced."""
    text = AUTH_VALUE.sub(lambda m: f"{m.group(1)} {FILTERED}", text)
    text = SECRET_PAIR.sub(lambda m: f"{m.group(1)}{FILTERED}", text)
    text = EMAIL.sub("[email]", text)
    text = OPAQUE.sub(FILTERED, text)
    return IPV4.sub("[ip]", text)


def scrub_value(value: Any) -> Any:
    """Any JSON-like value: texts scrubbed, values of sensitive keys filtered, at every depth."""
    if isinstance(value, str):
        return scrub_text(value)
    if isinstance(value, dict):
        return {k: FILTERED if is_sensitive_key(k) else scrub_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [scrub_value(item) for item in value]
    return value


def scrub_url(url: Any) -> Any:
    """A URL without its query and fragment (where link tokens travel), its path scrubbed."""
    if not isinstance(url, str):
        return url
    try:
        parts = urlsplit(url)
    except ValueError:
        return scrub_text(url.split("?", 1)[0].split("#", 1)[0])
    netloc = parts.netloc.rpartition("@")[2]  # no user:password@
    return scrub_text(urlunsplit((parts.scheme, netloc, parts.path, "", "")))


def _scrub_request(request: Any) -> dict[str, Any]:
    if not isinstance(request, dict):
        return {}
    kept: dict[str, Any] = {}
    if isinstance(request.get("method"), str):
        kept["method"] = request["method"]
    if "url" in request:
        kept["url"] = scrub_url(request["url"])
    headers = request.get("headers")
    if isinstance(headers, dict):
        kept["headers"] = {
            k: scrub_text(v) if isinstance(v, str) else FILTERED
            for k, v in headers.items()
            if isinstance(k, str) and k.lower() in KEPT_HEADERS
        }
    return kept  # no query_string, cookies, data (the body) or env (the client address)


def _scrub_frames(container: Any) -> None:
    """Stack frames keep code positions and source lines, never their local variables."""
    values = container.get("values") if isinstance(container, dict) else None
    for item in values if isinstance(values, list) else ():
        if not isinstance(item, dict):
            continue
        if isinstance(item.get("value"), str):
            item["value"] = scrub_text(item["value"])
        stacktrace = item.get("stacktrace")
        frames = stacktrace.get("frames") if isinstance(stacktrace, dict) else None
        for frame in frames if isinstance(frames, list) else ():
            if isinstance(frame, dict):
                frame.pop("vars", None)


def scrub_event(event: dict[str, Any]) -> dict[str, Any]:
    """An error event fit to leave: see the module's docstring. Changes and returns `event`."""
    event.pop("user", None)
    if "request" in event:
        event["request"] = _scrub_request(event["request"])
    for key in ("exception", "threads"):
        _scrub_frames(event.get(key))
    if isinstance(event.get("message"), str):
        event["message"] = scrub_text(event["message"])
    logentry = event.get("logentry")
    if isinstance(logentry, dict):
        event["logentry"] = {k: scrub_value(v) for k, v in logentry.items()}
    breadcrumbs = event.get("breadcrumbs")
    values = breadcrumbs.get("values") if isinstance(breadcrumbs, dict) else breadcrumbs
    if isinstance(values, list):
        kept = [scrubbed for crumb in values if (scrubbed := scrub_breadcrumb(crumb)) is not None]
        event["breadcrumbs"] = {**breadcrumbs, "values": kept} if isinstance(breadcrumbs, dict) else kept
    for key in ("extra", "tags"):
        if key in event:
            event[key] = scrub_value(event[key])
    contexts = event.get("contexts")
    if isinstance(contexts, dict):  # the trace context's ids are kept as they are
        event["contexts"] = {k: v if k == "trace" else scrub_value(v) for k, v in contexts.items()}
    return event


def scrub_breadcrumb(crumb: Any) -> dict[str, Any] | None:
    """A breadcrumb fit to leave (its message and data scrubbed; a URL without its query)."""
    if not isinstance(crumb, dict):
        return None
    out: dict[str, Any] = dict(crumb)
    if isinstance(out.get("message"), str):
        out["message"] = scrub_text(out["message"])
    data = out.get("data")
    if isinstance(data, dict):
        out["data"] = {
            k: scrub_url(v) if k == "url" else (FILTERED if is_sensitive_key(k) else scrub_value(v))
            for k, v in data.items()
        }
    return out


def scrub_log(record: dict[str, Any]) -> dict[str, Any]:
    """A log line sent as a Sentry log (its body and attributes scrubbed). Changes and returns `record`."""
    if isinstance(record.get("body"), str):
        record["body"] = scrub_text(record["body"])
    if isinstance(record.get("attributes"), dict):
        record["attributes"] = scrub_value(record["attributes"])
    return record
