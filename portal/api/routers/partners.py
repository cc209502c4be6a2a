"""/api/v1 routes of one resource (issue 39)."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(tags=["partners"])
