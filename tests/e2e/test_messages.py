"""Messages between a participant and staff (issue 38, item 3) in Chromium: the participant writes from /messages
about one of their tests; staff see it unread on /admin/messages, open it and reply; the participant's header shows
the unread count, which goes once they read it; staff message a filtered group from /admin/participants, told the
count before sending, and exactly that group gets it. axe finds nothing on both pages at 375 and 1280 px;
screenshots go to $SCREENSHOT_DIR (or the test's tmp dir)."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

from playwright.sync_api import Browser, Page, expect
from sqlalchemy import text
from sqlmodel import select

from portal.domain.staff import roles
from portal.models import MessageThread, OutboxEmail
from tests.e2e.helpers import sign_in
from tests.e2e.test_accessibility import assert_accessible
from tests.e2e.test_admin import STAFF_PASSWORD, open_admin, staff, table_search
from tests.support.factories import make_participant, unique_email
from tests.support.polling import polled

PASSWORD = "Correct-Horse-42!"


def _shots(tmp_path: Path) -> Path:
    out = Path(os.environ.get("SCREENSHOT_DIR") or tmp_path)
    out.mkdir(parents=True, exist_ok=True)
    return out


def _named(db, first: str, last: str, **kwargs):
    account = make_participant(db, first_name=first, last_name=last, **kwargs)
    db.execute(text("UPDATE participant_profile SET country = 'US' WHERE account_id = :id"), {"id": account.id})
    db.commit()
    return account


def test_a_participant_and_staff_exchange_messages_and_see_their_unread_counts(
    page: Page, browser: Browser, app_server, db, tmp_path
):
    base = app_server.url
    tag = uuid.uuid4().hex[:6]
    email = unique_email("msg")
    who = _named(db, "Mia", f"Msg{tag}", email=email, password=PASSWORD)
    subject = f"Timer stopped {tag}"

    page.set_viewport_size({"width": 1280, "height": 900})
    sign_in(page, base, email, PASSWORD)
    page.locator("#header-messages").click()
    expect(page.get_by_role("heading", name="Messages", exact=True)).to_be_visible()
    expect(page.locator("#threads-empty")).to_have_text("No messages yet.")
    page.get_by_role("button", name="New message").click()
    page.get_by_role("button", name="Send", exact=True).click()
    expect(page.locator("#new-subject-error")).to_have_text("Write a subject.")
    expect(page.locator("#new-body-error")).to_have_text("Write a message.")
    page.get_by_label("Subject").fill(subject)
    page.get_by_label("Message").fill("The timer stopped at 3:00 and the page froze.")
    page.get_by_role("button", name="Send", exact=True).click()
    expect(page.get_by_text("Message sent. We will reply here and by e-mail.")).to_be_visible()
    expect(page.locator("#thread-subject")).to_have_text(subject)

    # Staff: unread in the shared inbox; they open it and reply.
    manager = staff(db, roles.TEAM_MANAGER)
    desk = browser.new_page(viewport={"width": 1280, "height": 900})
    sign_in(desk, base, manager.email, STAFF_PASSWORD)
    open_admin(desk, base, f"/admin/messages?participant={who.id}")
    mine = desk.locator("#staff-threads li").filter(has_text=subject)
    expect(mine).to_contain_text("1 new")
    expect(mine).to_contain_text(f"Mia Msg{tag}")
    waiting = int(desk.locator("#staff-unread").inner_text().split()[0])  # every participant's, this one among them
    assert waiting >= 1
    mine.get_by_role("button").click()
    expect(desk.locator("#thread-messages")).to_contain_text("The timer stopped at 3:00 and the page froze.")
    expect(mine).not_to_contain_text("1 new")
    expect(desk.locator("#staff-unread")).to_have_text(f"{waiting - 1} unread")
    assert_accessible(desk, "/admin/messages with a thread")
    desk.get_by_label("Reply").fill("Thanks Mia: we added 10 minutes to your test.")
    desk.get_by_role("button", name="Send reply").click()
    expect(desk.get_by_text("Reply sent: the participant is told by e-mail.")).to_be_visible()
    expect(desk.locator("#thread-messages")).to_contain_text("Thanks Mia")
    desk.screenshot(path=str(_shots(tmp_path) / "admin-messages-1280.png"), full_page=True)

    # The participant: the header counts it; reading it clears the count.
    page.goto(f"{base}/")
    expect(page.locator("#header-unread")).to_have_text("1 unread")
    page.locator("#header-messages").click()
    row = page.locator("#threads li").filter(has_text=subject)
    expect(row).to_contain_text("1 new")
    row.get_by_role("button").click()
    expect(page.locator("#thread-messages")).to_contain_text("Thanks Mia: we added 10 minutes to your test.")
    expect(page.locator("#header-unread")).to_have_count(0)
    with app_server.db() as s:
        told = s.exec(select(OutboxEmail).where(OutboxEmail.to_address == email, OutboxEmail.kind == "message")).all()
    assert len(told) == 1 and "wrote to you: " + subject in told[0].subject
    assert "Thanks Mia: we added 10 minutes to your test." in told[0].body_text
    assert_accessible(page, "/messages with a thread")
    page.screenshot(path=str(_shots(tmp_path) / "messages-1280.png"), full_page=True)
    page.set_viewport_size({"width": 375, "height": 800})
    assert_accessible(page, "/messages at 375 px")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    page.screenshot(path=str(_shots(tmp_path) / "messages-375.png"), full_page=True)


def test_a_group_message_reaches_exactly_the_filtered_set(page: Page, app_server, db):
    base = app_server.url
    tag = uuid.uuid4().hex[:6]
    group = [_named(db, name, f"Grp{tag}") for name in ("Gus", "Gwen")]
    _named(db, "Olly", f"Other{tag}")
    manager = staff(db, roles.TEAM_MANAGER)
    page.set_viewport_size({"width": 1280, "height": 900})
    sign_in(page, base, manager.email, STAFF_PASSWORD)
    open_admin(page, base, "/admin/participants")
    table_search(page, "admin-participants", f"Grp{tag}")
    page.locator("#group-message").click()
    dialog = page.get_by_role("dialog")
    expect(dialog.locator("#group-count")).to_have_text("This message goes to 2 participants.")
    assert_accessible(page, "the group message dialog")
    dialog.get_by_label("Subject").fill(f"New tests {tag}")
    dialog.get_by_label("Message").fill("Hello both: new tests open on Monday.")
    dialog.get_by_role("button", name="Send").click()
    expect(page.get_by_text("Message sent to 2 participants.")).to_be_visible()

    def reached() -> list[int]:
        with app_server.db() as s:
            return sorted(
                s.exec(select(MessageThread.account_id).where(MessageThread.subject == f"New tests {tag}")).all()
            )

    assert polled(reached, lambda r: len(r) == 2, timeout=10) == sorted(p.id for p in group)
