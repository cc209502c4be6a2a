"""screener_response (account_id, test_id): the home table's invites ask, per invite, whether its person failed the
test's screening question (issue 40: such an invite leaves the open list)

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-02 07:55:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_screener_response_account_test", "screener_response", ["account_id", "test_id"])


def downgrade() -> None:
    op.drop_index("ix_screener_response_account_test", table_name="screener_response")
