"""Free text in a request body, refused when it holds characters the portal does not keep (portal/domain/text.py:
control characters other than tab and line breaks, lone surrogates; PostgreSQL refuses a NUL), with the message the
JSON bodies of the HTTP API give (portal/domain/json_text.py)."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator
from pydantic_core import PydanticCustomError

from portal.domain import json_text
from portal.domain.text import clean_text

BAD_CHARACTERS = json_text.bad_characters("text")


def _clean(value: str) -> str:
    if clean_text(value) != value:
        raise PydanticCustomError("bad_characters", BAD_CHARACTERS)
    return value


Text = Annotated[str, AfterValidator(_clean)]
