"""/admin/tests/[test_id]/areas: the highlight-area editor.

The tab keeps a working copy of the test's areas; each handler changes it with the rules of
portal/domain/highlight_areas.py and shows the import's messages live; `save` sends the copy to the
service, which checks it again on the server with the same rules (and the caller's role) before
writing anything. Every handler takes any argument from any browser: indexes, boxes and texts are
read defensively and anything that does not fit is refused with a message and no change.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import reflex as rx

from portal import db
from portal.domain import highlight_areas as rules
from portal.domain.ids import whole_number
from portal.services.admin import areas as service
from portal.services.errors import ServiceError
from portal.states.admin.guard import caller_id, staff_load
from portal.states.browser import toast
from portal.states.route_params import route_arg
from portal.states.tab_owner import TabOwned


@dataclasses.dataclass
class QuestionRow:
    index: int
    key: str
    type: str
    type_label: str
    text: str
    required: bool
    text_type: bool  # a long or short text question: its type can be switched here
    has_text: bool  # its wording is `text` (editable types may use textElements instead)


@dataclasses.dataclass
class AreaRow:
    index: int
    number: int
    place: str
    questions: list[QuestionRow]


def _index(value: Any, size: int) -> int | None:
    """A list index sent by the browser (a whole number in range), else None."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        return None
    number = whole_number(value) if isinstance(value, str) else value
    return number if number is not None and 0 <= number < size else None


def _question_row(i: int, q: Any) -> QuestionRow:
    q = q if isinstance(q, dict) else {}
    kind = str(q.get("type") or "")
    return QuestionRow(
        index=i,
        key=str(q.get("key") or ""),
        type=kind,
        type_label=rules.EDITOR_TYPES.get(kind, kind.replace("-", " ").capitalize()),
        text=got if isinstance(got := q.get("text"), str) else "",
        required=q.get("isRequired") is True,
        text_type=kind in rules.EDITOR_TYPES,
        has_text="textElements" not in q or isinstance(q.get("text"), str),
    )


class AreasEditorState(TabOwned, rx.State):
    loaded: bool = False
    load_error: str = ""
    test_name: str = ""
    status: str = ""
    screenshot: str = ""
    areas: list[dict[str, Any]] = []
    selected: int = -1
    problems: list[dict[str, str]] = []
    dirty: bool = False
    saving: bool = False
    # The areas change a test in use: the warning staff confirm to save them as a new version.
    version_warning: str = ""
    version_in_use: int = 0

    _test_id: int = 0
    _product_type: str = ""
    _blocks: dict[str, Any] = {}
    _pricing_url: str = ""
    _pricing_screenshot_url: str = ""

    # --- what the page shows ---------------------------------------------------------------------
    @rx.var(cache=True)
    def boxes(self) -> list[dict[str, Any]]:
        return rules.boxes(self.areas)

    @rx.var(cache=True)
    def rows(self) -> list[AreaRow]:
        found = []
        for i, area in enumerate(self.areas):
            box = rules.boxes([area])[0]
            right, bottom = box["left"] + box["width"], box["top"] + box["height"]
            place = f"From {box['left']}%, {box['top']}% to {round(right, 2)}%, {round(bottom, 2)}%"
            questions = got if isinstance(got := area.get("questions"), list) else []
            found.append(
                AreaRow(
                    index=i, number=i + 1, place=place, questions=[_question_row(j, q) for j, q in enumerate(questions)]
                )
            )
        return found

    # --- loading ---------------------------------------------------------------------------------
    @rx.event
    async def load(self):
        """on_load: the test's areas (staff only; anyone else keeps an empty editor)."""
        await self._load()

    async def _load(self) -> None:
        self.loaded, self.load_error, self.areas, self.selected, self.problems, self.dirty = (
            False,
            "",
            [],
            -1,
            [],
            False,
        )
        try:
            found = await staff_load(self, service.load_areas, test_id=route_arg(self, "test_id"))
        except ServiceError as refused:
            self.load_error = refused.message
            return
        if found is None:  # not staff
            return
        self._test_id, self._product_type, self._blocks = found["id"], found["product_type"], found["blocks"]
        self._pricing_url, self._pricing_screenshot_url = (
            found["pricing_url"] or "",
            found["pricing_screenshot_url"] or "",
        )
        self.test_name, self.status, self.screenshot = found["name"], found["status"], found["screenshot"]
        self.areas = found["areas"]
        self.loaded = True
        self._check()

    # --- editing the working copy ----------------------------------------------------------------
    def _check(self) -> None:
        found = rules.problems(
            self.areas,
            product_type=self._product_type,
            blocks=self._blocks,
            pricing_url=self._pricing_url or None,
            pricing_screenshot_url=self._pricing_screenshot_url or None,
        )
        self.problems = [{"path": p.path, "message": p.message} for p in found]

    def _edited(self, areas: list[dict[str, Any]]) -> None:
        self.areas = areas
        self.dirty = True
        self._check()

    def _copy(self) -> list[dict[str, Any]]:
        return copy.deepcopy(self.areas)

    def _question(self, area: Any, question: Any) -> tuple[int, int, list[dict[str, Any]]] | None:
        """(area index, question index, a copy of the areas) when both indexes exist, else None."""
        a = _index(area, len(self.areas)) if self.loaded else None
        if a is None:
            return None
        questions = self.areas[a].get("questions")
        q = _index(question, len(questions) if isinstance(questions, list) else 0)
        return None if q is None else (a, q, self._copy())

    @rx.event
    def create_area(self, box: Any):
        """A box drawn with the mouse: [x1, y1, x2, y2] in percent."""
        if not self.loaded:
            return None
        if len(self.areas) >= rules.MAX_AREAS:
            return toast("error", rules.TOO_MANY_AREAS)
        cleaned = rules.clean_box(box)
        if cleaned is None:
            return toast("error", rules.NOT_A_BOX)
        self._edited([*self._copy(), rules.new_area(cleaned)])
        self.selected = len(self.areas) - 1
        return None

    @rx.event
    def change_area(self, index: Any, box: Any):
        """An area moved or resized (mouse or keyboard): its new box [x1, y1, x2, y2] in percent."""
        i = _index(index, len(self.areas)) if self.loaded else None
        cleaned = rules.clean_box(box)
        if i is None or cleaned is None:
            return toast("error", rules.NOT_A_BOX) if self.loaded else None
        areas = self._copy()
        areas[i] = rules.with_box(areas[i], cleaned)
        self.selected = i
        self._edited(areas)
        return None

    @rx.event
    def select_area(self, index: Any):
        i = _index(index, len(self.areas))
        self.selected = -1 if i is None else i

    @rx.event
    def delete_area(self, index: Any):
        i = _index(index, len(self.areas)) if self.loaded else None
        if i is None:
            return
        areas = self._copy()
        del areas[i]
        self.selected = min(self.selected, len(areas) - 1) if self.selected != i else -1
        self._edited(areas)

    @rx.event
    def move_area(self, index: Any, offset: Any):
        """Reorder: offset -1 moves the area up (earlier), +1 down; the participant sees them in this order."""
        i = _index(index, len(self.areas)) if self.loaded else None
        if i is None or offset not in (-1, 1) or isinstance(offset, bool):
            return
        j = i + offset
        if not 0 <= j < len(self.areas):
            return
        areas = self._copy()
        areas[i], areas[j] = areas[j], areas[i]
        self.selected = j
        self._edited(areas)

    @rx.event
    def add_question(self, index: Any):
        i = _index(index, len(self.areas)) if self.loaded else None
        if i is None:
            return None
        areas = self._copy()
        questions = got if isinstance(got := areas[i].get("questions"), list) else []
        if len(questions) >= rules.MAX_QUESTIONS:
            return toast("error", rules.TOO_MANY_QUESTIONS)
        key = rules.fresh_key(rules.question_keys(self._blocks, areas), i + 1)
        areas[i]["questions"] = [*questions, rules.new_question(key)]
        self._edited(areas)
        return None

    @rx.event
    def set_question_text(self, area: Any, question: Any, text: Any):
        found = self._question(area, question)
        if found is None or not isinstance(text, str):
            return
        a, q, areas = found
        areas[a]["questions"][q] = {**areas[a]["questions"][q], "text": text[: rules.MAX_TEXT]}
        self._edited(areas)

    @rx.event
    def set_question_type(self, area: Any, question: Any, kind: Any):
        found = self._question(area, question)
        if found is None or not isinstance(kind, str) or kind not in rules.EDITOR_TYPES:
            return
        a, q, areas = found
        current = areas[a]["questions"][q]
        if not isinstance(current.get("type"), str) or current.get("type") not in rules.EDITOR_TYPES:
            return  # other types keep their own fields; they are changed by importing the test
        areas[a]["questions"][q] = rules.with_type(current, kind)
        self._edited(areas)

    @rx.event
    def set_question_required(self, area: Any, question: Any, required: Any):
        found = self._question(area, question)
        if found is None or not isinstance(required, bool):
            return
        a, q, areas = found
        areas[a]["questions"][q] = {**areas[a]["questions"][q], "isRequired": required}
        self._edited(areas)

    @rx.event
    def remove_question(self, area: Any, question: Any):
        found = self._question(area, question)
        if found is None:
            return
        a, q, areas = found
        del areas[a]["questions"][q]
        self._edited(areas)

    # --- saving ----------------------------------------------------------------------------------
    @rx.event
    async def revert(self):
        """Undo every unsaved change: the areas as stored."""
        await self._load()

    @rx.event
    async def save(self):
        """The server checks the areas again with the import's rules and the caller's role; nothing
        is written when anything is wrong, and every problem is listed with its path."""
        return await self._save(None)

    @rx.event
    async def save_new_version(self):
        """Staff confirmed the warning: the areas are saved as the next version of the test in use."""
        confirm, self.version_warning, self.version_in_use = self.version_in_use, "", 0
        return await self._save(confirm or None)

    @rx.event
    def keep_editing(self):
        self.version_warning, self.version_in_use = "", 0

    async def _save(self, confirm: int | None) -> Any:
        if not self.loaded or self.saving:
            return None
        self.saving = True
        try:
            stored = await db.run(
                service.save_areas,
                actor_id=await caller_id(self),
                test_id=self._test_id,
                areas=self._copy(),
                confirm=confirm,
            )
        except service.NewVersion as in_use:
            self.version_warning, self.version_in_use = in_use.message, in_use.version
            return None
        except service.AreasRefused as refused:
            self.problems = [{"path": p.path, "message": p.message} for p in refused.problems]
            return toast("error", refused.message)
        finally:
            self.saving = False
        self.areas, self.dirty = stored, False
        self._check()
        return toast("success", service.SAVED)
