"""rewards test columns (placeholder reserved for issue 6 (rewards table speed); replace this docstring when filling it)

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-21 18:20:00
"""

from collections.abc import Sequence

from alembic import op  # noqa: F401


revision: str = '0005'
down_revision: str | None = '0004'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
