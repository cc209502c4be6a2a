"""The partner stand-ins' small store: one SQLite file (LOCAL_PARTNERS_DB) shared by every backend worker, one table
of JSON records per kind, each record under a unique key (a repeated key is kept once: the partners' idempotency)."""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path
from typing import Any


class PartnerStore:
    def __init__(self, path: Path | str) -> None:
        self.path = str(path)
        self._lock = threading.Lock()
        with self._connect() as conn:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS record (id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, "
                "key TEXT NOT NULL, body TEXT NOT NULL, UNIQUE (kind, key))"
            )

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        conn.execute("PRAGMA journal_mode=WAL")
        return conn

    def put(self, kind: str, key: str, body: dict[str, Any], *, replace: bool = False) -> bool:
        """Keep `body` under (kind, key); whether it is new (a repeated key keeps the first unless `replace`)."""
        verb = "INSERT OR REPLACE" if replace else "INSERT OR IGNORE"
        with self._lock, self._connect() as conn:
            done = conn.execute(f"{verb} INTO record (kind, key, body) VALUES (?, ?, ?)", (kind, key, json.dumps(body)))
            return done.rowcount == 1

    def get(self, kind: str, key: str) -> dict[str, Any] | None:
        with self._connect() as conn:
            row = conn.execute("SELECT body FROM record WHERE kind = ? AND key = ?", (kind, key)).fetchone()
        return json.loads(row[0]) if row else None

    def all(self, kind: str) -> list[dict[str, Any]]:
        with self._connect() as conn:
            rows = conn.execute("SELECT key, body FROM record WHERE kind = ? ORDER BY id", (kind,)).fetchall()
        return [{"key": key, **json.loads(body)} for key, body in rows]
