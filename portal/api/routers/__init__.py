"""Every router of /api/v1, one module per resource: adding a resource is one module and one line here."""

from __future__ import annotations

from fastapi import APIRouter

from portal.api.routers import invites, keys, participants, partners, results, reviews, rewards, tests, webhooks

ROUTERS: list[APIRouter] = [
    keys.router,
    tests.router,
    invites.router,
    reviews.router,
    rewards.router,
    participants.router,
    results.router,
    webhooks.router,
    partners.router,
]
