"""The drawing surface of the highlight-area editor: assets/area_editor.jsx wrapped as a Reflex component.

Why not Annotorious (docs/decisions.md, 'Highlight-area editor'): it keeps shapes in image pixels,
has no keyboard move or resize, and its shapes are not focusable; a small local component that keeps
percent boxes and draws them exactly as the participant's split view does is less code to keep right.
"""

from __future__ import annotations

from typing import Any

import reflex as rx
from reflex_base.event import passthrough_event_spec


class AreaEditor(rx.Component):
    """Props: the screenshot, the boxes ({left, top, width, height} in percent), the selected index,
    the keyboard step and the smallest size (percent). Events: a drawn area [x1, y1, x2, y2], an area
    moved or resized (index, [x1, y1, x2, y2]), an area selected (index)."""

    library = "$/public/area_editor.jsx"
    tag = "AreaEditor"

    src: rx.Var[str]
    alt: rx.Var[str]
    boxes: rx.Var[list[dict[str, Any]]]
    selected: rx.Var[int]
    step: rx.Var[float]
    min_size: rx.Var[float]

    # Reflex's declaration of an event prop: read at run time, with a call in the annotation mypy cannot read.
    on_area_create: rx.EventHandler[passthrough_event_spec(list)]  # type: ignore[type-arg, valid-type]
    on_area_change: rx.EventHandler[passthrough_event_spec(int, list)]  # type: ignore[type-arg, valid-type]
    on_area_select: rx.EventHandler[passthrough_event_spec(int)]  # type: ignore[type-arg, valid-type]


area_editor = AreaEditor.create
