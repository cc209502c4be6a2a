"""The completion-code check of the API (issue 39, item 5): a crowd-work requester asks whether the code a worker
pasted was given by the portal, for which test, review, worker and assignment, and whether the review stands."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import Session, select

from portal.api.errors import NotFound
from portal.domain import partners as rules
from portal.domain.staff import roles
from portal.models import PartnerEntry, Review
from portal.services.admin.guard import Caller, require_staff

MSG_NO_CODE = "No completion code like this was given."
# A review that stands: not excluded or rejected by staff.
STANDING = ("submitted", "approved")


@dataclass(frozen=True)
class CodeCheck:
    code: str
    valid: bool
    test_id: int
    review_id: int
    worker_id: str | None
    assignment_id: str | None
    status: str


def check_code(session: Session, *, actor_id: Caller, code: str) -> CodeCheck:
    """The review a completion code names (NotFound, 404, when none does; typed spaces, dashes and lower case are
    forgiven). `valid`: the review stands (submitted or approved)."""
    require_staff(session, actor_id, roles.VIEW)
    normal = rules.normal_code(code)
    review = session.exec(select(Review).where(Review.survey_code == normal)).first() if normal else None
    if review is None or normal is None:
        raise NotFound(MSG_NO_CODE, field="code")
    entry = session.exec(select(PartnerEntry).where(PartnerEntry.review_id == review.id)).first()
    data = review.worker_data or {}
    worker = (entry.worker_id if entry else None) or data.get("workerId")
    assignment = (entry.assignment_id if entry else None) or data.get("assignmentId")
    return CodeCheck(
        code=normal,
        valid=review.status in STANDING,
        test_id=review.test_id,
        review_id=review.id,
        worker_id=str(worker) if worker else None,
        assignment_id=str(assignment) if assignment else None,
        status=review.status,
    )
