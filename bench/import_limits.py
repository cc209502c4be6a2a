"""Time the staff test import's answer to hostile files (issue 32, item 4) beside a bare baseline.

    .venv/bin/python bench/import_limits.py               # 5 rounds of each case
    .venv/bin/python bench/import_limits.py --rounds 10

Cases, each through `services/admin/test_files.import_file` as a super-admin on a migrated SQLite file
(the whole service: the JSON reader's limits, the checker, the answer), one transaction per call:
- a 400 KB file of nested brackets (refused: nested too deeply);
- a 400 KB file of objects in objects;
- a 4.6 MB survey with 900,000 questions that are not objects (the first 100 problems and the count).
Baseline in the same run: `json.loads` of a flat JSON array of the same size as the 900,000-problem file
(what reading the file at all costs). Prints p50 / max in milliseconds and the size of the answer.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from alembic.config import Config  # noqa: E402
from sqlmodel import Session  # noqa: E402

from alembic import command  # noqa: E402
from portal.db import make_engine  # noqa: E402


def migrated(url: str) -> None:
    config = Config(str(ROOT / "alembic.ini"))
    config.set_main_option("sqlalchemy.url", url)
    config.attributes["configure_logging"] = False
    command.upgrade(config, "head")


def timed(call: Callable[[], object], rounds: int) -> tuple[list[float], object]:
    out, result = [], None
    for _ in range(rounds):
        start = time.perf_counter()
        result = call()
        out.append((time.perf_counter() - start) * 1000)
    return out, result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    from portal.services.admin import definition_files as test_files
    from portal.services.seeding import seed_reference
    from tests.support.factories import make_participant

    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{folder}/bench.db"
        migrated(url)
        engine = make_engine(url)
        with Session(engine, expire_on_commit=False) as session:
            seed_reference(session)
            admin = make_participant(session)
            admin.staff_role = "super-admin"
            session.add(admin)
            session.commit()
            admin_id = admin.id
        survey = json.loads((ROOT / "portal/data/demo_tests/01-survey.json").read_text())
        survey["survey"]["questions"] = [0] * 900_000
        many = json.dumps(survey, separators=(",", ":")).encode()
        cases = {
            "400 KB of nested brackets": b"[" * 200_000 + b"]" * 200_000,
            "400 KB of objects in objects": b'{"name":' * 50_000 + b"1" + b"}" * 50_000,
            f"900,000 problems ({len(many) / 1e6:.1f} MB)": many,
        }
        flat = json.dumps(list(range(len(many) // 8))).encode()[: len(many)]
        flat = flat[: flat.rfind(b",")] + b"]"

        def service(data: bytes) -> Callable[[], object]:
            def call() -> object:
                with Session(engine, expire_on_commit=False) as session:
                    result = test_files.import_file(session=session, actor_id=admin_id, data=data)
                    session.rollback()
                    return result

            return call

        print(f"{'case':45} {'p50 ms':>9} {'max ms':>9}  answer")
        base, _ = timed(lambda: json.loads(flat), args.rounds)
        print(
            f"{'baseline: json.loads of ' + f'{len(flat) / 1e6:.1f} MB (flat)':45} "
            f"{statistics.median(base):9.1f} {max(base):9.1f}"
        )
        for name, data in cases.items():
            times, result = timed(service(data), args.rounds)
            answer = sum(len(p) for p in result.problems)  # type: ignore[attr-defined]
            print(
                f"{name:45} {statistics.median(times):9.1f} {max(times):9.1f}  {len(result.problems)} lines, "  # type: ignore[attr-defined]
                f"{answer:,} characters; {result.problems[-1][:60]!r}"
            )  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
