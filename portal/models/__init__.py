"""All tables. Importing this package registers them on SQLModel.metadata."""

from portal.models.account import Account, LoginIdentity
from portal.models.auth import AuthSession, LoginAttempt, OneTimeToken
from portal.models.captcha import UsedCaptchaToken
from portal.models.flags import FeatureFlag, FeatureFlagUser
from portal.models.audit import AuditEntry
from portal.models.invite import Invite, InviteBatch
from portal.models.outbox import OutboxEmail
from portal.models.profile import (
    ParticipantProfile,
    ProfileAudience,
    ProfileChangeRequest,
    ProfileIndustry,
    ProfileRole,
)
from portal.models.reference import Audience, CompanySize, Industry, Qualification, Role
from portal.models.referral import ReferralMember, ReferralProgram
from portal.models.review import Review, ReviewSession, Reward, ScreenerResponse
from portal.models.test import Test, TestQualification

__all__ = [
    "Account", "AuditEntry", "Audience", "AuthSession", "CompanySize", "FeatureFlag", "FeatureFlagUser",
    "Industry", "Invite", "InviteBatch", "LoginAttempt", "LoginIdentity", "OneTimeToken", "OutboxEmail",
    "ParticipantProfile", "ProfileAudience", "ProfileChangeRequest", "ProfileIndustry",
    "ProfileRole", "Qualification", "ReferralMember", "ReferralProgram", "Review",
    "ReviewSession", "Reward", "Role", "ScreenerResponse", "Test", "TestQualification", "UsedCaptchaToken",
]
