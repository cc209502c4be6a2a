"""The worker look-up of the personal-info step (spec section 4, 'Worker details loading').

A crowd-work worker types their worker ID; the details they gave in their latest review fill
the form again. The caller is a public respondent with no account, so the answer is whatever
anybody typing that ID may see:

- By worker ID: only the fields a crowd-work form shows and the worker typed themselves
  (REVEALED: firstName, state), never last name, e-mails, phone or LinkedIn even when a review
  holds them. A worker ID is an identifier the worker hands to every requester; a first name
  and a US state are the least this convenience needs.
- By e-mail: nothing, ever (None). An e-mail is typed with no proof of ownership, and any
  answer, even a first name, would tell a stranger that the address took a test. The key is
  accepted so that callers have one entry point, and it is checked like the other.

Cost: review.worker_data is a JSON column without an index on its keys (no migration here), so
the look-up cannot use an index for the ID. It reads only the newest LOOKUP_WINDOW reviews
(a primary-key range under max(id)), newest first, and stops at the first match: at most
LOOKUP_WINDOW rows' JSON is parsed whatever the size of the table. A worker whose latest review
is older than that window is not found (the form stays empty; nothing is lost but typing).
An expression index on (worker_data->>'workerId') in a later migration would make it exact.
Throttling repeated look-ups (guessing IDs) belongs to the caller (portal.services.throttle).
"""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, func, select

from portal.domain.accounts import normalize_email
from portal.domain.profile_rules import email_error
from portal.domain.taking import worker_details
from portal.models import Review

LOOKUP_WINDOW = 20_000  # the newest reviews searched
REVEALED: tuple[str, ...] = ("firstName", "state")


def _one_key(worker_id: Any, email: Any) -> tuple[str, str] | None:
    """('workerId', id) or ('email', address) when exactly one well-formed key is given."""
    if (worker_id is None) == (email is None):
        return None
    if worker_id is not None:
        cleaned = worker_details.clean_worker_id(worker_id)
        return ("workerId", cleaned) if cleaned else None
    if not isinstance(email, str) or len(email) > worker_details.MAX_LENGTHS["email"]:
        return None
    address = normalize_email(email)
    if email_error(address, required_message="-"):
        return None
    return ("email", address)


def lookup(session: Session, *, worker_id: str | None = None, email: str | None = None) -> dict[str, str] | None:
    """The revealable details of the latest review whose worker_data has this worker ID, else None.

    Exactly one of worker_id / email; anything malformed gives None. By e-mail always None (see
    the module notes). The answer holds workerId and the non-empty REVEALED fields found.
    """
    key = _one_key(worker_id, email)
    if key is None or key[0] != "workerId":
        return None
    field, value = key
    newest = session.exec(select(func.max(Review.id))).one()
    if newest is None:
        return None
    data = session.exec(
        select(Review.worker_data)
        .where(Review.id > newest - LOOKUP_WINDOW, Review.worker_data[field].as_string() == value)
        .order_by(Review.created_at.desc(), Review.id.desc())
        .limit(1)
    ).first()
    if not isinstance(data, dict):
        return None
    found = {"workerId": value}
    for name in REVEALED:
        text = data.get(name)
        if isinstance(text, str) and text.strip():
            found[name] = text.strip()[: worker_details.MAX_LENGTHS[name]]
    return found
