"""The stand-in's Tremendous API operations on its file: orders (idempotent by external_id: a repeat with the
same body answers the order, 201; with another body, 409), rewards and their resend, funding sources and
campaigns, in Tremendous's JSON."""

from __future__ import annotations

import json
import sqlite3
import time
from typing import Any

from portal.standins.tremendous.database import Database, StandinConfig, iso, new_id

FUNDING_SOURCE_ID = "BALANCEFS0001"
SCHEDULED, FAILED = "SCHEDULED", "FAILED"


class Refused(Exception):
    """An API request the stand-in answers with an error (Tremendous's status and message)."""

    def __init__(self, status: int, message: str, payload: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.payload = status, message, payload or {}


class Orders:
    config: StandinConfig
    db: Database

    def funding_sources(self) -> list[dict[str, Any]]:
        return [
            {
                "id": FUNDING_SOURCE_ID,
                "method": "balance",
                "type": "COMMERCIAL",
                "status": "active",
                "usage_permissions": ["api"],
                "meta": {"available_cents": 10_000_000, "pending_cents": 0},
            }
        ]

    def campaigns(self) -> list[dict[str, Any]]:
        return [{"id": self.config.campaign_id, "name": "Study payouts (local stand-in)", "description": None}]

    def create_order(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """(200, order) for a new order, (201, the order) for a repeat of its external_id with the same body;
        Refused(409) for a repeat with another body, Refused(400) for a body Tremendous refuses."""
        reward_in, value, recipient, method = _checked(body, self.config.campaign_id)
        external_id = body.get("external_id") if isinstance(body.get("external_id"), str) else None
        request = json.dumps(body, sort_keys=True)
        now = time.time()
        with self.db.write() as conn:
            if external_id:
                row = conn.execute("SELECT id, request FROM orders WHERE external_id = ?", (external_id,)).fetchone()
                if row is not None:
                    if row["request"] != request:
                        raise Refused(409, "An order with this external_id already exists with different parameters")
                    return 201, self._order_json(conn, row["id"])
            order_id, reward_id = new_id(), new_id()
            conn.execute(
                "INSERT INTO orders (id, external_id, request, campaign_id, status, created_at) VALUES (?,?,?,?,?,?)",
                (order_id, external_id, request, reward_in.get("campaign_id"), "EXECUTED", now),
            )
            conn.execute(
                "INSERT INTO rewards (id, order_id, name, email, amount, currency, status, deliver_at, created_at)"
                " VALUES (?,?,?,?,?,?,?,?,?)",
                (
                    reward_id,
                    order_id,
                    str(recipient.get("name") or ""),
                    str(recipient["email"]),
                    float(value["denomination"]),
                    str(value.get("currency_code") or "USD"),
                    SCHEDULED,
                    now + self.config.delivery_seconds,
                    now,
                ),
            )
            assert method == "EMAIL"
            return 200, self._order_json(conn, order_id)

    def order(self, id_or_external_id: str) -> dict[str, Any] | None:
        with self.db.read() as conn:
            row = conn.execute(
                "SELECT id FROM orders WHERE id = ? OR external_id = ? ORDER BY id = ? DESC LIMIT 1",
                (id_or_external_id, id_or_external_id, id_or_external_id),
            ).fetchone()
            return self._order_json(conn, row["id"]) if row else None

    def list_orders(self, external_id: str | None, offset: int, limit: int) -> dict[str, Any]:
        where, args = ("WHERE external_id = ?", [external_id]) if external_id is not None else ("", [])
        with self.db.read() as conn:
            total = conn.execute(f"SELECT count(*) FROM orders {where}", args).fetchone()[0]
            ids = conn.execute(
                f"SELECT id FROM orders {where} ORDER BY created_at DESC LIMIT ? OFFSET ?",
                [*args, max(0, min(limit, 500)), max(0, offset)],
            ).fetchall()
            return {"orders": [self._order_json(conn, r["id"]) for r in ids], "total_count": total}

    def reward(self, reward_id: str) -> dict[str, Any] | None:
        with self.db.read() as conn:
            row = conn.execute("SELECT * FROM rewards WHERE id = ?", (reward_id,)).fetchone()
            return reward_json(row) if row else None

    def resend(self, reward_id: str, updated_email: str | None) -> None:
        """Deliver a failed reward again (to `updated_email` when given), after the usual delay."""
        with self.db.write() as conn:
            row = conn.execute("SELECT status FROM rewards WHERE id = ?", (reward_id,)).fetchone()
            if row is None:
                raise Refused(404, "Resource not found")
            if row["status"] != FAILED:
                raise Refused(422, "Only rewards with a previous delivery failure can be resent")
            conn.execute(
                "UPDATE rewards SET status = ?, reason = '', deliver_at = ?, email = coalesce(?, email)"
                " WHERE id = ? AND status = ?",
                (SCHEDULED, time.time() + self.config.delivery_seconds, updated_email, reward_id, FAILED),
            )

    def _order_json(self, conn: sqlite3.Connection, order_id: str) -> dict[str, Any]:
        order = conn.execute("SELECT * FROM orders WHERE id = ?", (order_id,)).fetchone()
        rewards = [reward_json(r) for r in conn.execute("SELECT * FROM rewards WHERE order_id = ?", (order_id,))]
        total = sum(r["value"]["denomination"] for r in rewards)
        currency = rewards[0]["value"]["currency_code"] if rewards else "USD"
        return {
            "id": order["id"],
            "external_id": order["external_id"],
            "campaign_id": order["campaign_id"],
            "created_at": iso(order["created_at"]),
            "status": order["status"],
            "channel": "API",
            "payment": {"subtotal": total, "total": total, "fees": 0.0, "discount": 0.0, "currency_code": currency},
            "rewards": rewards,
        }

    def orders(self) -> list[tuple[str, str | None]]:
        """(order id, external id) of every order."""
        with self.db.read() as conn:
            return [(r["id"], r["external_id"]) for r in conn.execute("SELECT id, external_id FROM orders")]


def reward_json(row: sqlite3.Row) -> dict[str, Any]:
    return {
        "id": row["id"],
        "order_id": row["order_id"],
        "created_at": iso(row["created_at"]),
        "expires_at": None,
        "value": {"denomination": row["amount"], "currency_code": row["currency"]},
        "recipient": {"name": row["name"], "email": row["email"]},
        "delivery": {"method": "EMAIL", "status": row["status"]},
        "custom_fields": [],
    }


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _checked(body: dict[str, Any], campaign_id: str) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], str]:
    """The parts of a create-order body, as Tremendous checks them (Refused(400) otherwise)."""
    payment = _dict(body.get("payment"))
    reward = _dict(body.get("reward"))
    funding = str(payment.get("funding_source_id") or "")
    if funding.upper() != "BALANCE" and funding != FUNDING_SOURCE_ID:
        raise Refused(400, "Funding source not found", {"payment": {"funding_source_id": ["is invalid"]}})
    if reward.get("campaign_id") != campaign_id:
        raise Refused(400, "Campaign not found", {"reward": {"campaign_id": ["is invalid"]}})
    value = _dict(reward.get("value"))
    amount = value.get("denomination")
    if not isinstance(amount, int | float) or isinstance(amount, bool) or amount <= 0:
        raise Refused(400, "Invalid denomination", {"reward": {"value": {"denomination": ["is invalid"]}}})
    recipient = _dict(reward.get("recipient"))
    delivery = _dict(reward.get("delivery"))
    method = str(delivery.get("method") or "EMAIL").upper()
    if method != "EMAIL":
        raise Refused(400, "The local stand-in delivers by EMAIL only", {"reward": {"delivery": ["is invalid"]}})
    email = recipient.get("email")
    if not isinstance(email, str) or "@" not in email:
        raise Refused(400, "Recipient email is required", {"reward": {"recipient": {"email": ["is missing"]}}})
    return reward, value, recipient, method
