"""Two transactions at once: the second one starts while the first is still open."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from sqlmodel import Session

from portal.db import make_engine


def second_waits_for_first(db_url: str, first: Callable[[Session], Any], second: Callable[[Session], Any]) -> tuple[Any, list[Any]]:
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
