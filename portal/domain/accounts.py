"""Rules about accounts: who counts as verified, who may use private routes, staff roles."""

from __future__ import annotations

from dataclasses import dataclass

STAFF_ROLES = {"super-admin": "Admin", "team-manager": "Team Manager", "team-owner": "Team Owner"}
LOGIN_METHODS = ("email", "google", "linkedin")
COMPLETED_STAGE = "completed"


@dataclass(frozen=True)
class CurrentUser:
    """What the portal knows of the signed-in user; small and safe to keep in state."""

    account_id: int
    email: str
    work_email: str
    first_name: str
    last_name: str
    is_registration_complete: bool
    is_email_verified: bool
    is_work_email_verified: bool
    verified: bool
    stage: str
    staff_role: str | None

    @property
    def is_verified(self) -> bool:
        return is_participant_verified(
            verified=self.verified,
            stage=self.stage,
            email_verified=self.is_email_verified,
            work_email_verified=self.is_work_email_verified,
        )

    @property
    def may_use_private_routes(self) -> bool:
        return self.is_registration_complete and self.is_email_verified

    @property
    def is_staff(self) -> bool:
        return self.staff_role in STAFF_ROLES


def is_participant_verified(*, verified: bool, stage: str, email_verified: bool, work_email_verified: bool) -> bool:
    """Verified if flagged so, or if the stage is completed and both e-mails are verified."""
    return bool(verified) or (stage == COMPLETED_STAGE and email_verified and work_email_verified)


def normalize_email(email: str | None) -> str:
    return (email or "").strip().lower()


AVATAR_COLORS = ("tomato", "crimson", "plum", "violet", "indigo", "cyan", "teal", "grass", "orange", "brown")


def avatar_color(seed: str) -> str:
    """A colour picked at random per user, but the same on every page and visit."""
    import hashlib

    digest = hashlib.sha256((seed or "").encode()).digest()
    return AVATAR_COLORS[digest[0] % len(AVATAR_COLORS)]
