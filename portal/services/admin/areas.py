"""Staff: a highlight (or pricing) test's areas on /admin/tests/{id}/areas: read them, and save them
with the JSON import's rules (portal/domain/highlight_areas.py runs the import's reader), every
problem named by its path, nothing written when there is one, and an audit row with before/after."""

from __future__ import annotations

import copy
from typing import Any

from sqlmodel import Session

from portal.domain import highlight_areas as rules
from portal.domain.definition_checks import DefinitionError
from portal.domain.staff import roles
from portal.domain.staff.editing import STATUS_LABELS
from portal.models import Test
from portal.models._base import utcnow
from portal.services import row_locks
from portal.services.admin import audit, versions
from portal.services.admin.guard import Caller, require_staff
from portal.services.admin.ids import one_id
from portal.services.errors import ServiceError
from portal.services.taking import definitions

NOT_FOUND = "This test does not exist."
SAVED = "Highlight areas saved."


class NewVersion(ServiceError):
    """The areas change a test in use: saved only with confirm=`version` (the warning says why)."""

    def __init__(self, message: str, version: int):
        super().__init__(message)
        self.version = version


class AreasRefused(ServiceError):
    """The areas break the import's rules: `problems` names each one by its path."""

    def __init__(self, problems: list[DefinitionError]):
        count = len(problems)
        super().__init__(f"Nothing was saved: {count} problem{'s' if count != 1 else ''} to fix.")
        self.problems = list(problems)


def _test(session: Session, test_id: Any, *, lock: bool = False) -> Test:
    number = one_id(test_id, NOT_FOUND)
    test = row_locks.locked(session, Test, number) if lock else session.get(Test, number)
    if test is None:
        raise ServiceError(NOT_FOUND)
    if not rules.has_areas(test.product_type):
        raise ServiceError(rules.NO_AREAS)
    return test


def _areas_of(test: Test) -> list[dict[str, Any]]:
    return copy.deepcopy(test.selected_areas) if isinstance(test.selected_areas, list) else []


def load_areas(session: Session, *, actor_id: Caller, test_id: Any) -> dict[str, Any]:
    """What the editor needs: the test, the screenshot the areas are on, its areas, and its blocks
    (their question keys count for uniqueness, their questions for 'at least one question')."""
    require_staff(session, actor_id, roles.VIEW)
    test = _test(session, test_id)
    return {
        "id": test.id,
        "name": test.name,
        "product_type": test.product_type,
        "status": STATUS_LABELS.get(test.status, test.status),
        "screenshot": rules.area_screenshot(test.product_type, test.screenshot_url, test.pricing_screenshot_url),
        "areas": _areas_of(test),
        "blocks": copy.deepcopy(test.questions) if isinstance(test.questions, dict) else {},
        "pricing_url": test.pricing_url,
        "pricing_screenshot_url": test.pricing_screenshot_url,
    }


def save_areas(
    session: Session, *, actor_id: Caller, test_id: Any, areas: Any, confirm: Any = None
) -> list[dict[str, Any]]:
    """Replace the test's areas; AreasRefused (nothing written) when the import would refuse them, and
    NewVersion when the test is in use and staff have not confirmed that this makes a new version."""
    staff = require_staff(session, actor_id, roles.MANAGE_TESTS)
    test = _test(session, test_id, lock=True)
    found = rules.problems(
        areas,
        product_type=test.product_type,
        blocks=test.questions,
        pricing_url=test.pricing_url,
        pricing_screenshot_url=test.pricing_screenshot_url,
    )
    if found:
        session.rollback()
        raise AreasRefused(found)
    before = _areas_of(test)
    after = copy.deepcopy(areas)
    warning = versions.check_change(session, test, {"selected_areas": after}, confirm)
    if warning is not None:
        session.rollback()
        raise NewVersion(warning.message, warning.version)
    if after != before:
        versions.mark(session, staff.account_id, "areas")
        test.selected_areas = after
        test.updated_at = utcnow()
        session.add(test)
        audit.record(session, staff, "test.areas", "test", test.id, {"selectedAreas": before}, {"selectedAreas": after})
    session.commit()
    # This worker's copy of the definition is refreshed now (other workers' within CACHE_SECONDS).
    definitions.load_definition(session=session, test_id=test.id)
    return copy.deepcopy(after)
