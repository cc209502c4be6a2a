"""Staff see what the server will do, in Chromium: the invite page counts as 'will be invited' only who the
server invites and shows the batch's cost before sending, also for rows picked by hand; bulk approve and
'Mark paid' ask first, naming the count and the amount, and 'Mark failed' and 'Cancel' say what they do;
at 1280 px every staff table keeps its row actions in view without scrolling sideways (screenshots at 375
and 1280 px of the invite, rewards and reviews pages are kept beside the server log)."""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect
from sqlalchemy import text
from sqlmodel import select

from portal.domain.staff import roles
from portal.models import Account, Invite, ProfileChangeRequest, Review, Reward, Test
from portal.models._base import utcnow
from portal.services.outbox import enqueue_email
from portal.states.admin import rewards as reward_texts
from tests.e2e.helpers import sign_in
from tests.e2e.test_accessibility import assert_accessible
from tests.e2e.test_admin import STAFF_PASSWORD, open_admin, row, staff, table_search
from tests.support.factories import make_participant
from tests.support.people import demo_test


def own_test(db) -> Test:
    """A running survey of this test alone (day 1 rates, no quotas): other tests' invites do not fill it."""
    test = demo_test(db, "01-survey.json")
    test.status, test.launched_at, test.participant_limit, test.seniority_limits = "running", utcnow(), None, {}
    db.add(test)
    db.commit()
    return test


def panelist(
    db, tag: str, name: str, *, levels: str = '["senior"]', country: str | None = "US", verified: bool = True
) -> Account:
    account = make_participant(db, first_name=name, last_name=f"Panel{tag}", verified=verified)
    db.execute(
        text("UPDATE participant_profile SET experience_levels = :levels, country = :country WHERE account_id = :id"),
        {"levels": levels, "country": country, "id": account.id},
    )
    db.commit()
    return account


def shot(page: Page, app_server, name: str) -> None:
    page.screenshot(path=str(app_server.log_path.parent / f"{name}.png"), full_page=True)


def test_the_invite_page_counts_who_will_be_invited_shows_the_cost_and_invites_picked_rows(page: Page, app_server, db):
    base, tag = app_server.url, uuid.uuid4().hex[:6]
    me = staff(db, roles.TEAM_MANAGER)
    test = own_test(db)
    senior1, senior2 = panelist(db, tag, "Sen1"), panelist(db, tag, "Sen2")
    specialist = panelist(db, tag, "Spec", levels='["specialist"]')
    unverified = panelist(db, tag, "Unver", verified=False)
    abroad = panelist(db, tag, "Abroad", country="GB")
    invited = panelist(db, tag, "Inv")
    db.add(Invite(account_id=invited.id, test_id=test.id, amount_cents=1000, status="expired", expires_at=utcnow()))
    db.commit()

    sign_in(page, base, me.email, STAFF_PASSWORD)
    open_admin(page, base, f"/admin/tests/{test.id}/invite")
    table_search(page, "invite-participants", f"Panel{tag}")
    expect(page.locator("#invite-matched")).to_have_text("6")
    expect(page.locator("#invite-already-invited")).to_have_text("1")
    expect(page.locator("#invite-unverified")).to_have_text("1")
    expect(page.locator("#invite-elsewhere")).to_have_text("1")
    expect(page.locator("#invite-to-invite")).to_have_text("3")
    expect(page.locator("#invite-cost")).to_have_text("$80")  # survey, day 1: senior $35 twice, specialist $10
    expect(page.locator("#invite-problem")).to_have_text(
        "3 of those matching will not be invited: 1 is already invited, 1 is not verified, 1 is not in United States."
    )
    expect(page.get_by_text("Not in United States", exact=True)).to_be_visible()
    page.set_viewport_size({"width": 1280, "height": 900})
    shot(page, app_server, "invite-1280")

    # Picking rows: only those count, and only those are invited.
    row(page, "invite-participants", specialist.id).get_by_role("checkbox").click()
    row(page, "invite-participants", unverified.id).get_by_role("checkbox").click()
    expect(page.locator("#invite-matched")).to_have_text("2")
    expect(page.locator("#invite-to-invite")).to_have_text("1")
    expect(page.locator("#invite-cost")).to_have_text("$10")
    expect(page.locator("#invite-problem")).to_have_text("1 of the 2 selected cannot be invited: 1 is not verified.")
    expect(page.locator("#invite-send")).to_have_text("Invite selected")
    page.click("#invite-send")
    dialog = page.get_by_role("alertdialog")
    expect(dialog.locator("#invite-confirm-title")).to_have_text(f"Invite 1 participant to {test.name}?")
    expect(dialog.locator("#invite-confirm-cost")).to_have_text("$10")
    expect(dialog.locator("#invite-confirm-problem")).to_have_text(
        "1 of the 2 selected cannot be invited: 1 is not verified."
    )
    page.click("#invite-confirm-confirm")
    expect(page.locator("#invite-result")).to_have_text("1 invite sent.")
    db.expire_all()
    sent = db.exec(
        select(Invite.account_id, Invite.amount_cents).where(Invite.test_id == test.id, Invite.batch_id.is_not(None))
    ).all()
    assert [tuple(r) for r in sent] == [(specialist.id, 1000)]

    # The picks are cleared once sent: the search chooses again, the specialist is now invited.
    expect(page.locator("#invite-send")).to_have_text("Send invites")
    expect(page.locator("#invite-to-invite")).to_have_text("2")
    expect(page.locator("#invite-cost")).to_have_text("$70")
    page.set_viewport_size({"width": 375, "height": 800})
    expect(page.locator("#invite-cost")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    shot(page, app_server, "invite-375")
    assert {senior1.id, senior2.id, abroad.id}.isdisjoint({r[0] for r in sent})


def reviewed(db, test: Test, who: Account, cents: int) -> tuple[Review, Reward]:
    review = Review(
        test_id=test.id,
        account_id=who.id,
        respondent_key=f"account:{who.id}",
        kind="survey",
        answers={"0": {"type": "long-text", "value": "Clear enough."}},
    )
    db.add(review)
    db.flush()
    reward = Reward(review_id=review.id, account_id=who.id, amount_cents=cents, status="PENDING")
    db.add(reward)
    db.commit()
    return review, reward


def confirm_dialog_says(page: Page, dialog_id: str, title: str, body: str) -> None:
    expect(page.locator(f"#{dialog_id}-title")).to_have_text(title)
    expect(page.locator(f"#{dialog_id}-body")).to_have_text(body)


def test_bulk_approve_and_marking_rewards_ask_first_naming_the_count_and_the_amount(page: Page, app_server, db):
    base, tag = app_server.url, uuid.uuid4().hex[:6]
    me = staff(db, roles.TEAM_OWNER)
    test = own_test(db)
    first, second = panelist(db, tag, "First"), panelist(db, tag, "Second")
    review1, reward1 = reviewed(db, test, first, 2500)
    review2, reward2 = reviewed(db, test, second, 1500)

    sign_in(page, base, me.email, STAFF_PASSWORD)
    page.set_viewport_size({"width": 1280, "height": 900})
    open_admin(page, base, f"/admin/reviews?test={test.id}")
    for review in (review1, review2):
        row(page, "admin-reviews", review.id).get_by_role("checkbox").click()
    shot(page, app_server, "reviews-1280")
    page.click("#bulk-approve")
    confirm_dialog_says(page, "approve-confirm", "Approve 2 reviews?", "Their rewards, $40 in all, become payable.")
    page.click("#approve-confirm-dismiss")  # going back decides nothing
    expect(page.get_by_role("alertdialog")).to_have_count(0)
    db.expire_all()
    assert {db.get(Review, r.id).status for r in (review1, review2)} == {"submitted"}
    page.click("#bulk-approve")
    page.click("#approve-confirm-confirm")
    expect(page.get_by_text("2 reviews approved.")).to_be_visible()
    page.set_viewport_size({"width": 375, "height": 800})
    expect(row(page, "admin-reviews", review1.id)).to_contain_text("Approved")
    shot(page, app_server, "reviews-375")
    page.set_viewport_size({"width": 1280, "height": 900})

    open_admin(page, base, "/admin/rewards")
    table_search(page, "admin-rewards", test.name)
    for reward in (reward1, reward2):
        row(page, "admin-rewards", reward.id).get_by_role("checkbox").click()
    page.click("#bulk-paid")
    confirm_dialog_says(
        page, "rewards-confirm", "Mark 2 rewards paid ($40 in all)?", reward_texts.CONSEQUENCES["EXECUTED"][1]
    )
    expect(page.locator("#rewards-confirm-confirm")).to_have_text("Mark paid")
    page.click("#rewards-confirm-dismiss")
    page.click("#bulk-failed")
    confirm_dialog_says(
        page,
        "rewards-confirm",
        "Mark 2 rewards failed ($40 in all)?",
        "The rewards stay unpaid and can be paid again later.",
    )
    page.click("#rewards-confirm-dismiss")
    page.click("#bulk-canceled")
    confirm_dialog_says(page, "rewards-confirm", "Cancel 2 rewards ($40 in all)?", "The rewards will not be paid.")
    shot(page, app_server, "rewards-dialog-1280")
    page.click("#rewards-confirm-dismiss")
    expect(page.get_by_role("alertdialog")).to_have_count(0)
    db.expire_all()
    assert {db.get(Reward, r.id).status for r in (reward1, reward2)} == {"PENDING"}

    shot(page, app_server, "rewards-1280")
    page.set_viewport_size({"width": 375, "height": 800})
    expect(row(page, "admin-rewards", reward2.id)).to_contain_text("$15")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    shot(page, app_server, "rewards-375")
    page.set_viewport_size({"width": 1280, "height": 900})

    # One row's 'Mark paid': that reward, its amount (the other stays selected).
    row(page, "admin-rewards", reward1.id).get_by_role("button", name="Mark paid").click()
    confirm_dialog_says(page, "rewards-confirm", "Mark 1 reward paid ($25)?", reward_texts.CONSEQUENCES["EXECUTED"][0])
    page.click("#rewards-confirm-confirm")
    expect(page.get_by_text("1 reward marked paid.")).to_be_visible()
    expect(row(page, "admin-rewards", reward2.id).get_by_role("checkbox")).to_be_checked()
    page.click("#bulk-canceled")
    confirm_dialog_says(page, "rewards-confirm", "Cancel 1 reward ($15)?", "The reward will not be paid.")
    page.click("#rewards-confirm-dismiss")
    page.click("#bulk-failed")
    confirm_dialog_says(
        page, "rewards-confirm", "Mark 1 reward failed ($15)?", "The reward stays unpaid and can be paid again later."
    )
    page.click("#rewards-confirm-confirm")
    expect(page.get_by_text("1 reward marked failed.")).to_be_visible()
    db.expire_all()
    assert (db.get(Reward, reward1.id).status, db.get(Reward, reward2.id).status) == ("EXECUTED", "FAILED")


def test_exclude_asks_first_saying_the_participant_is_still_paid_and_pays_the_reward(page: Page, app_server, db):
    """Exclude, from one review's detail and in bulk: the confirmation says the participant is still paid and
    the review is left out of results; the status reads 'Excluded' and the reward becomes payable."""
    base, tag = app_server.url, uuid.uuid4().hex[:6]
    out = Path(os.environ.get("SCREENSHOT_DIR") or app_server.log_path.parent)
    me = staff(db, roles.TEAM_MANAGER)
    test = own_test(db)
    first, second, third = panelist(db, tag, "First"), panelist(db, tag, "Second"), panelist(db, tag, "Third")
    review1, reward1 = reviewed(db, test, first, 2500)
    review2, reward2 = reviewed(db, test, second, 1500)
    review3, reward3 = reviewed(db, test, third, 1000)

    sign_in(page, base, me.email, STAFF_PASSWORD)
    page.set_viewport_size({"width": 1280, "height": 900})
    open_admin(page, base, f"/admin/reviews?test={test.id}")
    row(page, "admin-reviews", review1.id).get_by_role("button", name="Open").click()
    page.click("#detail-exclude")
    confirm_dialog_says(
        page,
        "exclude-confirm",
        "Exclude 1 review?",
        "The participant is still paid: its reward, $25, becomes payable. "
        "It is left out of the results and exports by default.",
    )
    assert_accessible(page, "the exclude confirmation")
    page.screenshot(path=str(out / "exclude-dialog-1280.png"))
    page.click("#exclude-confirm-dismiss")  # going back decides nothing
    expect(page.get_by_role("alertdialog")).to_have_count(0)
    db.expire_all()
    assert db.get(Review, review1.id).status == "submitted"
    page.click("#detail-exclude")
    page.click("#exclude-confirm-confirm")
    expect(page.get_by_text("1 review excluded.")).to_be_visible()
    expect(row(page, "admin-reviews", review1.id)).to_contain_text("Excluded")

    # In bulk: the one decided already is named and left alone.
    for review in (review1, review2, review3):
        row(page, "admin-reviews", review.id).get_by_role("checkbox").click()
    page.click("#bulk-exclude")
    confirm_dialog_says(
        page,
        "exclude-confirm",
        "Exclude 2 reviews?",
        "The participants are still paid: their rewards, $25 in all, become payable. "
        "They are left out of the results and exports by default. "
        "1 of the 3 selected is decided already and stays as it is.",
    )
    page.set_viewport_size({"width": 375, "height": 800})
    page.screenshot(path=str(out / "exclude-dialog-375.png"))
    page.click("#exclude-confirm-confirm")
    expect(page.get_by_text("2 reviews excluded.")).to_be_visible()
    expect(row(page, "admin-reviews", review2.id)).to_contain_text("Excluded")
    page.screenshot(path=str(out / "exclude-375.png"), full_page=True)
    db.expire_all()
    assert {db.get(Review, r.id).status for r in (review1, review2, review3)} == {"excluded"}
    paid = [db.get(Reward, r.id) for r in (reward1, reward2, reward3)]
    assert {(r.status, r.approved_at is not None) for r in paid} == {("PENDING", True)}


def in_view(page: Page, locator: Any) -> None:
    """The element is visible and inside the 1280 px viewport, and the page does not scroll sideways."""
    expect(locator).to_be_visible()
    box = locator.bounding_box()
    assert box is not None
    width = page.viewport_size["width"]
    assert 0 <= box["x"] and box["x"] + box["width"] <= width, (box, width)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    assert page.evaluate("window.scrollX") == 0


@pytest.mark.parametrize("viewport", [1280])
def test_every_staff_table_keeps_its_row_actions_in_view_at_1280(browser: Browser, app_server, db, viewport):
    context = browser.new_context(viewport={"width": viewport, "height": 900})
    context.set_default_timeout(20000)
    page = context.new_page()
    base, tag = app_server.url, uuid.uuid4().hex[:6]
    me = staff(db, roles.SUPER_ADMIN)
    test = own_test(db)
    person = panelist(db, tag, "Wide")
    review, reward = reviewed(db, test, person, 2000)
    _, payable = reviewed(db, own_test(db), person, 3000)
    payable.approved_at = utcnow()
    db.add(payable)
    db.add(
        ProfileChangeRequest(
            account_id=person.id, payload={"jobTitle": "Head of Data"}, previous={"jobTitle": "Analyst"}
        )
    )
    enqueue_email(session=db, to=person.email, subject=f"Wide {tag}", body="A row for the outbox table.", kind="invite")
    db.commit()
    sign_in(page, base, me.email, STAFF_PASSWORD)

    open_admin(page, base, "/admin/participants")
    table_search(page, "admin-participants", f"Panel{tag}")
    in_view(page, row(page, "admin-participants", person.id).get_by_role("button", name="Role"))
    in_view(page, row(page, "admin-participants", person.id).get_by_role("button", name="Profile"))

    open_admin(page, base, "/admin/participants/changes")
    card = page.locator('[data-testid="change-request"]', has_text=person.email)
    in_view(page, card.get_by_role("button", name="Approve"))

    open_admin(page, base, "/admin/tests")
    table_search(page, "admin-tests", test.name)
    for action in ("Preview", "Export JSON", "Reviews", "Invite"):
        in_view(page, row(page, "admin-tests", test.id).get_by_role("button", name=action))

    open_admin(page, base, f"/admin/tests/{test.id}/invite")
    table_search(page, "invite-participants", f"Panel{tag}")
    in_view(page, row(page, "invite-participants", person.id).get_by_role("checkbox"))
    in_view(page, page.locator("#invite-send"))

    open_admin(page, base, f"/admin/reviews?test={test.id}")
    in_view(page, row(page, "admin-reviews", review.id).get_by_role("button", name="Open"))

    open_admin(page, base, "/admin/rewards")
    table_search(page, "admin-rewards", person.email)
    in_view(page, row(page, "admin-rewards", payable.id).get_by_role("button", name="Mark paid"))
    in_view(page, row(page, "admin-rewards", payable.id).get_by_role("checkbox"))

    open_admin(page, base, "/admin/audit")  # no row actions: its wide table scrolls in its box, not the page
    in_view(page, page.locator('[data-testid="admin-audit-row"]').first.locator("td").first)

    open_admin(page, base, "/admin/outbox")  # 'Retry now' sits in the status column, the second
    first = page.locator('[data-testid="admin-outbox-row"]').first
    in_view(page, first.locator("td").nth(1))

    open_admin(page, base, "/admin/flags")
    in_view(page, page.get_by_role("button", name="Save").first)
    context.close()
    db.expire_all()
    assert db.get(Reward, reward.id).status == "PENDING"
