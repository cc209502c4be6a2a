"""All tables. Importing this package registers them on SQLModel.metadata.

Typing conventions (mypy, with tools/mypy_portal.py):
- A generated key is `id: int = Field(default=None, primary_key=True)`: the database fills it at the first
  flush, and every row the code reads or passes on has one, so it is typed `int` (as SQLAlchemy's own
  `Mapped[int]` is); `None` only until the row is flushed. The column is the same (a primary key is never
  null), so no migration follows from it.
- A field read on the class (`Invite.status`) is a column for queries, read on a row it is the value.
"""

from portal.models.account import Account, LoginIdentity
from portal.models.api import ApiKey, IdempotentRequest, WebhookDelivery, WebhookSubscription
from portal.models.audit import AuditEntry
from portal.models.auth import AuthSession, LoginAttempt, OneTimeToken
from portal.models.captcha import UsedCaptchaToken
from portal.models.flags import FeatureFlag, FeatureFlagUser
from portal.models.invite import Invite, InviteBatch
from portal.models.message import Message, MessageGroup, MessageThread
from portal.models.notification import Notification, NotificationOptOut
from portal.models.outbox import OutboxEmail
from portal.models.partner import PartnerCallback, PartnerEntry
from portal.models.problem_report import ProblemReport
from portal.models.profile import (
    ParticipantProfile,
    ProfileAudience,
    ProfileChangeRequest,
    ProfileIndustry,
    ProfileRole,
)
from portal.models.reference import Audience, CompanySize, Industry, Qualification, Role
from portal.models.referral import ReferralMember, ReferralProgram
from portal.models.review import (
    PayoutEvent,
    QualityRun,
    Review,
    ReviewAppeal,
    ReviewFlag,
    ReviewSession,
    Reward,
    ScreenerResponse,
)
from portal.models.sms import OutboxSms, PhoneContact, SmsOptIn
from portal.models.test import Test, TestQualification, TestVersion
from portal.models.two_factor import RecoveryCode, TwoFactor

__all__ = [
    "Account",
    "ApiKey",
    "Audience",
    "AuditEntry",
    "AuthSession",
    "CompanySize",
    "FeatureFlag",
    "FeatureFlagUser",
    "IdempotentRequest",
    "Industry",
    "Invite",
    "InviteBatch",
    "LoginAttempt",
    "LoginIdentity",
    "Message",
    "MessageGroup",
    "MessageThread",
    "Notification",
    "NotificationOptOut",
    "OneTimeToken",
    "OutboxEmail",
    "PartnerCallback",
    "PartnerEntry",
    "OutboxSms",
    "ParticipantProfile",
    "PayoutEvent",
    "PhoneContact",
    "ProblemReport",
    "ProfileAudience",
    "ProfileChangeRequest",
    "ProfileIndustry",
    "ProfileRole",
    "Qualification",
    "QualityRun",
    "RecoveryCode",
    "ReferralMember",
    "ReferralProgram",
    "Review",
    "ReviewAppeal",
    "ReviewFlag",
    "ReviewSession",
    "Reward",
    "Role",
    "ScreenerResponse",
    "SmsOptIn",
    "Test",
    "TestQualification",
    "TestVersion",
    "TwoFactor",
    "UsedCaptchaToken",
    "WebhookDelivery",
    "WebhookSubscription",
]
