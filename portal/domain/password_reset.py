"""Password recovery: the screens' texts and the rule for a usable reset link. Pure."""

from __future__ import annotations

from datetime import datetime

PURPOSE = "reset-password"
RESET_PATH = "/reset"
FORGOT_PATH = "/forgot"

# Spec strings.
LINK_USED = "Link has been already used. Please try again"
FORGOT_TITLE = "Forgot your Password?"
FORGOT_PROMPT = "Please enter your email address."
SEND_BUTTON = "Send Me Reset Link"
SENT_TITLE = "Reset link is sent"
CREATE_TITLE = "Create new password"
CHANGE_BUTTON = "Change Password"

# Ours, where the spec is silent.
SENT_TEXT = "We have sent a link to reset your password to {email}. It works once and expires in {minutes} minutes."
EMAIL_INVALID = "Please enter a valid email address"
TOO_MANY_REQUESTS = "Too many password reset requests. Please wait {minutes} minutes and try again."
RESET_DONE = "Your password has been changed. Please sign in with your new password."


def link_usable(
    *,
    created_at: datetime,
    expires_at: datetime,
    used_at: datetime | None,
    password_changed_at: datetime | None,
    now: datetime,
) -> bool:
    """Single use, not expired, and issued after the account's last password change."""
    if used_at is not None or now >= expires_at:
        return False
    return password_changed_at is None or created_at >= password_changed_at
