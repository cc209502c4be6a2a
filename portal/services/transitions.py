"""Changes of state that happen exactly once: a write that names the state it expects.

`move(session, Model, *conditions, values=...)` runs one statement,

    UPDATE <table> SET <values> WHERE <conditions> RETURNING id

whose conditions name the state the rows must still be in (`Reward.status == "PENDING"`), and answers the
ids it changed: what this transaction moved, and nothing another one moved first. On PostgreSQL a
concurrent transaction's UPDATE of the same row waits for this one and then re-checks the conditions
(so it finds nothing to move); on SQLite the statement takes the database's write lock, which is held until
the transaction ends, so whatever the transaction reads or writes after its first `move` is current
(a `SELECT ... FOR UPDATE` alone locks nothing on SQLite, and pysqlite runs the reads before a
transaction's first write outside any transaction). A caller that moved nothing answers that the
state changed, and a bulk action counts only what it moved.

`move_from` moves rows each from the state they were read in (grouped by that state), so that the audit
row's "before" is exact.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import update
from sqlalchemy.orm import InstrumentedAttribute
from sqlalchemy.orm.util import identity_key
from sqlmodel import Session


def move(session: Session, model: type[Any], *conditions: Any, values: Mapping[str, Any]) -> list[int]:
    """UPDATE the rows of `model` meeting every condition (one of them the expected state) with `values`;
    the ids moved, in ascending order. Objects of those rows held by the session are expired (read again
    when next used)."""
    key: InstrumentedAttribute[int] = model.id
    statement = (
        update(model).where(*conditions).values(**values).returning(key).execution_options(synchronize_session=False)
    )
    moved = sorted(session.execute(statement).scalars())
    for row_id in moved:
        held = session.identity_map.get(identity_key(model, row_id))
        if held is not None:
            session.expire(held)
    return moved


def move_from(
    session: Session,
    model: type[Any],
    read: Mapping[int, str],
    *conditions: Any,
    values: Mapping[str, Any],
    state: InstrumentedAttribute[str] | None = None,
) -> dict[int, str]:
    """Move each row of `read` ({id: the state it was read in}) only if it is still in that state (and meets
    `conditions`); {id: the state it left} for the rows moved."""
    state = state if state is not None else model.status
    key: InstrumentedAttribute[int] = model.id
    moved: dict[int, str] = {}
    for before in sorted(set(read.values())):
        ids = [row_id for row_id, was in read.items() if was == before]
        for row_id in move(session, model, key.in_(ids), state == before, *conditions, values=values):
            moved[row_id] = before
    return moved
