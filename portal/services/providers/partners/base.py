"""What the partner clients raise."""

from __future__ import annotations


class PartnerError(Exception):
    """A partner did not answer as agreed. `permanent`: trying again will not help (a 4xx other than 408/429)."""

    def __init__(self, message: str, *, permanent: bool = False) -> None:
        super().__init__(message)
        self.message, self.permanent = message, permanent


def failure(status: int, text: str) -> PartnerError:
    """The error for an HTTP answer that is not a success."""
    permanent = 400 <= status < 500 and status not in (408, 409, 425, 429)
    return PartnerError(f"HTTP {status}: {text[:200]}", permanent=permanent)
