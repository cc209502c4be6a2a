"""Icons that change with the state, without lucide's dynamic icon.

`rx.icon(rx.cond(flag, "a", "b"))` compiles to lucide's `DynamicIcon`, which loads the map of every
lucide icon name to its module (a 54 KB chunk, most of it unused) on the page that shows it. Two
static icons behind `rx.cond` render the same and load only those two icons.
"""

from __future__ import annotations

import reflex as rx


def icon_switch(condition: rx.Var, when_true: str, when_false: str, **props) -> rx.Component:
    """`when_true`'s icon while `condition` holds, `when_false`'s otherwise (same props for both)."""
    return rx.cond(condition, rx.icon(when_true, **props), rx.icon(when_false, **props))
