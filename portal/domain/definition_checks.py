"""Small helpers for validating JSON documents: typed errors that name the field path.

A `Checker` walks a parsed JSON value and collects `DefinitionError`s such as
`survey.questions[3].options: a single-choice question needs at least 2 options`
instead of stopping at the first problem.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any, TypeGuard
from urllib.parse import urlsplit


@dataclass(frozen=True)
class DefinitionError:
    """One problem: where (a dotted path with [index]es) and what, in words."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


def join(path: str, key: str | int) -> str:
    """`join('survey', 'questions')` -> 'survey.questions'; `join('x', 3)` -> 'x[3]'."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def count(n: int, noun: str) -> str:
    """'1 question', '2 questions' (nouns are given in the plural)."""
    return f"{n} {noun[:-1] if n == 1 and noun.endswith('s') else noun}"


def is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value == value  # not NaN


def is_web_url(value: Any) -> TypeGuard[str]:
    if not isinstance(value, str):
        return False
    parts = urlsplit(value.strip())
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def is_web_url_or_path(value: Any) -> TypeGuard[str]:
    """An absolute http(s) URL, or a path on this site such as '/demo/landing.png'."""
    return is_web_url(value) or (isinstance(value, str) and value.startswith("/") and not value.startswith("//"))


def is_empty(value: Any) -> bool:
    """None, false, '' or an empty list/object: what exporters write for 'not set'."""
    return value is None or value is False or (isinstance(value, str | list | dict) and not value)


class Checker:
    """Collects errors while reading fields of JSON objects: every one, or (`keep`) the first `keep`
    of them while `total` counts them all (a document with a million problems costs no million objects)."""

    def __init__(self, keep: int | None = None) -> None:
        self.errors: list[DefinitionError] = []
        self.keep = keep
        self.total = 0

    def add(self, path: str, message: str) -> None:
        self.total += 1
        if self.keep is None or len(self.errors) < self.keep:
            self.errors.append(DefinitionError(path, message))

    # --- containers ---------------------------------------------------------

    def obj(self, value: Any, path: str, allowed: Collection[str]) -> dict[str, Any] | None:
        """`value` as an object, reporting keys outside `allowed`; None (and an error) if not an object."""
        if not isinstance(value, dict):
            self.add(path, "must be an object")
            return None
        for key in value:
            if key not in allowed:
                self.add(join(path, str(key)), "unknown field")
        return value

    def optional_obj(self, data: dict[str, Any], key: str, path: str, allowed: Collection[str]) -> dict[str, Any]:
        value = data.get(key)
        if value is None:
            return {}
        return self.obj(value, join(path, key), allowed) or {}

    def array(
        self,
        data: dict[str, Any],
        key: str,
        path: str,
        *,
        min_items: int = 0,
        max_items: int | None = None,
        what: str = "items",
        required: bool = False,
    ) -> list[Any]:
        """A list field; `min_items`/`max_items` give messages such as 'needs at least 2 options'."""
        field_path = join(path, key)
        value = data.get(key)
        if value is None:
            if required or min_items:
                self.add(field_path, f"is required (at least {count(max(min_items, 1), what)})")
            return []
        if not isinstance(value, list):
            self.add(field_path, "must be a list")
            return []
        if len(value) < min_items:
            self.add(field_path, f"needs at least {count(min_items, what)}")
        if max_items is not None and len(value) > max_items:
            self.add(field_path, f"can have at most {max_items} {what}")
        return value

    # --- scalars --------------------------------------------------------------

    def string(
        self,
        data: dict[str, Any],
        key: str,
        path: str,
        *,
        required: bool = False,
        max_length: int | None = None,
    ) -> str | None:
        value = data.get(key)
        field_path = join(path, key)
        if value is None or (isinstance(value, str) and not value.strip() and required):
            if required:
                self.add(field_path, "is required")
            return None
        if not isinstance(value, str):
            self.add(field_path, "must be text")
            return None
        if max_length is not None and len(value) > max_length:
            self.add(field_path, f"must be at most {max_length} characters")
        return value

    def boolean(self, data: dict[str, Any], key: str, path: str, default: bool = False) -> bool:
        value = data.get(key)
        if value is None:
            return default
        if not isinstance(value, bool):
            self.add(join(path, key), "must be true or false")
            return default
        return value

    def integer(
        self,
        data: dict[str, Any],
        key: str,
        path: str,
        *,
        default: int | None = None,
        minimum: int | None = None,
        maximum: int | None = None,
        required: bool = False,
    ) -> int | None:
        value = data.get(key)
        field_path = join(path, key)
        if value is None:
            if required:
                self.add(field_path, "is required")
            return default
        if not is_int(value):
            self.add(field_path, "must be a whole number")
            return default
        if minimum is not None and value < minimum:
            self.add(field_path, f"must be at least {minimum}")
        if maximum is not None and value > maximum:
            self.add(field_path, f"must be at most {maximum}")
        return value

    def choice(
        self,
        data: dict[str, Any],
        key: str,
        path: str,
        choices: Iterable[Any],
        *,
        default: Any = None,
        required: bool = False,
    ) -> Any:
        options = tuple(choices)
        value = data.get(key)
        field_path = join(path, key)
        if value is None:
            if required:
                self.add(field_path, f"is required (one of {_listing(options)})")
            return default
        if value not in options or isinstance(value, bool):
            self.add(field_path, f"must be one of {_listing(options)}, got {value!r}")
            return default
        return value

    def url(
        self, data: dict[str, Any], key: str, path: str, *, required: bool = False, allow_path: bool = False
    ) -> str | None:
        value = data.get(key)
        field_path = join(path, key)
        if value in (None, ""):
            if required:
                self.add(field_path, "is required")
            return None
        ok = is_web_url_or_path(value) if allow_path else is_web_url(value)
        if not ok:
            expected = "an http(s) URL or a site path starting with '/'" if allow_path else "an http(s) URL"
            self.add(field_path, f"must be {expected}")
            return None
        return str(value)

    def texts(self, data: dict[str, Any], path: str, keys: Iterable[str]) -> None:
        """Optional text fields of a small object (titles, descriptions, labels)."""
        for key in keys:
            self.string(data, key, path)

    def unique(self, values: Iterable[tuple[str, Any]], what: str) -> None:
        """Report each (path, value) whose value was already seen."""
        seen: set[Any] = set()
        for path, value in values:
            if value is None:
                continue
            if value in seen:
                self.add(path, f"duplicate {what} {value!r}")
            seen.add(value)


def _listing(options: tuple[Any, ...]) -> str:
    return ", ".join(str(o) for o in options)
