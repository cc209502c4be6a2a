"""Staff at /admin in Chromium, as each role: bulk verification, a change request, invites with the
incentive-table payout, a participant taking the test, the review approved, the reward paid and seen
as paid by the participant; clearing expired pending reviews with each of the spec's three messages;
and the guard (sign-in for visitors, the not-found page for participants)."""

from __future__ import annotations

import os
import re
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect
from sqlalchemy import text
from sqlmodel import select

from portal.domain.staff import pending, roles
from portal.domain.staff import reviews as decisions
from portal.domain.table import format_date
from portal.models import Account, AuditEntry, Invite, ProfileChangeRequest, ReviewSession, Reward
from portal.models._base import utcnow
from tests.e2e.helpers import sign_in
from tests.e2e.test_accessibility import assert_accessible
from tests.e2e.test_survey import PASSWORD, answer_influencer_route_up_to_job_title, finish, start, survey_test
from tests.support import two_factor
from tests.support.factories import make_participant

STAFF_PASSWORD = "Staff-Password-2026!"


def staff(db, role: str) -> Account:
    account = make_participant(db, password=STAFF_PASSWORD, first_name="Sam", last_name=f"Staff {role}")
    account.staff_role = role
    db.add(account)
    db.commit()
    two_factor.enable(db, account.id)  # staff act only with two-factor sign-in on (issue 40)
    return account


def panelists(db, tag: str, count: int = 3) -> list[Account]:
    """Unverified panelists (sign-up finished, e-mails verified), senior, in the United States (the demo tests'
    audience country), their last name carrying `tag`."""
    people = []
    for index in range(count):
        account = make_participant(
            db, password=PASSWORD, first_name=f"Pat{index}", last_name=f"Panel{tag}", verified=False
        )
        db.execute(
            text(
                "UPDATE participant_profile SET experience_levels = :levels, job_title = 'Head of Data', "
                "country = 'US' "
                "WHERE account_id = :id"
            ),
            {"levels": '["senior"]', "id": account.id},
        )
        people.append(account)
    db.commit()
    return people


def open_admin(page: Page, base: str, path: str) -> None:
    page.goto(f"{base}{path}")
    expect(page.locator("#admin-role")).to_be_visible()


def table_search(page: Page, table_id: str, text_: str) -> None:
    page.fill(f"#{table_id}-search", text_)
    expect(page.locator(f"#{table_id}-search")).to_have_value(text_)
    # The table searches 1.5 s after typing stops; its toolbar then names the search its rows are for.
    expect(page.locator(f"#{table_id}-toolbar")).to_have_attribute("data-search", text_, timeout=15000)


def row(page: Page, table_id: str, row_id: int):
    return page.locator(f'#{table_id} [data-testid="{table_id}-row"][data-row-id="{row_id}"]')


def pay_as(browser: Browser, base: str, email: str, reward_id: int) -> None:
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    context.set_default_timeout(20000)
    page = context.new_page()
    sign_in(page, base, email, STAFF_PASSWORD)
    open_admin(page, base, "/admin/rewards")
    row(page, "admin-rewards", reward_id).get_by_role("button", name="Mark paid").click()
    page.click("#rewards-confirm-confirm")  # the confirmation names the reward's amount
    expect(page.get_by_text("1 reward marked paid.")).to_be_visible()
    context.close()


@pytest.mark.parametrize("role", roles.ROLES)
def test_a_staff_day_from_verification_to_a_paid_reward(page: Page, browser: Browser, app_server, db, role):
    base, tag = app_server.url, uuid.uuid4().hex[:6]
    me = staff(db, role)
    people = panelists(db, tag)
    first = people[0]
    request = ProfileChangeRequest(
        account_id=first.id, payload={"jobTitle": "Head of Data"}, previous={"jobTitle": "Analyst"}
    )
    db.add(request)
    db.commit()
    test = survey_test(db)

    sign_in(page, base, me.email, STAFF_PASSWORD)
    # Bulk verification of the three.
    open_admin(page, base, "/admin/participants")
    table_search(page, "admin-participants", f"Panel{tag}")
    expect(page.locator('[data-testid="admin-participants-row"]')).to_have_count(3)
    row(page, "admin-participants", people[0].id).get_by_role("checkbox").click()
    expect(page.locator("#admin-selection-count")).to_have_text(
        "1 participant selected"
    )  # issue 40: not '1 participants'
    expect(page.locator("#admin-participants .dt-selection-count")).to_have_text("1 participant selected")
    for person in people[1:]:
        row(page, "admin-participants", person.id).get_by_role("checkbox").click()
    expect(page.locator("#admin-selection-count")).to_have_text("3 participants selected")
    page.click("#bulk-verify")
    expect(page.get_by_role("alertdialog")).to_contain_text("Verify 3 participants?")
    page.click("#bulk-confirm-confirm")
    expect(page.get_by_text("3 participants verified.")).to_be_visible()
    for person in people:
        expect(row(page, "admin-participants", person.id)).to_contain_text("Verified")

    # The change request, old and new side by side, approved.
    open_admin(page, base, "/admin/participants/changes")
    card = page.locator(f'[data-testid="change-request"][data-request-id="{request.id}"]')
    expect(card).to_contain_text("Analyst")
    expect(card).to_contain_text("Head of Data")
    card.get_by_role("button", name="Approve").click()
    expect(page.get_by_text("Change approved.")).to_be_visible()
    expect(card).to_have_count(0)

    # Invites to the demo survey for the filtered set, paid from the incentive table (senior, day 1: $35).
    open_admin(page, base, "/admin/tests")
    table_search(page, "admin-tests", "How teams buy analytics")
    row(page, "admin-tests", test.id).get_by_role("button", name="Invite").click()
    expect(page).to_have_url(re.compile(rf"/admin/tests/{test.id}/invite"))
    table_search(page, "invite-participants", f"Panel{tag}")
    expect(page.locator("#invite-matched")).to_have_text("3")
    expect(page.locator("#invite-to-invite")).to_have_text("3")
    expect(page.locator("#invite-payout")).to_contain_text("$10 – $35 by seniority (day 1 rates)")
    page.click("#invite-send")
    page.click("#invite-confirm-confirm")
    expect(page.locator("#invite-result")).to_have_text("3 invites sent.")
    expect(page.locator("#invite-already-invited")).to_have_text("3")
    db.expire_all()
    invites = db.exec(
        select(Invite).where(Invite.test_id == test.id, Invite.account_id.in_([p.id for p in people]))
    ).all()
    assert sorted(i.amount_cents for i in invites) == [3500, 3500, 3500]

    # The participant sees the invite with its payout, and takes the test (it needs verification).
    taker = browser.new_context(viewport={"width": 1280, "height": 900})
    taker.set_default_timeout(20000)
    participant = taker.new_page()
    participant.on("dialog", lambda dialog: dialog.accept())
    sign_in(participant, base, first.email, PASSWORD)
    first_invite = next(i.id for i in invites if i.account_id == first.id)
    expect(row(participant, "invites", first_invite)).to_contain_text("$35")
    start(participant, base, test)
    answer_influencer_route_up_to_job_title(participant)
    finish(participant)

    # Staff read the review and approve it.
    open_admin(page, base, f"/admin/reviews?test={test.id}")
    table_search(page, "admin-reviews", first.email)
    review_row = page.locator('[data-testid="admin-reviews-row"]').first
    expect(review_row).to_contain_text("Submitted")
    review_row.get_by_role("button", name="Open").click()
    expect(page.locator("#review-answers")).to_contain_text("Head of data")
    page.click("#detail-approve")
    expect(page.get_by_text("1 review approved.")).to_be_visible()
    expect(review_row).to_contain_text("Approved")

    # The reward is payable; a role that may pay marks it paid, the others do not see the action.
    db.expire_all()
    reward = db.exec(select(Reward).where(Reward.test_id == test.id, Reward.account_id == first.id)).one()
    assert reward.approved_at is not None and reward.status == "PENDING"
    open_admin(page, base, "/admin/rewards")
    reward_row = row(page, "admin-rewards", reward.id)
    expect(reward_row).to_contain_text("$35")
    if roles.may(role, roles.PAY):
        reward_row.get_by_role("button", name="Mark paid").click()
        expect(page.locator("#rewards-confirm-title")).to_have_text("Mark 1 reward paid ($35)?")
        page.click("#rewards-confirm-confirm")
        expect(page.get_by_text("1 reward marked paid.")).to_be_visible()
    else:
        expect(reward_row.get_by_role("button", name="Mark paid")).to_have_count(0)
        expect(page.locator("#payout-export")).to_have_count(0)
        owner = staff(db, roles.TEAM_OWNER)
        pay_as(browser, base, owner.email, reward.id)

    # The participant's rewards tab: Paid, with the date.
    participant.goto(f"{base}/")
    participant.click("#tab-rewards")
    paid_row = row(participant, "rewards", reward.id)
    expect(paid_row.locator('[data-testid="reward-stage"]')).to_have_text("Paid")
    expect(paid_row.locator('[data-testid="reward-stage-detail"]')).to_have_text(f"Paid on {format_date(utcnow())}")
    taker.close()

    # Every action is in the audit log, with who did it and in which role.
    db.expire_all()
    mine = db.exec(select(AuditEntry.action).where(AuditEntry.actor_id == me.id)).all()
    expected = {"participant.verify", "change-request.approve", "invites.send", "review.approve"}
    if roles.may(role, roles.PAY):
        expected.add("reward.pay")
    assert expected <= set(mine)
    if roles.may(role, roles.AUDIT):
        open_admin(page, base, "/admin/audit")
        expect(page.locator('[data-testid="admin-audit-row"]').first).to_be_visible()
        expect(page.locator("#admin-audit")).to_contain_text(me.email)
    else:
        expect(page.get_by_role("link", name="Audit log")).to_have_count(0)


def expired_session(db, account_id: int, test_id: int) -> None:
    db.add(
        ReviewSession(
            test_id=test_id,
            account_id=account_id,
            respondent_key=f"account:{account_id}",
            deadline_at=utcnow() - timedelta(minutes=10),
            status="active",
        )
    )
    db.commit()


def test_clearing_expired_pending_reviews_shows_each_of_the_three_messages(page: Page, app_server, db):
    base = app_server.url
    me = staff(db, roles.TEAM_MANAGER)
    someone = make_participant(db)
    test = survey_test(db)
    sign_in(page, base, me.email, STAFF_PASSWORD)
    open_admin(page, base, "/admin/reviews")

    expired_session(db, someone.id, test.id)
    page.click("#clear-pending")
    expect(page.locator("#clear-pending-message")).to_have_text(pending.CLEARED)
    page.click("#clear-pending")
    expect(page.locator("#clear-pending-message")).to_have_text(pending.NONE_TO_CLEAR)
    # The database refuses the change (as a failing database would): the error message, nothing cleared.
    expired_session(db, someone.id, test.id)
    db.execute(
        text("CREATE TRIGGER refuse_clear BEFORE UPDATE ON review_session BEGIN SELECT RAISE(ABORT, 'down'); END")
    )
    db.commit()
    try:
        page.click("#clear-pending")
        expect(page.locator("#clear-pending-message")).to_have_text(pending.CLEAR_FAILED)
    finally:
        db.execute(text("DROP TRIGGER refuse_clear"))
        db.commit()
    db.expire_all()
    assert db.exec(
        select(ReviewSession).where(ReviewSession.account_id == someone.id, ReviewSession.status == "active")
    ).first()


def test_the_admin_is_for_staff_only(page: Page, app_server, db):
    base = app_server.url
    page.goto(f"{base}/admin/participants")
    expect(page).to_have_url(re.compile(r"/sign-in"))
    someone = make_participant(db, password=PASSWORD)
    sign_in(page, base, someone.email, PASSWORD)
    for path in ("/admin", "/admin/participants", "/admin/rewards", "/admin/audit"):
        page.goto(f"{base}{path}")
        expect(page.locator("#not-found-text")).to_be_visible()
        expect(page).to_have_title(re.compile("Page not found"))
        expect(page.locator(".admin-nav")).to_have_count(0)


@pytest.mark.parametrize("width", [375, 1400])
def test_admin_pages_at_phone_and_desktop_width(browser: Browser, app_server, db, width):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(20000)
    page = context.new_page()
    me = staff(db, roles.SUPER_ADMIN)
    sign_in(page, app_server.url, me.email, STAFF_PASSWORD)  # the helper looks for the desktop header
    page.set_viewport_size({"width": width, "height": 900})
    for path in (
        "/admin/participants",
        "/admin/tests",
        "/admin/reviews",
        "/admin/rewards",
        "/admin/audit",
        "/admin/messages",
        "/admin/reports",
    ):
        open_admin(page, app_server.url, path)
        expect(page.locator("h1")).to_be_visible()
        # The page itself never scrolls sideways (wide tables scroll inside their box).
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
        page.screenshot(
            path=str(app_server.log_path.parent / f"admin{path.replace('/', '-')}-{width}.png"), full_page=True
        )
    context.close()


def test_an_admin_makes_a_participant_staff_and_an_owner_deactivates_an_account(
    page: Page, browser: Browser, app_server, db
):
    base, tag = app_server.url, uuid.uuid4().hex[:6]
    admin, owner = staff(db, roles.SUPER_ADMIN), staff(db, roles.TEAM_OWNER)
    future_staff, leaving = panelists(db, tag, count=2)
    sign_in(page, base, admin.email, STAFF_PASSWORD)
    open_admin(page, base, "/admin/participants")
    table_search(page, "admin-participants", f"Panel{tag}")
    row(page, "admin-participants", future_staff.id).get_by_role("button", name="Role").click()
    page.click("#role-choice")
    page.get_by_role("option", name="Team Manager").click()
    page.click("#role-save")
    expect(page.get_by_text("Role changed.")).to_be_visible()
    expect(row(page, "admin-participants", future_staff.id)).to_contain_text("Team Manager")

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(20000)
    owner_page = context.new_page()
    sign_in(owner_page, base, owner.email, STAFF_PASSWORD)
    open_admin(owner_page, base, "/admin/participants")
    table_search(owner_page, "admin-participants", f"Panel{tag}")
    expect(owner_page.get_by_role("button", name="Role")).to_have_count(0)  # only admins manage staff
    # A staff account cannot be deactivated by an owner; a participant can.
    expect(
        row(owner_page, "admin-participants", future_staff.id).get_by_role("button", name="Deactivate")
    ).to_have_count(0)
    row(owner_page, "admin-participants", leaving.id).get_by_role("button", name="Deactivate").click()
    expect(owner_page.get_by_role("alertdialog")).to_contain_text(f"Deactivate {leaving.email}?")
    owner_page.click("#deactivate-confirm-confirm")
    expect(owner_page.get_by_text("Account deactivated: its sessions are ended.")).to_be_visible()
    expect(row(owner_page, "admin-participants", leaving.id)).to_contain_text("Deactivated")
    context.close()
    db.expire_all()
    assert db.get(Account, future_staff.id).staff_role == roles.TEAM_MANAGER
    assert db.get(Account, leaving.id).removed_at is not None
    actions = {(e.actor_id, e.action) for e in db.exec(select(AuditEntry)).all()}
    assert {(admin.id, "staff.role"), (owner.id, "participant.deactivate")} <= actions


def test_a_rejection_needs_a_reason_and_the_participant_reads_it(page: Page, browser: Browser, app_server, db):
    from portal.models import Review

    base, tag = app_server.url, uuid.uuid4().hex[:6]
    me = staff(db, roles.TEAM_MANAGER)
    (author,) = panelists(db, tag, count=1)
    test = survey_test(db)
    review = Review(
        test_id=test.id,
        account_id=author.id,
        respondent_key=f"account:{author.id}",
        kind="survey",
        answers={"0": {"type": "long-text", "value": "=cmd| ok ok"}},
    )
    db.add(review)
    db.flush()
    reward = Reward(review_id=review.id, account_id=author.id, amount_cents=2500, status="PENDING")
    db.add(reward)
    db.commit()

    sign_in(page, base, me.email, STAFF_PASSWORD)
    open_admin(page, base, f"/admin/reviews?test={test.id}")
    table_search(page, "admin-reviews", author.email)
    review_row = row(page, "admin-reviews", review.id)
    review_row.get_by_role("checkbox").click()
    page.click("#bulk-reject")
    page.click("#reject-confirm")
    expect(page.locator("#reject-error")).to_have_text(decisions.REASON_REQUIRED)
    page.click("#reject-reason")
    page.get_by_role("option", name=decisions.REJECTION_REASONS["low-effort"]).click()
    page.fill("#reject-note", "Three words only.")
    # The evidence it rests on: a flag ticked, and words the participant reads.
    page.get_by_role("checkbox", name=decisions.EVIDENCE_FLAGS["too-short"]).click()
    expect(page.locator("#reject-flag-too-short")).to_be_checked()
    page.fill("#reject-evidence", "Three words for a ten-question survey.")
    assert_accessible(page, "the reject dialog with its evidence")
    page.screenshot(path=str(Path(os.environ.get("SCREENSHOT_DIR") or app_server.log_path.parent) / "reject-1280.png"))
    page.click("#reject-confirm")
    expect(page.get_by_text("1 review rejected.")).to_be_visible()
    expect(review_row).to_contain_text("Rejected")
    expect(review_row).to_contain_text(decisions.REJECTION_REASONS["low-effort"])
    db.expire_all()
    stored = db.get(Review, review.id)
    assert (stored.status, stored.reject_reason, stored.reject_note) == ("rejected", "low-effort", "Three words only.")
    assert (stored.reject_flags, stored.reject_evidence) == (["too-short"], "Three words for a ten-question survey.")
    review_row.get_by_role("button", name="Open").click()
    expect(page.locator("#review-evidence")).to_have_text(
        "Evidence: Answers far below the word minimum. Three words for a ten-question survey."
    )
    page.keyboard.press("Escape")
    assert db.get(Reward, reward.id).status == "CANCELED"

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(20000)
    participant = context.new_page()
    sign_in(participant, base, author.email, PASSWORD)
    participant.click("#tab-rewards")
    rejected = row(participant, "rewards", reward.id)
    expect(rejected.locator('[data-testid="reward-stage"]')).to_have_text("Rejected")
    expect(rejected.locator('[data-testid="reward-stage-detail"]')).to_have_text(
        decisions.REJECTION_REASONS["low-effort"]
    )
    context.close()
