"""Every router of /api/v1, one module per resource: adding a resource is one module and one line here."""

from __future__ import annotations

from fastapi import APIRouter

from portal.api.routers import keys

ROUTERS: list[APIRouter] = [keys.router]
