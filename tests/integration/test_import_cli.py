"""Importing tests: the service (upsert by name, qualifications) and `python -m portal.cli import-test`."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session, select

from portal.models import Qualification, Test, TestQualification
from portal.services.definition_import import TestDefinitionError, import_test
from portal.services.seeding import seed_reference

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "portal" / "data" / "demo_tests"


def definition(name: str) -> dict[str, Any]:
    return json.loads((DEMO / name).read_text())


def qualification_names(session: Session, test: Test) -> set[str]:
    return set(
        session.exec(
            select(Qualification.name).join(TestQualification).where(TestQualification.test_id == test.id)
        ).all()
    )


def test_import_creates_then_updates_by_name(session: Session) -> None:
    data = definition("02-landing-page.json")
    test = import_test(session, data)
    session.commit()
    first_id, first_updated = test.id, test.updated_at
    assert (test.product_type, test.screenshot_url, test.session_seconds) == ("landing-page", "/demo/landing.png", 900)

    again = import_test(session, copy.deepcopy(data))
    session.commit()
    assert (again.id, again.updated_at) == (first_id, first_updated)  # unchanged: nothing written

    data["payoutCents"] = 4200
    changed = import_test(session, data)
    session.commit()
    assert changed.id == first_id and changed.payout_cents == 4200
    assert len(session.exec(select(Test)).all()) == 1


def test_import_links_and_unlinks_qualifications(session: Session) -> None:
    seed_reference(session)
    data = definition("08-public-qualification.json")
    test = import_test(session, data)
    session.commit()
    assert qualification_names(session, test) == {"Software developers (public)"}

    data["qualifications"] = ["SaaS purchase decision makers", "Finance and accounting leaders"]
    import_test(session, data)
    session.commit()
    assert qualification_names(session, test) == {"SaaS purchase decision makers", "Finance and accounting leaders"}


def test_unknown_qualification_is_refused_and_nothing_is_written(session: Session) -> None:
    seed_reference(session)
    data = definition("08-public-qualification.json")
    data["qualifications"] = ["Software developers (public)", "Astronauts"]
    with pytest.raises(TestDefinitionError) as raised:
        import_test(session, data)
    assert raised.value.message == "qualifications[1]: unknown qualification 'Astronauts'"
    session.rollback()
    assert session.exec(select(Test)).all() == []


def run_cli(db_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DATABASE_URL": db_url}
    return subprocess.run(
        [sys.executable, "-m", "portal.cli", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_cli_imports_a_valid_file(db_url: str, session: Session) -> None:
    result = run_cli(db_url, "import-test", str(DEMO / "06-video.json"))
    assert result.returncode == 0, result.stderr
    test = session.exec(select(Test)).one()
    assert result.stdout.strip() == f"Imported test #{test.id}: Demo: Video test - Onboarding walkthrough"
    assert test.video_recorder_url == "https://recorder.example.com/record"


def test_cli_rejects_an_invalid_file_naming_the_field(db_url: str, session: Session, tmp_path: Path) -> None:
    data = definition("01-survey.json")
    data["survey"]["questions"][0]["options"] = data["survey"]["questions"][0]["options"][:1]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    result = run_cli(db_url, "import-test", str(bad))
    assert result.returncode == 2
    assert "survey.questions[0].options: a single-choice question needs at least 2 options" in result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""
    assert session.exec(select(Test)).all() == []


def test_cli_reports_broken_json_and_missing_files(db_url: str, tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"name": "x",\n  productType: "survey"}')
    result = run_cli(db_url, "import-test", str(broken))
    assert result.returncode == 2
    assert f"{broken} is not valid JSON: Expecting property name enclosed in double quotes at line 2" in result.stderr
    missing = run_cli(db_url, "import-test", str(tmp_path / "nope.json"))
    assert missing.returncode == 2 and "no such file" in missing.stderr
    assert "Traceback" not in result.stderr + missing.stderr
