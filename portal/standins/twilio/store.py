"""The Twilio stand-in's state: the texts it "sent" and received, and the numbers that replied STOP, in its own
SQLite file (WAL, a busy timeout), so every worker of the portal sees the same."""

from __future__ import annotations

import secrets
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS message (
  sid TEXT PRIMARY KEY, direction TEXT NOT NULL, to_number TEXT NOT NULL, from_number TEXT NOT NULL,
  body TEXT NOT NULL, status TEXT NOT NULL, created REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS ix_message_to ON message (to_number, created);
CREATE TABLE IF NOT EXISTS stopped (number TEXT PRIMARY KEY, at REAL NOT NULL);
"""


@dataclass(frozen=True)
class StandinConfig:
    db_path: Path
    account_sid: str
    auth_token: str
    sender: str  # the portal's number
    webhook_url: str  # where incoming texts are posted (the portal's /webhooks/twilio/sms)


@dataclass(frozen=True)
class Text:
    sid: str
    direction: str  # outbound-api | inbound
    to_number: str
    from_number: str
    body: str
    status: str
    created: float


class Store:
    def __init__(self, config: StandinConfig) -> None:
        self.config = config
        config.db_path.parent.mkdir(parents=True, exist_ok=True)
        conn = self.connect()
        try:
            conn.executescript(SCHEMA)
        finally:
            conn.close()

    def connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.config.db_path, timeout=30, isolation_level=None, check_same_thread=False)
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA busy_timeout=30000")
        return conn

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        conn = self.connect()
        try:
            conn.execute("BEGIN IMMEDIATE")
            yield conn
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        finally:
            conn.close()

    def add(self, *, direction: str, to: str, sender: str, body: str) -> Text:
        text = Text("SM" + secrets.token_hex(16), direction, to, sender, body, "sent", time.time())
        with self.write() as conn:
            conn.execute(
                "INSERT INTO message (sid, direction, to_number, from_number, body, status, created) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (text.sid, text.direction, text.to_number, text.from_number, text.body, text.status, text.created),
            )
        return text

    def texts(
        self, *, to: str | None = None, sender: str | None = None, number: str | None = None, limit: int = 50
    ) -> list[Text]:
        """Newest first: to `to`, from `sender`, or to or from `number` (a phone's whole conversation)."""
        where, args = [], []  # type: ignore[var-annotated]
        if to:
            where.append("to_number = ?")
            args.append(to)
        if sender:
            where.append("from_number = ?")
            args.append(sender)
        if number:
            where.append("(to_number = ? OR from_number = ?)")
            args.extend([number, number])
        clause = f"WHERE {' AND '.join(where)}" if where else ""
        conn = self.connect()
        try:
            rows = conn.execute(
                f"SELECT * FROM message {clause} ORDER BY created DESC, rowid DESC LIMIT ?",  # noqa: S608
                (*args, max(1, min(limit, 1000))),
            ).fetchall()
        finally:
            conn.close()
        return [Text(**dict(row)) for row in rows]

    def get(self, sid: str) -> Text | None:
        conn = self.connect()
        try:
            row = conn.execute("SELECT * FROM message WHERE sid = ?", (sid,)).fetchone()
        finally:
            conn.close()
        return Text(**dict(row)) if row else None

    def set_stopped(self, number: str, stopped: bool) -> None:
        with self.write() as conn:
            if stopped:
                conn.execute("INSERT OR IGNORE INTO stopped (number, at) VALUES (?, ?)", (number, time.time()))
            else:
                conn.execute("DELETE FROM stopped WHERE number = ?", (number,))

    def is_stopped(self, number: str) -> bool:
        conn = self.connect()
        try:
            return conn.execute("SELECT 1 FROM stopped WHERE number = ?", (number,)).fetchone() is not None
        finally:
            conn.close()


def as_json(text: Text, account_sid: str) -> dict[str, Any]:
    """A message in Twilio's shape (the fields the SDK's MessageInstance reads)."""
    stamp = time.strftime("%a, %d %b %Y %H:%M:%S +0000", time.gmtime(text.created))
    return {
        "sid": text.sid,
        "account_sid": account_sid,
        "to": text.to_number,
        "from": text.from_number,
        "body": text.body,
        "status": text.status,
        "direction": text.direction,
        "num_segments": str(max(1, -(-len(text.body) // 153))),
        "date_created": stamp,
        "date_updated": stamp,
        "date_sent": stamp,
        "api_version": "2010-04-01",
        "price": None,
        "price_unit": "USD",
        "error_code": None,
        "error_message": None,
        "uri": f"/2010-04-01/Accounts/{account_sid}/Messages/{text.sid}.json",
        "subresource_uris": {},
    }
