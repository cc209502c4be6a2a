"""The staff pages. Importing this package declares every one of them (components/admin_pages.py), in
the order of the admin menu."""

from portal.pages.admin import (  # noqa: F401 - each module declares its pages
    api_keys,
    appeals,
    areas,
    audit,
    builder,
    editing,
    flags,
    images,
    messages,
    outbox,
    participants,
    preview,
    problem_reports,
    profile,
    results,
    reviews,
    rewards,
    tax,
    tests,
    versions,
    webhooks,
)
