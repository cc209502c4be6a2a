"""The stand-in's SQLite file: its schema, its connections (WAL, a busy timeout) and its transactions. Every
write is one `BEGIN IMMEDIATE` transaction, so writers of every worker process take turns."""

from __future__ import annotations

import secrets
import sqlite3
import string
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

ALPHABET = string.ascii_uppercase + string.digits

SCHEMA = """
CREATE TABLE IF NOT EXISTS orders (
  id TEXT PRIMARY KEY, external_id TEXT UNIQUE, request TEXT NOT NULL, campaign_id TEXT,
  status TEXT NOT NULL, created_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS rewards (
  id TEXT PRIMARY KEY, order_id TEXT NOT NULL, name TEXT NOT NULL, email TEXT NOT NULL, amount REAL NOT NULL,
  currency TEXT NOT NULL, status TEXT NOT NULL, reason TEXT NOT NULL DEFAULT '', deliver_at REAL,
  choice TEXT NOT NULL DEFAULT '', created_at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS rewards_due ON rewards (status, deliver_at);
CREATE TABLE IF NOT EXISTS emails (
  id INTEGER PRIMARY KEY AUTOINCREMENT, reward_id TEXT NOT NULL, recipient TEXT NOT NULL, subject TEXT NOT NULL,
  link TEXT NOT NULL, outcome TEXT NOT NULL, sent_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS webhooks (
  id INTEGER PRIMARY KEY AUTOINCREMENT, uuid TEXT NOT NULL UNIQUE, event TEXT NOT NULL, resource_id TEXT NOT NULL,
  body BLOB NOT NULL, sent INTEGER NOT NULL DEFAULT 0, attempts INTEGER NOT NULL DEFAULT 0, next_at REAL NOT NULL,
  claimed_until REAL NOT NULL DEFAULT 0, last_answer TEXT NOT NULL DEFAULT '');
CREATE INDEX IF NOT EXISTS webhooks_due ON webhooks (sent, next_at);
"""


def new_id() -> str:
    """Tremendous's ids: upper-case letters and digits (the SDK checks [A-Z0-9]{4,20})."""
    return "".join(secrets.choice(ALPHABET) for _ in range(12))


def iso(moment: float) -> str:
    return datetime.fromtimestamp(moment, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


@dataclass(frozen=True)
class StandinConfig:
    db_path: Path
    api_key: str
    campaign_id: str
    webhook_url: str  # where the signed webhooks are posted (the portal's /webhooks/tremendous)
    webhook_key: str  # the webhook's private key (signs them)
    public_url: str  # where the stand-in's pages are (the e-mailed links: {public_url}/local-payouts/rewards/ID)
    delivery_seconds: float = 5.0


class Database:
    def __init__(self, config: StandinConfig) -> None:
        self.config = config
        self._ready = False
        self._init_lock = threading.Lock()

    def connect(self) -> sqlite3.Connection:
        self.config.db_path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.config.db_path, timeout=30, isolation_level=None, check_same_thread=False)
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA busy_timeout=30000")
        if not self._ready:
            with self._init_lock:
                if not self._ready:
                    conn.execute("PRAGMA journal_mode=WAL")
                    conn.executescript(SCHEMA)
                    self._ready = True
        conn.execute("PRAGMA synchronous=NORMAL")
        return conn

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        conn = self.connect()
        try:
            yield conn
        finally:
            conn.close()

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        conn = self.connect()
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        finally:
            conn.close()
