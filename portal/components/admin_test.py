"""The pages of one test in the admin (/admin/tests/{id}/...): one row of tabs linking them."""

from __future__ import annotations

import reflex as rx
from reflex.vars import StringVar

from portal.states.auth import current_path

# (key, label, path under /admin/tests/{id}); "" is the test's own page (details and edit).
TEST_PAGES = (
    ("details", "Details", ""),
    ("build", "Build", "/build"),
    ("images", "Images", "/images"),
    ("areas", "Highlight areas", "/areas"),
    ("preview", "Preview", "/preview"),
    ("invite", "Invite", "/invite"),
    ("results", "Results", "/results"),
    ("versions", "Versions", "/versions"),
)


def test_base_path() -> StringVar:
    """/admin/tests/{id} of the page being shown (from the address, so it is right before any load)."""
    return current_path().split("/")[:4].join("/")


def test_tabs(active: str) -> rx.Component:
    """Links between the pages of one test; `active` is the key of the page showing them."""
    base = test_base_path()
    links = [
        rx.el.a(
            label,
            href=base + path,
            class_name="admin-nav-link",
            data_active="true" if key == active else "false",
            aria_current="page" if key == active else None,
            id=f"test-tab-{key}",
        )
        for key, label, path in TEST_PAGES
    ]
    return rx.box(
        rx.el.a("← All tests", href="/admin/tests", class_name="admin-back-link"),
        rx.el.nav(*links, class_name="admin-nav admin-test-tabs", aria_label="This test"),
        margin_bottom="16px",
    )
