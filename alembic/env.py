"""Alembic environment: migrates the database named by DATABASE_URL (or a given connection)."""

from __future__ import annotations

from logging.config import fileConfig

from sqlmodel import SQLModel

import portal.models  # noqa: F401  (registers every table)
from alembic import context
from portal.db import make_engine
from portal.settings import settings

config = context.config
if config.config_file_name is not None and config.attributes.get("configure_logging", True):
    fileConfig(config.config_file_name, disable_existing_loggers=False)

target_metadata = SQLModel.metadata


def include_object(obj, name, type_, reflected, compare_to) -> bool:
    """PostgreSQL-only trigram search indexes (migration 0004) are managed by hand, not by the models."""
    return not (type_ == "index" and reflected and compare_to is None and (name or "").endswith("_trgm"))


def _configure(connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        include_object=include_object,
        render_as_batch=connection.dialect.name == "sqlite",  # ALTER TABLE support on SQLite
        compare_type=True,
    )


def run_migrations_offline() -> None:
    context.configure(
        url=config.get_main_option("sqlalchemy.url") or settings.database_url,
        target_metadata=target_metadata,
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _configure(connection)
        with context.begin_transaction():
            context.run_migrations()
        return
    url = config.get_main_option("sqlalchemy.url") or settings.database_url
    engine = make_engine(url)
    with engine.connect() as conn:
        _configure(conn)
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
