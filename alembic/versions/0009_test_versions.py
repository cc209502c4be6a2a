"""tests: numbered versions of the definition; sessions and reviews point at theirs; schedule, exclusion, draft

Issue 34 (tests built in the browser). A test's definition is kept in immutable numbered versions:
- test_version (test_id, number, columns, sealed, created_at, created_by_id, source): `columns` holds the
  versioned columns of `test` (what participants see and answer);
- review_session.version_id and review.version_id: the version each was taken on.
Every existing test gets version 1 holding its columns as they are now (sealed when it has sessions or
reviews), and every session and review points at it: nothing is lost, and what staff saw before the
upgrade is what version 1 shows.
Also on `test`: scheduled_at (a scheduled launch), exclusion_days (spec section 9's exclusion window,
0 = none for every existing test, as before) and draft_document (the builder's unsaved working copy).
Downgrade drops them; the test rows still hold their newest definition.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-26 16:00:00
"""

from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
import sqlmodel

from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The versioned columns of `test` as this migration knows them (portal/domain/versions.py, VERSIONED).
_JSON = ("survey", "questions", "selected_areas", "preference_test", "screener_question", "welcome_modal")
_PLAIN = (
    "product_type",
    "url",
    "screenshot_url",
    "pricing_url",
    "pricing_screenshot_url",
    "frame_of_mind",
    "is_surveys_conditional_enabled",
    "video_recorder_url",
)


def upgrade() -> None:
    op.create_table(
        "test_version",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("test_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("columns", sa.JSON(), nullable=False),
        sa.Column("sealed", sa.Boolean(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("created_by_id", sa.Integer(), nullable=True),
        sa.Column("source", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.ForeignKeyConstraint(["test_id"], ["test.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("test_id", "number", name="uq_test_version_number"),
    )
    op.create_index("ix_test_version_test_id", "test_version", ["test_id"], unique=False)

    # Plain ALTER TABLE ... ADD COLUMN (REFERENCES inline), never a batch copy: on SQLite a copy drops the
    # old table, and dropping `review` deletes every reward through reward.review_id's ON DELETE CASCADE
    # (dropping `test` would take every review with it).
    for table in ("review", "review_session"):
        if op.get_bind().dialect.name == "sqlite":
            op.execute(
                f"ALTER TABLE {table} ADD COLUMN version_id INTEGER "
                f"CONSTRAINT fk_{table}_version_id REFERENCES test_version (id)"
            )
        else:
            op.add_column(
                table,
                sa.Column(
                    "version_id",
                    sa.Integer(),
                    sa.ForeignKey("test_version.id", name=f"fk_{table}_version_id"),
                    nullable=True,
                ),
            )
        op.create_index(f"ix_{table}_version_id", table, ["version_id"], unique=False)
    op.add_column("test", sa.Column("scheduled_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
    op.add_column("test", sa.Column("exclusion_days", sa.Integer(), server_default="0", nullable=False))
    op.add_column("test", sa.Column("draft_document", sa.JSON(), nullable=True))

    _versions_one()


def _versions_one() -> None:
    """Version 1 of every test, from its columns as they are; every session and review points at it."""
    bind = op.get_bind()
    test = sa.table(
        "test", sa.column("id", sa.Integer), *(sa.column(c, sa.JSON) for c in _JSON), *map(sa.column, _PLAIN)
    )
    version = sa.table(
        "test_version",
        sa.column("test_id", sa.Integer),
        sa.column("number", sa.Integer),
        sa.column("columns", sa.JSON),
        sa.column("sealed", sa.Boolean),
        sa.column("created_at", sqlmodel.sql.sqltypes.UTCDateTime),
        sa.column("source", sa.String),
    )
    used = {
        row[0]
        for row in bind.execute(sa.text("SELECT test_id FROM review_session UNION SELECT test_id FROM review")).all()
    }
    now = datetime.now(UTC)
    rows = bind.execute(sa.select(test).order_by(test.c.id)).mappings().all()
    batch = []
    for row in rows:
        columns = {c: row[c] for c in (*_JSON, *_PLAIN)}
        columns["is_surveys_conditional_enabled"] = bool(columns["is_surveys_conditional_enabled"])
        batch.append(
            {
                "test_id": row["id"],
                "number": 1,
                "columns": columns,
                "sealed": row["id"] in used,
                "created_at": now,
                "source": "migration",
            }
        )
        if len(batch) == 500:
            bind.execute(version.insert(), batch)
            batch = []
    if batch:
        bind.execute(version.insert(), batch)
    for table in ("review", "review_session"):
        bind.execute(
            sa.text(
                f"UPDATE {table} SET version_id = (SELECT v.id FROM test_version v "
                f"WHERE v.test_id = {table}.test_id AND v.number = 1)"
            )
        )


def downgrade() -> None:
    # Plain ALTER TABLE ... DROP COLUMN (SQLite 3.35+ too), never a batch copy (see upgrade).
    sqlite = op.get_bind().dialect.name == "sqlite"
    for name in ("draft_document", "exclusion_days", "scheduled_at"):
        op.drop_column("test", name)
    for table in ("review_session", "review"):
        op.drop_index(f"ix_{table}_version_id", table_name=table)
        if sqlite:  # the inline REFERENCES goes with the column
            op.execute(f"ALTER TABLE {table} DROP COLUMN version_id")
        else:
            op.drop_constraint(f"fk_{table}_version_id", table, type_="foreignkey")
            op.drop_column(table, "version_id")
    op.drop_index("ix_test_version_test_id", table_name="test_version")
    op.drop_table("test_version")
