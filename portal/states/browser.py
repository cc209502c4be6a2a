"""Small browser-side effects shared by states: toasts and tidying the address bar."""

from __future__ import annotations

import json

import reflex as rx

TOAST_MS = 5000  # the spec's toast auto-close


def toast(level: str, message: str):
    show = {"success": rx.toast.success, "error": rx.toast.error, "warning": rx.toast.warning}.get(level, rx.toast.info)
    return show(message, duration=TOAST_MS)


def remove_query_params_js(names: tuple[str, ...] | list[str]) -> str:
    return (
        "(() => { const u = new URL(window.location.href); "
        f"{json.dumps(list(names))}.forEach((p) => u.searchParams.delete(p)); "
        "window.history.replaceState(window.history.state, '', u.pathname + u.search + u.hash); })()"
    )
