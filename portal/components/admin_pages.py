"""Staff pages, each declared once (like `@rx.page`): its route, title, permission, load events and menu
entry. portal.py adds every declared page, the admin menu lists the declared entries, and the admin
layout takes the page's title and permission from its declaration."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import reflex as rx

from portal.domain.staff import roles


@dataclass
class StaffPage:
    route: str
    title: str
    permission: str
    on_load: tuple[Any, ...]
    menu: str | None  # the admin menu's label (None: reached from another page)
    also_at: tuple[str, ...]  # further routes that show the same page ('/admin')
    component: Callable[[], rx.Component] = field(repr=False, default=lambda: rx.fragment())


PAGES: list[StaffPage] = []
_building: list[StaffPage] = []


def staff_page(
    route: str,
    title: str,
    *,
    on_load: Sequence[Any] = (),
    permission: str = roles.VIEW,
    menu: str | None = None,
    also_at: Sequence[str] = (),
) -> Callable[[Callable[[], rx.Component]], Callable[[], rx.Component]]:
    """Declare a staff page. `permission`: what its body needs (staff without it see 'Your role does not
    include this page'; anyone but staff sees the not-found page); `menu`: its entry in the admin menu."""
    if permission not in roles.MATRIX:
        raise ValueError(f"unknown permission {permission!r} for {route}")

    def declare(build: Callable[[], rx.Component]) -> Callable[[], rx.Component]:
        declared = StaffPage(route, title, permission, tuple(on_load), menu, tuple(also_at))

        @functools.wraps(build)
        def page() -> rx.Component:
            _building.append(declared)
            try:
                return build()
            finally:
                _building.pop()

        declared.component = page
        if any(p.route == route for p in PAGES):
            raise ValueError(f"{route} is declared twice")
        PAGES.append(declared)
        return page

    return declare


def building() -> StaffPage:
    """The declaration of the staff page being built (for the layout's title and permission)."""
    if not _building:
        raise RuntimeError("admin_layout is called outside a declared staff page (@staff_page)")
    return _building[-1]


def menu_entries() -> list[StaffPage]:
    return [p for p in PAGES if p.menu]
