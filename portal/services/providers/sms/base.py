"""The SMS provider interface (issue 38): send a text, check an incoming text's signature."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol


class SmsError(Exception):
    """A text was not accepted. `permanent`: trying again will not help (a bad or unsubscribed number)."""

    def __init__(self, message: str, *, permanent: bool = False) -> None:
        super().__init__(message)
        self.message, self.permanent = message, permanent


class SmsProvider(Protocol):
    def send(self, *, to: str, body: str) -> str:
        """Send `body` to `to` (E.164); the provider's id of the message. SmsError when it is not accepted."""
        ...

    def valid_incoming(self, *, url: str, params: Mapping[str, str], signature: str) -> bool:
        """Whether an incoming text's webhook was signed by the provider."""
        ...
