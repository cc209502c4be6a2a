"""Every staff event handler, sent as raw websocket events by anonymous visitors, participants and each
staff role: what happens matches the permission matrix (portal/domain/staff/roles.py) in every cell.

Each caller gets one tab and sends, in order, every public handler of every admin state (the list is
checked against the states themselves, so a new handler cannot be missed). Each action works on rows
made for this caller alone, and the test then reads the database (or the frames the tab received, for
reading and downloads) to see whether it took effect. Allowed and effective must be the same thing.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update
from sqlmodel import Session, select

from portal.domain.staff import roles
from portal.models import (
    Account,
    AuditEntry,
    Invite,
    ParticipantProfile,
    ProfileChangeRequest,
    Review,
    ReviewSession,
    Reward,
)
from portal.models._base import utcnow
from portal.states.admin.audit import AuditLogState
from portal.states.admin.guard import StaffState
from portal.states.admin.participants import AdminParticipantsState, ChangeRequestsState
from portal.states.admin.reviews import AdminReviewsState
from portal.states.admin.rewards import AdminRewardsState
from portal.states.admin.tests import AdminTestsState, InviteState
from tests.support.people import Person, caller, demo_test, person
from tests.support.polling import polled
from tests.support.raw_tab import RawTab, run, tracebacks

P, C, T, I, R, W, A, G = (
    s.get_full_name()
    for s in (
        AdminParticipantsState,
        ChangeRequestsState,
        AdminTestsState,
        InviteState,
        AdminReviewsState,
        AdminRewardsState,
        AuditLogState,
        StaffState,
    )
)
CALLERS = ("anonymous", "participant", *roles.ROLES)
CHECKED_TOAST = "Quality flags checked."  # AdminReviewsState.check_flags's toast
TABLE_READS = (
    "load",
    "set_page",
    "next_page",
    "previous_page",
    "set_page_size",
    "sort",
    "search",
    "apply_filters",
    "confirm_range",
    "reset_filters",
)
TABLE_VIEW_ONLY = (
    "toggle_filters",
    "toggle_filter_value",
    "set_filter_mode",
    "set_range_from",
    "set_range_to",
    "cancel_range",
    "clear_selection",
    "toggle_selected",
    "log_render_failure",
)


@dataclass
class World:
    """Rows made for one caller: each action has its own target."""

    test_id: int
    marker_email: str  # a participant only staff tables may show
    verify_id: int
    verify_email: str
    deactivate_id: int
    deactivate_email: str
    role_id: int
    role_email: str
    request_id: int
    requester_email: str
    invitee_email: str
    invitee_id: int
    approve_review: int
    reject_review: int
    payable_reward: int  # made again just before the rewards page (act's `payable`)
    audit_marker: str
    expired_session: int
    exclude_review: int


def _review(db: Session, test_id: int, who: Account, approved: bool = False) -> tuple[Review, Reward]:
    review = Review(
        test_id=test_id,
        account_id=who.id,
        respondent_key=f"account:{who.id}",
        kind="survey",
        answers={"0": {"type": "long-text", "value": '=HYPERLINK("x") and more words'}},
    )
    db.add(review)
    db.flush()
    reward = Reward(
        review_id=review.id,
        account_id=who.id,
        amount_cents=1500,
        status="PENDING",
        approved_at=utcnow() if approved else None,
    )
    db.add(reward)
    db.flush()
    return review, reward


def make_world(db: Session) -> World:
    test = demo_test(db, "01-survey.json")
    people = [person(db, verified=False) for _ in range(8)]
    accounts = [db.get(Account, p.account_id) for p in people]
    marker, verify, deactivate, role, requester, invitee, reviewer1, reviewer2 = accounts
    # The invitee is someone the server invites: verified, in the test's audience country.
    invitee.verified = True
    db.add(invitee)
    db.execute(
        update(ParticipantProfile)
        .where(ParticipantProfile.account_id == invitee.id)
        .values(country=test.audience_country)
    )
    request = ProfileChangeRequest(account_id=requester.id, payload={}, previous={"firstName": "Old"}, status="pending")
    db.add(request)
    approve, _ = _review(db, test.id, reviewer1)
    reject, _ = _review(db, test.id, reviewer2)
    _, payable = _review(db, demo_test(db, "01-survey.json").id, reviewer1, approved=True)
    exclude, _ = _review(db, demo_test(db, "01-survey.json").id, reviewer2)
    audit_marker = f"marker-{uuid.uuid4().hex[:10]}"
    db.add(
        AuditEntry(
            actor_email="someone@example.com",
            actor_role="super-admin",
            action="participant.verify",
            target_type="account",
            target_id=audit_marker,
        )
    )
    expired = ReviewSession(
        test_id=test.id,
        account_id=invitee.id,
        respondent_key=f"account:{invitee.id}",
        deadline_at=utcnow() - timedelta(minutes=5),
        status="active",
    )
    db.add(expired)
    db.commit()
    return World(
        test.id,
        marker.email,
        verify.id,
        verify.email,
        deactivate.id,
        deactivate.email,
        role.id,
        role.email,
        request.id,
        requester.email,
        invitee.email,
        invitee.id,
        approve.id,
        reject.id,
        payable.id,
        audit_marker,
        expired.id,
        exclude.id,
    )


async def act(base: str, cookie: str, w: World, payable: Callable[[], int] | None = None) -> dict[str, str]:
    """Every admin handler, in an order a person could use them; returns the frames seen per read.
    Each admin page is opened in a tab of its own (the same person's cookie). `payable` makes the approved reward
    to mark paid just before the rewards page: the payout job orders approved rewards from the provider and its
    stand-in pays them seconds later (issue 37), so one made at the start could be paid before staff mark it."""
    seen: dict[str, str] = {}
    tab = RawTab(base, cookie=cookie)

    async def page(path: str, params: dict[str, str] | None = None) -> RawTab:
        nonlocal tab
        if tab.received or tab.seq:
            await tab.close()
            tab = RawTab(base, cookie=cookie)
        await tab.open(path, params, settle=0.3)
        return tab

    async def send(name: str, payload: dict[str, Any] | None = None, settle: float = 0.2) -> None:
        await tab.answer(name, payload or {}, settle=settle)

    def mark(key: str) -> None:
        seen[key] = tab.text()
        tab.received.clear()

    await page("/admin/participants")
    await send(f"{G}.guard")
    for name in TABLE_READS:  # reading the participants table, in every way it can be asked
        payload = {
            "set_page": {"page": 1},
            "set_page_size": {"size": 100},
            "sort": {"column": "email"},
            "search": {"text": w.marker_email},
        }.get(name, {})
        await send(f"{P}.{name}", payload)
    mark("participants")
    for name in TABLE_VIEW_ONLY:
        payload = {
            "toggle_filter_value": {"name": "verified", "value": "no"},
            "set_filter_mode": {"name": "country", "mode": "exclude"},
            "set_range_from": {"value": "2020-01-01"},
            "set_range_to": {"value": "2020-01-02"},
            "toggle_selected": {"row_id": "1"},
            "log_render_failure": {"error": "x", "component_stack": "y"},
        }.get(name, {})
        await send(f"{P}.{name}", payload)
    await send(f"{P}.reset_filters")
    # Bulk verify: find the row, select it, ask, confirm.
    await send(f"{P}.search", {"text": w.verify_email})
    await send(f"{P}.toggle_selected", {"row_id": str(w.verify_id)})
    await send(f"{P}.select_page")
    await send(f"{P}.select_page")
    await send(f"{P}.ask", {"action": "verify"})
    await send(f"{P}.cancel")
    await send(f"{P}.ask", {"action": "verify"})
    await send(f"{P}.confirm")
    await send(f"{P}.reactivate", {"account_id": str(w.deactivate_id)})  # active already: nothing to do
    await send(f"{P}.search", {"text": w.deactivate_email})
    await send(f"{P}.ask_deactivate", {"account_id": str(w.deactivate_id)})
    await send(f"{P}.cancel_deactivate")
    await send(f"{P}.ask_deactivate", {"account_id": str(w.deactivate_id)})
    await send(f"{P}.confirm_deactivate")
    await send(f"{P}.search", {"text": w.role_email})
    await send(f"{P}.open_role", {"account_id": str(w.role_id), "current": "participant"})
    await send(f"{P}.choose_role", {"role": "team-manager"})
    await send(f"{P}.close_role")
    await send(f"{P}.open_role", {"account_id": str(w.role_id), "current": "participant"})
    await send(f"{P}.choose_role", {"role": "team-manager"})
    await send(f"{P}.save_role")
    # Change requests.
    await page("/admin/participants/changes")
    await send(f"{C}.load")
    mark("changes")
    await send(f"{C}.decide", {"request_id": str(w.request_id), "approve": True})
    # Tests list.
    await page("/admin/tests")
    for name in (*TABLE_READS, *TABLE_VIEW_ONLY):
        payload = {
            "set_page": {"page": 1},
            "set_page_size": {"size": 20},
            "sort": {"column": "name"},
            "search": {"text": "Demo"},
            "toggle_filter_value": {"name": "status", "value": "running"},
            "set_filter_mode": {"name": "status", "mode": "list"},
            "set_range_from": {"value": "2020-01-01"},
            "set_range_to": {"value": "2020-01-02"},
            "toggle_selected": {"row_id": "1"},
            "log_render_failure": {"error": "x", "component_stack": "y"},
        }.get(name, {})
        await send(f"{T}.{name}", payload)
    mark("tests")
    # Invites: the participants table narrowed to the invitee, then the invite panel.
    await page(f"/admin/tests/{w.test_id}/invite", {"test_id": str(w.test_id)})
    await send(f"{I}.load_page")
    for name in (*TABLE_READS, *TABLE_VIEW_ONLY):
        payload = {
            "set_page": {"page": 1},
            "set_page_size": {"size": 100},
            "sort": {"column": "email"},
            "search": {"text": w.invitee_email},
            "toggle_filter_value": {"name": "verified", "value": "no"},
            "set_filter_mode": {"name": "country", "mode": "exclude"},
            "set_range_from": {"value": "2020-01-01"},
            "set_range_to": {"value": "2020-01-02"},
            "toggle_selected": {"row_id": "1"},
            "log_render_failure": {"error": "x", "component_stack": "y"},
        }.get(name, {})
        await send(f"{I}.{name}", payload)
    await send(f"{I}.reset_filters")
    await send(f"{I}.search", {"text": w.invitee_email})
    await send(f"{I}.recount")
    await send(f"{I}.set_override", {"text": "30"})
    await send(f"{I}.ask")
    await send(f"{I}.cancel")
    await send(f"{I}.ask")
    tab.emit(f"{I}.send", {})  # a background event: its updates come as it sends
    await tab.drain(2.5)
    mark("invite")
    # Reviews.
    await page("/admin/reviews", {"test": str(w.test_id)})
    await send(f"{R}.load_page")
    seen["reviews-load"] = tab.text()  # ?test=ID: when the test's quality flags were checked (staff only)
    for name in (*TABLE_READS, *TABLE_VIEW_ONLY):
        payload = {
            "set_page": {"page": 1},
            "set_page_size": {"size": 50},
            "sort": {"column": "createdOn"},
            "search": {"text": ""},
            "toggle_filter_value": {"name": "status", "value": "submitted"},
            "set_filter_mode": {"name": "status", "mode": "list"},
            "set_range_from": {"value": "2020-01-01"},
            "set_range_to": {"value": "2020-01-02"},
            "toggle_selected": {"row_id": str(w.approve_review)},
            "log_render_failure": {"error": "x", "component_stack": "y"},
        }.get(name, {})
        await send(f"{R}.{name}", payload)
    await send(f"{R}.load_page")
    await send(f"{R}.open_review", {"review_id": str(w.approve_review)})
    mark("reviews")
    await send(f"{R}.check_flags", settle=0.5)  # 'Check flags now' for the test of ?test=ID
    mark("reviews-check-flags")
    await send(f"{R}.close_review")
    await send(f"{R}.approve", {"review_id": str(w.approve_review)})
    await send(f"{R}.toggle_selected", {"row_id": str(w.approve_review)})
    await send(f"{R}.ask_approve")
    await send(f"{R}.cancel_approve")
    await send(f"{R}.ask_approve")
    await send(f"{R}.approve_selected")
    await send(f"{R}.ask_reject", {"review_id": str(w.reject_review)})
    await send(f"{R}.set_reject_reason", {"reason": "low-effort"})
    await send(f"{R}.set_reject_note", {"note": "one word answers"})
    await send(f"{R}.cancel_reject")
    await send(f"{R}.ask_reject", {"review_id": str(w.reject_review)})
    await send(f"{R}.set_reject_reason", {"reason": "low-effort"})
    await send(f"{R}.toggle_reject_flag", {"key": "speeder"})
    await send(f"{R}.set_reject_evidence", {"text": "43 s for a 15-minute test"})
    await send(f"{R}.confirm_reject")
    await send(f"{R}.ask_exclude", {"review_id": str(w.exclude_review)})
    await send(f"{R}.cancel_exclude")
    await send(f"{R}.ask_exclude", {"review_id": str(w.exclude_review)})
    await send(f"{R}.exclude_selected")
    tab.received.clear()
    await send(f"{R}.export_csv", settle=0.5)
    mark("reviews-csv")
    await send(f"{R}.clear_pending")
    # Rewards.
    if payable is not None:
        w.payable_reward = await asyncio.to_thread(payable)
    await page("/admin/rewards")
    await send(f"{W}.load_page")
    for name in (*TABLE_READS, *TABLE_VIEW_ONLY):
        payload = {
            "set_page": {"page": 1},
            "set_page_size": {"size": 100},
            "sort": {"column": "amount"},
            "search": {"text": ""},
            "toggle_filter_value": {"name": "payable", "value": "yes"},
            "set_filter_mode": {"name": "payable", "mode": "list"},
            "set_range_from": {"value": "2020-01-01"},
            "set_range_to": {"value": "2020-01-02"},
            "toggle_selected": {"row_id": str(w.payable_reward)},
            "log_render_failure": {"error": "x", "component_stack": "y"},
        }.get(name, {})
        await send(f"{W}.{name}", payload)
    mark("rewards")
    await send(f"{W}.toggle_selected", {"row_id": str(w.payable_reward)})
    await send(f"{W}.ask", {"status": "FAILED"})
    await send(f"{W}.cancel")
    await send(f"{W}.ask_one", {"reward_id": str(w.payable_reward), "status": "EXECUTED"})  # opens the confirmation
    await send(f"{W}.confirm")
    tab.received.clear()
    await send(f"{W}.export_payouts", settle=0.5)
    mark("payouts-csv")
    # Audit log.
    await page("/admin/audit")
    for name in (*TABLE_READS, *TABLE_VIEW_ONLY):
        payload = {
            "set_page": {"page": 1},
            "set_page_size": {"size": 50},
            "sort": {"column": "createdOn"},
            "search": {"text": w.audit_marker},
            "toggle_filter_value": {"name": "action", "value": "participant.verify"},
            "set_filter_mode": {"name": "action", "mode": "list"},
            "set_range_from": {"value": "2020-01-01"},
            "set_range_to": {"value": "2020-01-02"},
            "toggle_selected": {"row_id": "1"},
            "log_render_failure": {"error": "x", "component_stack": "y"},
        }.get(name, {})
        await send(f"{A}.{name}", payload)
    await send(f"{A}.search", {"text": w.audit_marker})
    mark("audit")
    await tab.close()
    return seen


async def act_as(base: str, who: Person, w: World, payable: Callable[[], int] | None = None) -> dict[str, str]:
    return await act(base, who.cookie, w, payable)


def _effects(db: Session, w: World) -> dict[str, bool]:
    """What took effect, read from the database."""
    verify = db.get(Account, w.verify_id)
    deactivate = db.get(Account, w.deactivate_id)
    role = db.get(Account, w.role_id)
    request = db.get(ProfileChangeRequest, w.request_id)
    invite = db.exec(select(Invite).where(Invite.test_id == w.test_id, Invite.account_id == w.invitee_id)).first()
    approved = db.get(Review, w.approve_review)
    rejected = db.get(Review, w.reject_review)
    excluded = db.get(Review, w.exclude_review)
    paid = db.get(Reward, w.payable_reward)
    # Marked paid by staff: the payout job may pay the approved reward through the provider meanwhile (issue 37),
    # which sets EXECUTED too, so the staff's own mark is read from the audit log.
    marked_by_staff = db.exec(
        select(AuditEntry).where(
            AuditEntry.action == "reward.pay",
            AuditEntry.target_id == str(w.payable_reward),
            AuditEntry.actor_role != "",
        )
    ).first()
    session = db.get(ReviewSession, w.expired_session)
    return {
        roles.VERIFY: verify.verified,
        roles.DEACTIVATE: deactivate.removed_at is not None,
        roles.MANAGE_STAFF: role.staff_role == "team-manager",
        roles.CHANGE_REQUESTS: request.status != "pending",
        roles.INVITE: invite is not None and invite.amount_cents == 3000,
        roles.DECIDE_REVIEWS: approved.status == "approved"
        and rejected.status == "rejected"
        and rejected.reject_reason == "low-effort"
        and rejected.reject_flags == ["speeder"]
        and rejected.reject_evidence == "43 s for a 15-minute test"
        and excluded.status == "excluded",
        roles.CLEAR_PENDING: session.status == "cleared",
        roles.PAY: paid.status == "EXECUTED" and marked_by_staff is not None,
    }


def _reads(seen: dict[str, str], w: World) -> dict[str, bool]:
    """What the tab was shown: rows of the staff tables, the CSV downloads."""
    return {
        # Rows, not the search text the tab itself sent (kept as typed): the work e-mail and the audit target.
        roles.VIEW: f"work-{w.marker_email}" in seen["participants"]
        and "Demo: Survey" in seen["tests"]
        and "HYPERLINK" in seen["reviews"],
        "view-rewards": "$15" in seen["rewards"],
        "change-requests-read": w.requester_email in seen["changes"],
        roles.EXPORT: "reviews-test-" in seen["reviews-csv"],
        "pay-export": "payouts.csv" in seen["payouts-csv"],
        roles.AUDIT: f"account {w.audit_marker}" in seen["audit"],
        # The flags_checked text of load_page (?test=ID) and the toast of check_flags.
        "flags-checked-read": "Quality flags" in seen["reviews-load"],
        "check-flags": CHECKED_TOAST in seen["reviews-check-flags"],
    }


@pytest.mark.parametrize("kind", CALLERS)
def test_every_staff_handler_does_exactly_what_the_callers_role_may(app_server, kind):
    with app_server.db() as db:
        w = make_world(db)
        who = caller(db, kind)
    role = kind if kind in roles.ROLES else None
    log_start = app_server.log_path.stat().st_size

    def payable() -> int:
        with app_server.db() as db:
            owner = db.get(Account, person(db).account_id)
            _, reward = _review(db, demo_test(db, "01-survey.json").id, owner, approved=True)
            db.commit()
            return reward.id

    seen = run(act_as(app_server.url, who, w, payable))
    # The invite is sent in the background: when the role may invite, wait for it to land (polled); the
    # cells are read from the last look either way.
    may_invite = roles.may(role, roles.INVITE)
    with app_server.db() as db:

        def effects() -> dict[str, bool]:
            db.expire_all()
            return _effects(db, w)

        done = polled(effects, lambda found: not may_invite or found[roles.INVITE], timeout=30)
    shown = _reads(seen, w)
    cells = {
        **{p: (done[p], roles.may(role, p)) for p in done},
        **{p: (shown[p], roles.may(role, p)) for p in (roles.VIEW, roles.EXPORT, roles.AUDIT)},
        "view-rewards": (shown["view-rewards"], roles.may(role, roles.VIEW)),
        "change-requests-read": (shown["change-requests-read"], roles.may(role, roles.CHANGE_REQUESTS)),
        "pay-export": (shown["pay-export"], roles.may(role, roles.PAY)),
        "flags-checked-read": (shown["flags-checked-read"], roles.may(role, roles.VIEW)),
        "check-flags": (shown["check-flags"], roles.may(role, roles.VIEW)),
    }
    wrong = {
        cell: f"took effect={effect}, allowed={allowed}"
        for cell, (effect, allowed) in cells.items()
        if effect != allowed
    }
    assert not wrong, f"{kind}: {wrong}"
    # every permission of the matrix is a checked cell (part 2's: tests/security/test_admin_*_authorization.py)
    # (edit-profiles: tests/security/test_admin_profile_authorization.py; message: test_admin_messages_authorization.py;
    # api-keys and webhooks: test_admin_api_keys_authorization.py and test_admin_webhooks_authorization.py)
    others = {
        roles.MANAGE_TESTS,
        roles.FLAGS,
        roles.OUTBOX,
        roles.EDIT_PROFILES,
        roles.MESSAGE,
        roles.API_KEYS,
        roles.WEBHOOKS,
    }
    assert set(roles.MATRIX) - others <= set(cells)
    if role is None:  # nothing of the staff side reached a non-staff tab
        everything = "".join(seen.values())
        assert f"work-{w.marker_email}" not in everything and f"account {w.audit_marker}" not in everything
        assert "Quality flags" not in everything
    log = app_server.log_path.read_bytes()[log_start:].decode(errors="replace")
    assert tracebacks(log) == [], kind


# The tests list's own handlers (import, export, New test, Duplicate, ...): sent by the scenario of
# test_admin_tests_authorization.py, which checks it sends them.
TESTS_PART_TWO = frozenset(
    h
    for h in AdminTestsState.event_handlers
    if f'{{T}}.{h}"' in (Path(__file__).parent / "test_admin_tests_authorization.py").read_text()
)

# The rewards page's 'Pay now' (issue 37): sent by every caller by test_admin_payouts_authorization.py, which checks
# it sends it.
REWARDS_PART_TWO = frozenset(
    h
    for h in AdminRewardsState.event_handlers
    if f'{{W}}.{h}"' in (Path(__file__).parent / "test_admin_payouts_authorization.py").read_text()
)


# The participants page's group message (issue 38): sent by every caller by test_admin_messages_authorization.py,
# which checks it sends them.
PARTICIPANTS_PART_TWO = frozenset(
    h
    for h in AdminParticipantsState.event_handlers
    if f'{{P}}.{h}"' in (Path(__file__).parent / "test_admin_messages_authorization.py").read_text()
)


def test_the_scenario_sends_every_public_handler_of_every_admin_state():
    import inspect

    source = inspect.getsource(act)
    named = {
        "P": AdminParticipantsState,
        "C": ChangeRequestsState,
        "T": AdminTestsState,
        "I": InviteState,
        "R": AdminReviewsState,
        "W": AdminRewardsState,
        "A": AuditLogState,
        "G": StaffState,
    }
    missing = []
    for letter, state in named.items():
        for handler in state.event_handlers:
            if handler == "setvar":  # refused for every browser (states/event_guard.py)
                continue
            if letter == "T" and handler in TESTS_PART_TWO:  # sent by test_admin_tests_authorization.py
                continue
            if letter == "W" and handler in REWARDS_PART_TWO:  # sent by test_admin_payouts_authorization.py
                continue
            if letter == "P" and handler in PARTICIPANTS_PART_TWO:  # sent by test_admin_messages_authorization.py
                continue
            generic = handler in TABLE_READS or handler in TABLE_VIEW_ONLY
            loops_over_table = f'await send(f"{{{letter}}}.{{name}}"' in source
            if (
                f'{{{letter}}}.{handler}"' not in source
                and f'{{{letter}}}.{handler}"' not in source.replace("tab.emit(", "")
                and not (generic and loops_over_table)
            ):
                missing.append(f"{state.__name__}.{handler}")
    assert not missing, missing
