"""The stand-in's deliveries: a reward's e-mail is "sent" (kept in its inbox) when its delivery time comes, or
bounces when the address's local part contains 'bounce'; then the signed webhook is posted to the portal.
Each delivery and each webhook is claimed by a conditional UPDATE, so whichever workers run `tick()`, it
happens once; a webhook the portal does not accept (non-2xx) is tried again after a growing wait."""

from __future__ import annotations

import json
import sqlite3
import time
import urllib.error
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from portal.services.providers.payouts.webhooks import HEADER, signature
from portal.standins.tremendous.database import Database, StandinConfig, iso
from portal.standins.tremendous.orders import FAILED, SCHEDULED, reward_json

BOUNCED = "The e-mail address bounced"
SUCCEEDED = "SUCCEEDED"
EVENTS = {SUCCEEDED: "REWARDS.DELIVERY.SUCCEEDED", FAILED: "REWARDS.DELIVERY.FAILED"}
CHOICES = {
    "gift_card": "A gift card",
    "visa": "A prepaid VISA card",
    "paypal": "PayPal",
    "charity": "A donation to a charity",
}
MAX_WEBHOOK_ATTEMPTS = 12
CLAIM_SECONDS = 30.0
WEBHOOK_TIMEOUT_SECONDS = 5.0
SENDERS, BATCH, MAX_BATCHES = 4, 50, 20  # webhooks posted at once, claimed at once, batches per round
DUE_WEBHOOKS = (
    f"SELECT id FROM webhooks WHERE sent = 0 AND next_at <= ? AND claimed_until <= ? ORDER BY id LIMIT {BATCH}"
)


def bounces(email: str) -> bool:
    """The stand-in's rule for a bounced e-mail: its local part contains 'bounce'."""
    return "bounce" in email.rsplit("@", 1)[0].lower()


@dataclass(frozen=True)
class InboxEmail:
    id: int
    reward_id: str
    recipient: str
    subject: str
    link: str
    outcome: str  # "delivered" | the bounce's reason
    sent_at: datetime


@dataclass(frozen=True)
class PendingWebhook:
    id: int
    uuid: str
    event: str
    resource_id: str
    attempts: int
    body: bytes
    last_answer: str


class Deliveries:
    config: StandinConfig
    db: Database

    def tick(self, now: float | None = None) -> None:
        """One round of the background loop: deliver what is due, send the webhooks that are due. Nothing
        before the first order (the file is made by the first request to the stand-in)."""
        if not self.config.db_path.exists():
            return
        self.deliver_due(now)
        self.send_due_webhooks(now)

    def deliver_due(self, now: float | None = None) -> int:
        """Deliver every reward whose delivery time has come (bounced when its e-mail says so); each once."""
        now = time.time() if now is None else now
        due_query = "SELECT id, email FROM rewards WHERE status = ? AND deliver_at <= ? ORDER BY deliver_at LIMIT 500"
        with self.db.read() as conn:  # most rounds find nothing: no write lock for them
            if conn.execute(due_query, (SCHEDULED, now)).fetchone() is None:
                return 0
        with self.db.write() as conn:
            due = conn.execute(due_query, (SCHEDULED, now)).fetchall()
            return sum(
                self._deliver(conn, row["id"], succeeded=not bounces(row["email"]), webhook=True, now=now)
                for row in due
            )

    def _deliver(self, conn: sqlite3.Connection, reward_id: str, *, succeeded: bool, webhook: bool, now: float) -> bool:
        status, reason = (SUCCEEDED, "") if succeeded else (FAILED, BOUNCED)
        changed = conn.execute(
            "UPDATE rewards SET status = ?, reason = ?, deliver_at = NULL WHERE id = ? AND status = ?",
            (status, reason, reward_id, SCHEDULED),
        ).rowcount
        if not changed:
            return False
        row = conn.execute("SELECT * FROM rewards WHERE id = ?", (reward_id,)).fetchone()
        conn.execute(
            "INSERT INTO emails (reward_id, recipient, subject, link, outcome, sent_at) VALUES (?,?,?,?,?,?)",
            (
                reward_id,
                row["email"],
                f"You have received a reward of {row['amount']:.2f} {row['currency']}",
                self.link(reward_id),
                "delivered" if succeeded else reason,
                now,
            ),
        )
        if webhook:
            event_id = str(uuid.uuid4())
            body = json.dumps(
                {
                    "event": EVENTS[status],
                    "uuid": event_id,
                    "created_utc": iso(now),
                    "payload": {"resource": {"id": reward_id, "type": "rewards"}, "meta": {}},
                }
            ).encode()
            conn.execute(
                "INSERT INTO webhooks (uuid, event, resource_id, body, next_at) VALUES (?,?,?,?,?)",
                (event_id, EVENTS[status], reward_id, body, now),
            )
        return True

    def send_due_webhooks(self, now: float | None = None) -> list[int]:
        """Post the webhooks that are due, in batches claimed first (one sender each); the portal's answers (0: no
        answer). A non-2xx answer is tried again after 2, 4, 8 ... seconds (at most 5 minutes), MAX_WEBHOOK_ATTEMPTS
        times."""
        now = time.time() if now is None else now
        answers: list[int] = []
        for _ in range(MAX_BATCHES):
            batch = self._claim(now)
            if not batch:
                break
            with ThreadPoolExecutor(SENDERS) as pool:
                sent = list(pool.map(self._post, [hook["body"] for hook in batch]))
            self._record(batch, sent)
            answers += sent
        return answers

    def _claim(self, now: float) -> list[sqlite3.Row]:
        with self.db.read() as conn:  # most rounds find nothing: no write lock for them
            if conn.execute(DUE_WEBHOOKS, (now, now)).fetchone() is None:
                return []
        with self.db.write() as conn:
            return conn.execute(
                f"UPDATE webhooks SET claimed_until = ?, attempts = attempts + 1 WHERE id IN ({DUE_WEBHOOKS})"
                " RETURNING id, body, attempts",
                (now + CLAIM_SECONDS, now, now),
            ).fetchall()

    def _record(self, batch: list[sqlite3.Row], answers: list[int]) -> None:
        with self.db.write() as conn:
            for hook, answer in zip(batch, answers, strict=True):
                if 200 <= answer < 300:
                    conn.execute(
                        "UPDATE webhooks SET sent = 1, last_answer = ? WHERE id = ?", (str(answer), hook["id"])
                    )
                    continue
                conn.execute(
                    "UPDATE webhooks SET sent = ?, claimed_until = 0, next_at = ?, last_answer = ? WHERE id = ?",
                    (
                        -1 if hook["attempts"] >= MAX_WEBHOOK_ATTEMPTS else 0,  # given up
                        time.time() + min(2.0 ** hook["attempts"], 300.0),
                        str(answer or "no answer"),
                        hook["id"],
                    ),
                )

    def _post(self, body: bytes) -> int:
        request = urllib.request.Request(
            self.config.webhook_url,
            data=body,
            method="POST",
            headers={"Content-Type": "application/json", HEADER: signature(body, self.config.webhook_key)},
        )
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: never through a proxy
        try:
            with opener.open(request, timeout=WEBHOOK_TIMEOUT_SECONDS) as response:
                return int(response.status)
        except urllib.error.HTTPError as error:
            return int(error.code)
        except OSError:
            return 0

    def link(self, reward_id: str) -> str:
        return f"{self.config.public_url.rstrip('/')}/local-payouts/rewards/{reward_id}"

    # --- the recipient's page -----------------------------------------------------------------------------------

    def choose(self, reward_id: str, choice: str) -> bool:
        """Store how the recipient takes a delivered reward (one of CHOICES), once."""
        if choice not in CHOICES:
            return False
        with self.db.write() as conn:
            return bool(
                conn.execute(
                    "UPDATE rewards SET choice = ? WHERE id = ? AND status = ? AND choice = ''",
                    (choice, reward_id, SUCCEEDED),
                ).rowcount
            )

    def reward_page(self, reward_id: str) -> dict[str, Any] | None:
        """What the reward's page shows: amount, recipient, delivery and the choice made."""
        with self.db.read() as conn:
            row = conn.execute("SELECT * FROM rewards WHERE id = ?", (reward_id,)).fetchone()
            return dict(row) if row else None

    # --- test controls --------------------------------------------------------------------------------------------

    def deliver(self, reward_id: str, succeeded: bool = True, send_webhook: bool = True) -> dict[str, Any]:
        """Deliver a scheduled reward now (bounced when not `succeeded`); its webhook is queued and posted at once
        unless `send_webhook` is False (a lost webhook). KeyError for an unknown reward. The reward as the API
        shows it."""
        with self.db.write() as conn:
            if conn.execute("SELECT 1 FROM rewards WHERE id = ?", (reward_id,)).fetchone() is None:
                raise KeyError(reward_id)
            self._deliver(conn, reward_id, succeeded=succeeded, webhook=send_webhook, now=time.time())
        if send_webhook:
            self.send_due_webhooks()
        with self.db.read() as conn:
            return reward_json(conn.execute("SELECT * FROM rewards WHERE id = ?", (reward_id,)).fetchone())

    def pending_webhooks(self) -> list[PendingWebhook]:
        """Webhooks not yet accepted by the portal (still to be tried)."""
        with self.db.read() as conn:
            rows = conn.execute("SELECT * FROM webhooks WHERE sent = 0 ORDER BY id").fetchall()
        return [
            PendingWebhook(r["id"], r["uuid"], r["event"], r["resource_id"], r["attempts"], r["body"], r["last_answer"])
            for r in rows
        ]

    def inbox(self) -> list[InboxEmail]:
        """The link e-mails the stand-in sent, newest first."""
        with self.db.read() as conn:
            rows = conn.execute("SELECT * FROM emails ORDER BY id DESC LIMIT 500").fetchall()
        return [
            InboxEmail(
                r["id"],
                r["reward_id"],
                r["recipient"],
                r["subject"],
                r["link"],
                r["outcome"],
                datetime.fromtimestamp(r["sent_at"], UTC),
            )
            for r in rows
        ]
