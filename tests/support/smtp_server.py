"""A real SMTP server on loopback (aiosmtpd) that keeps what it receives, for tests to read."""

from __future__ import annotations

import email
import email.policy
import re
import socket
import threading
from dataclasses import dataclass
from email.message import Message

from aiosmtpd.controller import Controller

from tests.support.polling import polled


@dataclass
class ReceivedMail:
    to: list[str]
    message: Message

    @property
    def subject(self) -> str:
        return str(self.message["Subject"])

    @property
    def body(self) -> str:
        part = self.message.get_body(("plain",)) if hasattr(self.message, "get_body") else None
        payload = (part or self.message).get_payload(decode=True)
        return payload.decode() if isinstance(payload, bytes) else str(payload)

    def links(self) -> list[str]:
        return re.findall(r"https?://[^\s<>\"]+", self.body)


class _Handler:
    def __init__(self, box: SmtpServer):
        self.box = box

    async def handle_DATA(self, server, session, envelope):  # noqa: N802 (aiosmtpd's hook name)
        msg = email.message_from_bytes(envelope.original_content or envelope.content, policy=email.policy.default)
        with self.box.lock:
            self.box.messages.append(ReceivedMail(to=[a.lower() for a in envelope.rcpt_tos], message=msg))
        return "250 Message accepted for delivery"


class SmtpServer:
    def __init__(self) -> None:
        self.messages: list[ReceivedMail] = []
        self.lock = threading.Lock()
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.controller = Controller(_Handler(self), hostname="127.0.0.1", port=self.port)

    def start(self) -> SmtpServer:
        self.controller.start()
        return self

    def stop(self) -> None:
        self.controller.stop()

    def wait_for(self, to: str, *, subject_contains: str = "", timeout: float = 30, after: int = 0) -> ReceivedMail:
        """The first message to `to` (after the first `after` ones) whose subject contains the text."""
        to = to.lower()

        def matching() -> list[ReceivedMail]:
            with self.lock:
                return [m for m in self.messages if to in m.to and subject_contains in m.subject]

        matches = polled(matching, lambda found: len(found) > after, timeout=timeout, every=0.2)
        if len(matches) > after:
            return matches[after]
        raise AssertionError(f"no e-mail to {to} with {subject_contains!r} within {timeout}s")

    def count_to(self, to: str) -> int:
        with self.lock:
            return sum(1 for m in self.messages if to.lower() in m.to)
