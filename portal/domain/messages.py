"""User-facing messages of the sign-in and session areas (spec strings, and ours where it is silent)."""

EMAIL_REQUIRED = "Email is required"
PASSWORD_REQUIRED = "Password is required"
INVALID_CREDENTIALS = "Incorrect email or password."
TOO_MANY_ATTEMPTS = "Too many sign-in attempts. Please wait {minutes} minutes and try again."
SOMETHING_WENT_WRONG = "Something went wrong, please try again later"
SESSION_ENDED = "Your session has ended. Please sign in again."
PAGE_NOT_FOUND = "This page could not be found."
