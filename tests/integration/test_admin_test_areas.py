"""The highlight-area editor's service (portal/services/admin/areas.py) on a migrated database,
SQLite and PostgreSQL: the JSON import's rules for selectedAreas, nothing written on a problem, an
audit row with before/after, and every cell of the permission matrix."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from sqlmodel import Session

from portal.domain.definition import validate_test_definition
from portal.domain.staff import roles
from portal.models import AuditEntry, Test
from portal.services.admin import areas as test_areas
from portal.services.admin.guard import NOT_ALLOWED, StaffRefused
from portal.services.errors import ServiceError
from tests.integration.test_admin_services import _actors, audit_rows, build_world, count, fresh
from tests.support.factories import unique_email

BLOCKS = {
    "first-impression": [{"key": "fi", "type": "short-text", "text": "What is this page about?", "isRequired": True}]
}
GOOD = [
    {
        "from": [5, 4],
        "to": [95, 31],
        "questions": [
            {"key": "hero", "type": "long-text", "text": "What does it promise?", "isRequired": True, "isLimited": True}
        ],
    },
    {
        "from": [4.5, 38.25],
        "to": [96, 61],
        "questions": [{"key": "cta", "type": "short-text", "text": "Would you click?"}],
    },
]


def a_highlight(session: Session, **kwargs: Any) -> Test:
    values = {
        "name": f"Highlight {unique_email()}",
        "status": "draft",
        "product_type": "landing-page",
        "url": "https://example.com/",
        "screenshot_url": "/demo/landing.png",
        "questions": BLOCKS,
        "selected_areas": [],
        **kwargs,
    }
    test = Test(**values)
    session.add(test)
    session.commit()
    return test


def as_import(areas: Any) -> list[tuple[str, str]]:
    """The problems the JSON import reports for these areas on the same test."""
    doc = {
        "name": "x",
        "productType": "landing-page",
        "url": "https://example.com/",
        "screenshotUrl": "/demo/landing.png",
        "questions": BLOCKS,
        "selectedAreas": areas,
    }
    return [(e.path, e.message) for e in validate_test_definition(doc)]


def with_question(q: dict[str, Any], **area: Any) -> list[dict[str, Any]]:
    return [{"from": [10, 10], "to": [50, 50], "questions": [q], **area}]


TEXT_Q = {"key": "q", "type": "short-text", "text": "Why?"}
BAD = {
    "corner not a pair": with_question(TEXT_Q, **{"from": [10]}),
    "corner not numbers": with_question(TEXT_Q, **{"from": ["10", 10]}),
    "corner NaN": with_question(TEXT_Q, **{"from": [float("nan"), 10]}),
    "from equals to": with_question(TEXT_Q, **{"from": [50, 50], "to": [50, 50]}),
    "from after to": with_question(TEXT_Q, **{"from": [60, 10], "to": [50, 50]}),
    "above 100": with_question(TEXT_Q, to=[101, 50]),
    "below 0": with_question(TEXT_Q, **{"from": [-1, 10]}),
    "no questions": [{"from": [10, 10], "to": [50, 50], "questions": []}],
    "question without text": with_question({"key": "q", "type": "short-text"}),
    "unknown question type": with_question({"key": "q", "type": "essay", "text": "Why?"}),
    "key used by a block": with_question({"key": "fi", "type": "short-text", "text": "Why?"}),
    "unknown area field": with_question(TEXT_Q, colour="red"),
    "not a list": {"from": [1, 1]},
    "area not an object": ["area"],
}


@pytest.mark.parametrize("areas", list(BAD.values()), ids=list(BAD))
def test_save_refuses_what_the_import_refuses_with_every_path_and_writes_nothing(session, areas):
    staff = build_world(session).staff[roles.TEAM_MANAGER]
    test = a_highlight(session, selected_areas=copy.deepcopy(GOOD))
    audits = count(session, AuditEntry)
    with pytest.raises(test_areas.AreasRefused) as refused:
        test_areas.save_areas(session=session, actor_id=staff, test_id=test.id, areas=areas)
    found = [(p.path, p.message) for p in refused.value.problems]
    assert found and found == as_import(areas)  # the same problems, paths and words as the import
    assert all(path.startswith("selectedAreas") for path, _ in found)
    assert "Nothing was saved" in refused.value.message
    session.rollback()
    assert fresh(session, Test, test.id).selected_areas == GOOD
    assert count(session, AuditEntry) == audits


def test_every_problem_is_listed_not_only_the_first(session):
    staff = build_world(session).staff[roles.SUPER_ADMIN]
    test = a_highlight(session)
    areas = [
        *with_question({"key": "q", "type": "short-text"}, to=[101, 50]),
        {"from": [70, 70], "to": [60, 80], "questions": []},
    ]
    with pytest.raises(test_areas.AreasRefused) as refused:
        test_areas.save_areas(session=session, actor_id=staff, test_id=test.id, areas=areas)
    paths = [p.path for p in refused.value.problems]
    assert paths == [
        "selectedAreas[0].to",
        "selectedAreas[0].questions[0].text",
        "selectedAreas[1]",
        "selectedAreas[1].questions",
    ]


def test_save_stores_the_areas_and_audits_before_and_after(session):
    staff = build_world(session).staff[roles.TEAM_OWNER]
    test = a_highlight(session, selected_areas=[GOOD[0]])
    assert as_import(GOOD) == []
    stored = test_areas.save_areas(session=session, actor_id=staff, test_id=test.id, areas=GOOD)
    assert stored == GOOD
    assert fresh(session, Test, test.id).selected_areas == GOOD
    row = audit_rows(session, "test.areas")[-1]
    assert (row.actor_id, row.target_type, row.target_id) == (staff, "test", str(test.id))
    assert row.before == {"selectedAreas": [GOOD[0]]} and row.after == {"selectedAreas": GOOD}
    # Saving the same areas again changes nothing and records nothing.
    test_areas.save_areas(session=session, actor_id=staff, test_id=test.id, areas=GOOD)
    assert len(audit_rows(session, "test.areas")) == 1


def test_removing_every_area_is_refused_when_no_question_would_be_left(session):
    staff = build_world(session).staff[roles.SUPER_ADMIN]
    test = a_highlight(session, questions={}, selected_areas=copy.deepcopy(GOOD))
    with pytest.raises(test_areas.AreasRefused) as refused:
        test_areas.save_areas(session=session, actor_id=staff, test_id=test.id, areas=[])
    assert [p.path for p in refused.value.problems] == ["questions"]
    session.rollback()
    assert fresh(session, Test, test.id).selected_areas == GOOD


def test_pricing_areas_are_on_the_pricing_screenshot(session):
    staff = build_world(session).staff[roles.SUPER_ADMIN]
    test = a_highlight(
        session,
        product_type="pricing-test",
        pricing_url="https://example.com/pricing",
        pricing_screenshot_url="/demo/pricing.png",
    )
    loaded = test_areas.load_areas(session=session, actor_id=staff, test_id=test.id)
    assert loaded["screenshot"] == "/demo/pricing.png"
    assert test_areas.save_areas(session=session, actor_id=staff, test_id=test.id, areas=GOOD) == GOOD


@pytest.mark.parametrize("test_id", [None, "abc", -1, 987_654_321, True, [1]])
def test_unknown_tests_and_tests_without_areas_are_refused(session, test_id):
    world = build_world(session)
    staff = world.staff[roles.SUPER_ADMIN]
    with pytest.raises(ServiceError, match="does not exist"):
        test_areas.save_areas(session=session, actor_id=staff, test_id=test_id, areas=GOOD)
    with pytest.raises(ServiceError, match="no highlight areas"):  # build_world's tests are surveys
        test_areas.load_areas(session=session, actor_id=staff, test_id=world.test)
    with pytest.raises(ServiceError, match="no highlight areas"):
        test_areas.save_areas(session=session, actor_id=staff, test_id=world.test, areas=GOOD)


CALLS = [
    ("test_areas.load_areas", roles.VIEW, lambda s, a, t: test_areas.load_areas(session=s, actor_id=a, test_id=t)),
    (
        "test_areas.save_areas",
        roles.MANAGE_TESTS,
        lambda s, a, t: test_areas.save_areas(session=s, actor_id=a, test_id=t, areas=GOOD),
    ),
]


@pytest.mark.parametrize("name,permission,call", CALLS, ids=[c[0] for c in CALLS])
def test_every_cell_of_the_matrix_for_every_staff_function(session, name, permission, call):
    world = build_world(session)
    test = a_highlight(session)
    audits = count(session, AuditEntry)
    cases = [*_actors(world), *((role, world.staff[role], role in roles.MATRIX[permission]) for role in roles.ROLES)]
    for who, actor, works in cases:
        session.rollback()
        if works:
            assert call(session, actor, test.id) is not None, (name, who)
        else:
            with pytest.raises(StaffRefused) as refused:
                call(session, actor, test.id)
            assert refused.value.message == NOT_ALLOWED
            assert count(session, AuditEntry) == audits, (name, who)
            assert fresh(session, Test, test.id).selected_areas == [], (name, who)
    assert [who for who, *_ in cases[-3:]] == list(roles.ROLES)
