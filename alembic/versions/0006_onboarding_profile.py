"""onboarding profile (placeholder reserved for issue 4 (onboarding and profile); replace this docstring when filling it)

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-21 18:20:00
"""

from collections.abc import Sequence

from alembic import op  # noqa: F401


revision: str = '0006'
down_revision: str | None = '0005'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
