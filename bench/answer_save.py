"""The answer event's database part alone: `survey_taking.save` against a two-statement floor.

Runs, interleaved, on a fresh bench database (the one bench/survey_load.py makes):
- service: `survey_taking.save` + commit in its own session, as `portal.db.run` does (resolve the
  user from the cookie token, then `review_sessions.save_draft`), printing each SQL statement;
- floor: the same write hand-written as two statements (the token's live session joined to its
  account; one UPDATE of the active, unexpired review session by id and account) + commit.
The floor skips the draft checks (size, unknown keys), which are Python over the cached survey.

    .venv/bin/python bench/answer_save.py --backend sqlite --rounds 400
    .venv/bin/python bench/answer_save.py --backend postgres
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

LOOKUP = (
    "SELECT s.account_id FROM auth_session s JOIN account a ON a.id = s.account_id "
    "WHERE s.token_hash = :h AND s.revoked_at IS NULL AND s.idle_expires_at > :now "
    "AND s.absolute_expires_at > :now AND a.removed_at IS NULL"
)
UPDATE = (
    "UPDATE review_session SET draft_answers = :a, draft_position = :p, updated_at = :now "
    "WHERE id = :sid AND account_id = :acc AND status = 'active' AND deadline_at > :now"
)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--rounds", type=int, default=400)
    args = parser.parse_args()

    from sqlalchemy import event, text
    from sqlmodel import Session

    import bench.survey_load as load
    from portal.db import make_engine
    from portal.models._base import utcnow
    from portal.services import survey_taking
    from portal.services.tokens import hash_token

    url = load.prepare_database(args.backend, Path(tempfile.mkdtemp(prefix="answer-save-")))
    test_id = load.import_bench_survey(url)
    token = load.make_participants(url, test_id, 1)[0].split("=", 1)[1]
    engine = make_engine(url)
    with Session(engine, expire_on_commit=False) as session:
        session_id = survey_taking.start(session=session, token=token, test_id=test_id).id
        session.commit()
    answers = load.answer_objects()

    statements: dict[str, int] = {}
    counting = [False]

    @event.listens_for(engine, "before_cursor_execute")
    def count(_conn, _cursor, statement, *_args):
        if counting[0]:
            key = " ".join(statement.split())[:100]
            statements[key] = statements.get(key, 0) + 1

    def draft(i: int) -> dict:
        return {**answers, "job-title": {**answers["job-title"], "value": f"title {i}"}}

    def service(i: int) -> None:
        with Session(engine, expire_on_commit=False) as session:
            survey_taking.save(session=session, token=token, test_id=test_id, answers=draft(i),
                               position={"step": "questions", "index": 10, "navigationHistory": list(range(11)), "rev": i})
            session.commit()

    lookup, update = text(LOOKUP), text(UPDATE)

    def floor(i: int) -> None:
        now = utcnow()
        with Session(engine, expire_on_commit=False) as session:
            account_id = session.execute(lookup, {"h": hash_token(token), "now": now}).scalar_one()
            updated = session.execute(update, {
                "a": json.dumps(draft(i)), "p": json.dumps({"step": "questions", "index": 10, "rev": i}),
                "now": now, "sid": session_id, "acc": account_id,
            }).rowcount
            assert updated == 1
            session.commit()

    samples: dict[str, list[float]] = {"service": [], "floor": []}
    for i in range(args.rounds + 50):
        for name, fn in (("service", service), ("floor", floor)):
            counting[0] = name == "service" and i == args.rounds + 49
            started = time.perf_counter()
            fn(i)
            if i >= 50:  # warm-up left out
                samples[name].append((time.perf_counter() - started) * 1000)
    counting[0] = False

    print(f"one answer's save on {args.backend}, {args.rounds} rounds each (ms)")
    print(f"{'':<10}{'p50':>8}{'p95':>8}")
    for name, values in samples.items():
        print(f"{name:<10}{statistics.median(values):>8.2f}{statistics.quantiles(values, n=20)[18]:>8.2f}")
    print(f"ratio service/floor (p50): {statistics.median(samples['service']) / statistics.median(samples['floor']):.1f}")
    print("statements of one service save (+ commit):")
    for statement, n in statements.items():
        print(f"  {n} x {statement}")


if __name__ == "__main__":
    main()
