"""A row locked for the rest of the transaction, on PostgreSQL and on SQLite.

PostgreSQL locks with SELECT ... FOR UPDATE. SQLite ignores FOR UPDATE, and its driver begins a transaction
only at the first write, so every read before it sees whatever is committed at that moment: two staff tabs
saving the same test could both read it as it was and both write. A write that changes nothing takes
SQLite's write lock first (the other transaction waits for it), so what is read after it is current.
"""

from __future__ import annotations

from typing import Any, TypeVar

from sqlalchemy import update
from sqlmodel import Session, SQLModel

M = TypeVar("M", bound=SQLModel)


def locked(session: Session, model: type[M], row_id: int) -> M | None:
    """The row with this id, locked until the transaction ends (None: there is none), read fresh."""
    if session.get_bind().dialect.name == "sqlite":
        key: Any = model.id  # type: ignore[attr-defined]
        session.execute(
            update(model).where(key == row_id).values({key.key: key}).execution_options(synchronize_session=False)
        )
    return session.get(model, row_id, with_for_update=True, populate_existing=True)
