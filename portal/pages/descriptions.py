"""One sentence per page for its <meta name="description"> (search results, link previews), by route.

Staff pages have none of their own: anyone but staff gets the not-found page at their address, and
the page's HTML is the same for everyone, so they carry the not-found description (portal/portal.py)."""

from __future__ import annotations

from portal.pages.rate import ROUTE as RATE_ROUTE

DESCRIPTIONS: dict[str, str] = {
    "/sign-in": "Sign in to the Participants Portal to take paid tests of B2B messaging and follow your rewards.",
    "/sign-up": "Sign up as a participant: review B2B messaging in short paid tests and get paid for each one.",
    "/sign-up/finish": "Finish your registration: your details, your work e-mail and your professional profile.",
    "/existing-account": "You already have an account with this e-mail: sign in to it to continue.",
    "/verify-account": "Verify your account: confirm your e-mail address to start receiving paid test invites.",
    "/linkedin-connect": "Connect your LinkedIn profile to your participant account.",
    "/site-decider": "Recover your password: choose whether you use the participant portal or the customer app.",
    "/forgot": "Forgot your password? Enter your e-mail and we will send you a link to create a new one.",
    "/reset": "Create a new password for your participant account.",
    "/": "Your paid test invites, the tests you completed and the rewards you earned.",
    "/profile": "Your participant profile: personal details, work, e-mail addresses and connected accounts.",
    "/demo": "Live demo meetings: say whether you would join paid live product demos.",
    "/two-factor": "Enter the code from your authenticator app to finish signing in.",
    "/account/delete": "Confirm deleting your account.",
    "/account": "Your account settings: your password, two-factor sign-in, where you are signed in and your data.",
    "/notifications": "Choose which e-mails the portal sends you: invites, reminders, decisions and rewards.",
    "/messages": "Your messages with the research team: questions about a test, and their replies.",
    "/referral": "Invite colleagues to the participant community and earn a reward for each one paid for a first test.",
    RATE_ROUTE: (
        "Take a paid test: read the message, answer the questions and submit your review before the time runs out."
    ),
    "/thank-you": "Thanks for signing up: what happens next and how to make sure our invites reach your inbox.",
    "404": "This page could not be found on the Participants Portal.",
}
