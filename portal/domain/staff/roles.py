"""Staff roles and the permission matrix: one table, used by every staff handler and every admin page.

The spec names the roles (super-admin 'Admin', team-manager 'Team Manager', team-owner 'Team Owner')
and leaves their permissions open; the matrix below is the portal's decision (docs/decisions.md).
"""

from __future__ import annotations

from portal.domain.accounts import STAFF_ROLES

SUPER_ADMIN, TEAM_OWNER, TEAM_MANAGER = "super-admin", "team-owner", "team-manager"
ROLES: tuple[str, ...] = (SUPER_ADMIN, TEAM_OWNER, TEAM_MANAGER)
assert set(ROLES) == set(STAFF_ROLES)

# Permissions.
VIEW = "view"  # open /admin: participants, tests, reviews, rewards (read)
VERIFY = "verify"  # verify / unverify participants
CHANGE_REQUESTS = "change-requests"  # approve or decline profile change requests
DEACTIVATE = "deactivate"  # deactivate / reactivate accounts
INVITE = "invite"  # send invites to a test
DECIDE_REVIEWS = "decide-reviews"  # approve / reject reviews
CLEAR_PENDING = "clear-pending"  # clear expired pending reviews
PAY = "pay"  # mark rewards paid, failed or canceled; payout CSV
EXPORT = "export"  # reviews CSV
AUDIT = "audit"  # read the audit log
MANAGE_STAFF = "manage-staff"  # make an account staff, change or remove its role
MANAGE_TESTS = "manage-tests"  # import, export, edit tests: their fields, images and highlight areas
FLAGS = "flags"  # turn feature flags on or off, their percentage and per-user overrides
OUTBOX = "outbox"  # read the e-mail outbox and retry an e-mail now

_ALL = frozenset(ROLES)
MATRIX: dict[str, frozenset[str]] = {
    VIEW: _ALL,
    VERIFY: _ALL,
    CHANGE_REQUESTS: _ALL,
    INVITE: _ALL,
    DECIDE_REVIEWS: _ALL,
    CLEAR_PENDING: _ALL,
    EXPORT: _ALL,
    MANAGE_TESTS: _ALL,
    DEACTIVATE: frozenset({SUPER_ADMIN, TEAM_OWNER}),
    PAY: frozenset({SUPER_ADMIN, TEAM_OWNER}),
    AUDIT: frozenset({SUPER_ADMIN, TEAM_OWNER}),
    OUTBOX: frozenset({SUPER_ADMIN, TEAM_OWNER}),
    MANAGE_STAFF: frozenset({SUPER_ADMIN}),
    FLAGS: frozenset({SUPER_ADMIN}),
}
PERMISSION_LABELS: dict[str, str] = {
    VIEW: "See participants, tests, reviews and rewards",
    VERIFY: "Verify and unverify participants",
    CHANGE_REQUESTS: "Approve or decline profile change requests",
    INVITE: "Invite participants to tests",
    DECIDE_REVIEWS: "Approve or reject reviews",
    CLEAR_PENDING: "Clear expired pending reviews",
    EXPORT: "Export reviews as CSV",
    DEACTIVATE: "Deactivate and reactivate accounts",
    PAY: "Mark rewards paid, failed or canceled; export payouts",
    AUDIT: "Read the audit log",
    MANAGE_STAFF: "Make accounts staff and change their roles",
    MANAGE_TESTS: "Import, export and edit tests, their images and highlight areas",
    FLAGS: "Change feature flags",
    OUTBOX: "Read the e-mail outbox and retry e-mails",
}
assert set(PERMISSION_LABELS) == set(MATRIX)


def is_staff(role: object) -> bool:
    return isinstance(role, str) and role in ROLES


def may(role: object, permission: str) -> bool:
    """Whether a staff role has a permission (False for participants, unknown roles and permissions)."""
    return is_staff(role) and role in MATRIX.get(permission, frozenset())


def permissions_of(role: object) -> dict[str, bool]:
    """Every permission for one role: what the admin pages show or hide."""
    return {permission: may(role, permission) for permission in MATRIX}


def role_label(role: object) -> str:
    return STAFF_ROLES.get(role, "") if isinstance(role, str) else ""
