"""Two transactions at once: the second one starts while the first is still open."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from sqlmodel import Session

from portal.db import make_engine


def second_waits_for_first(
    db_url: str, first: Callable[[Session], Any], second: Callable[[Session], Any]
) -> tuple[Any, list[Any]]:
    """Run `first` in one transaction, start `second` in another thread and transaction while the
    first is still uncommitted (so it waits on a row lock or a unique index), then commit the first.
    Returns (first's result, [second's result] once it finished)."""
    engine = make_engine(db_url)
    results: list[Any] = []
    with Session(engine, expire_on_commit=False) as s1, Session(engine, expire_on_commit=False) as s2:
        first_result = first(s1)

        def other() -> None:
            results.append(second(s2))
            s2.commit()

        thread = threading.Thread(target=other)
        thread.start()
        thread.join(0.5)
        s1.commit()
        thread.join(10)
    engine.dispose()
    return first_result, results


def all_at_once(db_url: str, calls: list[Callable[[Session], Any]], *, timeout: float = 120) -> list[Any]:
    """Run every call in a thread of its own, each in its own session and transaction, released together
    by a barrier (as many staff tabs or workers acting at the same instant). A call's transaction commits
    when it returns and rolls back when it raises. Returns, in the order of `calls`, what each returned
    or the exception it raised."""
    engine = make_engine(db_url)
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(n: int) -> None:
        with Session(engine, expire_on_commit=False) as session:
            try:
                barrier.wait(timeout=timeout)
                results[n] = calls[n](session)
                session.commit()
            except BaseException as err:  # noqa: BLE001 - handed back to the test
                session.rollback()
                results[n] = err

    threads = [threading.Thread(target=run, args=(n,)) for n in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)
    engine.dispose()
    assert not any(thread.is_alive() for thread in threads), "a concurrent call did not finish"
    return results
