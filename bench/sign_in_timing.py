"""Sign-in answers alike for an unknown e-mail and a wrong password: time both.

Runs the sign-in service on a scratch SQLite database migrated with Alembic and
prints p50/p95 for: unknown e-mail, wrong password, right password, and the ratio
unknown/wrong. Throttling is raised out of the way for the measurement.

    .venv/bin/python bench/sign_in_timing.py [--rounds 30]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LOGIN_MAX_FAILURES_PER_ACCOUNT", "100000")
os.environ.setdefault("LOGIN_MAX_FAILURES_PER_IP", "100000")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()

    from alembic.config import Config
    from sqlmodel import Session

    from alembic import command
    from portal.db import make_engine
    from portal.services.errors import SignInError
    from portal.services.sign_in import sign_in_with_password
    from tests.support.factories import make_participant

    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/bench.db"
        cfg = Config(str(ROOT / "alembic.ini"))
        cfg.set_main_option("sqlalchemy.url", url)
        cfg.attributes["configure_logging"] = False
        command.upgrade(cfg, "head")
        engine = make_engine(url)
        with Session(engine) as session:
            email = make_participant(session, password="Correct-Horse-42!").email

        def timed(login: str, password: str) -> float:
            with Session(engine) as session:
                start = time.perf_counter()
                try:
                    sign_in_with_password(session=session, email=login, password=password, ip_address="127.0.0.1")
                except SignInError:
                    pass
                elapsed = time.perf_counter() - start
                session.rollback()
                return elapsed * 1000

        cases = {
            "unknown e-mail": ("nobody@example.com", "Wrong-Password-1!"),
            "wrong password": (email, "Wrong-Password-1!"),
            "right password": (email, "Correct-Horse-42!"),
        }
        results = {name: [] for name in cases}
        for _ in range(args.rounds):  # interleaved, so drift hits every case alike
            for name, (login, password) in cases.items():
                results[name].append(timed(login, password))

    print(f"sign-in service, {args.rounds} rounds each (ms)")
    print(f"{'case':<16}{'p50':>10}{'p95':>10}")
    for name, samples in results.items():
        p95 = statistics.quantiles(samples, n=20)[18]
        print(f"{name:<16}{statistics.median(samples):>10.1f}{p95:>10.1f}")
    ratio = statistics.median(results["unknown e-mail"]) / statistics.median(results["wrong password"])
    print(f"ratio unknown/wrong (p50): {ratio:.2f}")


if __name__ == "__main__":
    main()
