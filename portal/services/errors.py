"""Typed errors raised by services. Each carries the message a user may see."""

from __future__ import annotations


class ServiceError(Exception):
    """A refusal with a user-facing message, optionally tied to a form field."""

    def __init__(self, message: str, *, field: str = "_global", errors: dict[str, str] | None = None):
        super().__init__(message)
        self.message = message
        self.field = field
        self.errors = errors or {field: message}


class SignInError(ServiceError):
    pass


class ThrottledError(ServiceError):
    pass


class NotSignedInError(ServiceError):
    pass
