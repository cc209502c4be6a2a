"""test taking (placeholder reserved for issue 5 (taking a test); replace this docstring when filling it)

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-21 18:20:00
"""

from collections.abc import Sequence

from alembic import op  # noqa: F401


revision: str = '0007'
down_revision: str | None = '0006'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
