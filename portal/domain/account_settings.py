"""Account settings (issue 40, item 1): the wording of the page and of its answers, in one place."""

from __future__ import annotations

PATH = "/account"
TITLE = "Account settings"

PASSWORD_HEADING = "Password"
PASSWORD_HINT = "Changing it signs you out on every other device. We e-mail you to say it was changed."
NO_PASSWORD = (
    "You sign in with LinkedIn or Google, so there is no password to change. To set one, use "
    "'Forgot password?' on the sign-in page with your e-mail address."
)
CURRENT_FIELD = "currentPassword"
CURRENT_LABEL = "Current Password"
CURRENT_REQUIRED = "Current password is required"
CURRENT_WRONG = "Current password is incorrect"
TOO_MANY_WRONG = "Too many incorrect passwords. Please wait {minutes} minutes and try again."
CHANGE_BUTTON = "Change Password"
CHANGED = "Your password was changed. Every other device was signed out."

SESSIONS_HEADING = "Where you are signed in"
SESSIONS_HINT = "Sign out a device you do not recognise, or every device but this one."
THIS_DEVICE = "This device"
SIGN_OUT = "Sign out"
SIGN_OUT_OTHERS = "Sign out everywhere else"
SIGNED_OUT_ONE = "That device was signed out."
SIGNED_OUT_OTHERS = "Every other device was signed out."
NO_OTHER_SESSIONS = "You are not signed in anywhere else."
SESSION_GONE = "That device is no longer signed in."

# Wrong current passwords before the form waits (per account, in the sign-in window).
MAX_WRONG_CURRENT = 5
