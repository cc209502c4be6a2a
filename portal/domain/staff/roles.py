"""Staff roles and the permission matrix: one table, used by every staff handler and every admin page.

The spec names the roles (super-admin 'Admin', team-manager 'Team Manager', team-owner 'Team Owner')
and leaves their permissions open; the matrix below is the portal's decision (docs/decisions.md).
"""

from __future__ import annotations

from typing import TypeGuard

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
EDIT_PROFILES = "edit-profiles"  # open and change a participant's profile (/admin/participants/{id})
MESSAGE = "message"  # read and write messages with participants, one at a time or to a filtered group
API_KEYS = "api-keys"  # create and revoke the REST API's keys (issue 39)
WEBHOOKS = "webhooks"  # read the webhook delivery log and replay a delivery (issue 39)

_ALL = frozenset(ROLES)
MATRIX: dict[str, frozenset[str]] = {
    VIEW: _ALL,
    VERIFY: _ALL,
    EDIT_PROFILES: _ALL,
    CHANGE_REQUESTS: _ALL,
    INVITE: _ALL,
    MESSAGE: _ALL,
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
    API_KEYS: frozenset({SUPER_ADMIN}),
    WEBHOOKS: frozenset({SUPER_ADMIN, TEAM_OWNER}),
}
PERMISSION_LABELS: dict[str, str] = {
    VIEW: "See participants, tests, reviews and rewards",
    VERIFY: "Verify and unverify participants",
    EDIT_PROFILES: "Change participants' profiles",
    CHANGE_REQUESTS: "Approve or decline profile change requests",
    INVITE: "Invite participants to tests",
    MESSAGE: "Message participants, one at a time or a filtered group",
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
    API_KEYS: "Create and revoke API keys",
    WEBHOOKS: "Read webhook deliveries and replay them",
}
assert set(PERMISSION_LABELS) == set(MATRIX)


def is_staff(role: object) -> TypeGuard[str]:
    return isinstance(role, str) and role in ROLES


def may(role: object, permission: str) -> bool:
    """Whether a staff role has a permission (False for participants, unknown roles and permissions)."""
    return is_staff(role) and role in MATRIX.get(permission, frozenset())


def permissions_of(role: object) -> dict[str, bool]:
    """Every permission for one role: what the admin pages show or hide."""
    return {permission: may(role, permission) for permission in MATRIX}


def role_label(role: object) -> str:
    return STAFF_ROLES.get(role, "") if isinstance(role, str) else ""


# Who may change whose account: a rank per role (participants are 0). Staff change only accounts of a lower
# rank than their own; a super-admin changes any account but their own role. A staff account's e-mail and
# password are changed only by its owner or a super-admin (docs/decisions.md, "One door for staff").
RANK: dict[str | None, int] = {None: 0, TEAM_MANAGER: 1, TEAM_OWNER: 2, SUPER_ADMIN: 3}
HIGHER_ROLE = "You cannot change an account whose role is the same as yours or higher."
STAFF_CREDENTIALS = "Only its owner or an admin can change a staff account's e-mail or password."


def rank(role: object) -> int:
    return RANK.get(role, 0) if isinstance(role, str) or role is None else 0


def may_change_account(actor_role: object, target_role: object) -> bool:
    """Whether a staff member may change another account (its profile, e-mail, verification, status)."""
    if not is_staff(actor_role):
        return False
    return actor_role == SUPER_ADMIN or rank(target_role) < rank(actor_role)


def may_change_credentials(actor_role: object, target_role: object, *, own: bool) -> bool:
    """A staff account's e-mail or password: its owner or a super-admin; a participant's: whoever may change it."""
    if own:
        return True
    if is_staff(target_role):
        return actor_role == SUPER_ADMIN
    return may_change_account(actor_role, target_role)
