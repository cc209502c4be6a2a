"""Account settings (issue 40, item 1) in Chromium: the user menu opens /account; the password changes after the
current one (a wrong one is named), the other device's session ends and the e-mail arrives at the loopback SMTP
server; another device is signed out from the list of sessions."""

from __future__ import annotations

import json
import re
import time
import zipfile
from pathlib import Path

import pyotp
import pytest
from playwright.sync_api import Browser, Page, expect
from sqlmodel import func, select

from portal.domain.passwords_hashing import verify_password
from portal.models import Account, AuditEntry, AuthSession, Review, Reward
from tests.e2e.conftest import wait_for_hydration
from tests.e2e.helpers import animations_finished, fill_sign_in, sign_in
from tests.e2e.test_accessibility import assert_accessible
from tests.e2e.test_survey import FIFTEEN_WORDS, answer_influencer_route_up_to_job_title, begin, finish, survey_test
from tests.support.browser_console import failed_request
from tests.support.factories import make_participant

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
OLD = "Correct-Horse-42!"
NEW = "Blue-Tulip-Harbor-9"


def _open_settings(page: Page) -> None:
    page.click("#account-menu")
    page.get_by_role("menuitem", name="Account settings").click()
    expect(page).to_have_url(re.compile(r"/account/?$"))
    expect(page.get_by_role("heading", name="Account settings", level=1)).to_be_visible()


def _other_device(browser: Browser, url: str, email: str):
    context = browser.new_context()
    other = wait_for_hydration(context.new_page())
    sign_in(other, url, email, OLD, path="/profile")
    expect(other.get_by_role("heading", name="Become a participant - Have an impact, get paid.")).to_be_visible()
    return context, other


@pytest.mark.allow_console_errors(failed_request(400, "/api/account/password"))
def test_change_password_ends_the_other_session_and_the_email_arrives(
    page: Page, app_server, db, smtp_server, browser: Browser
):
    account = make_participant(db, password=OLD, first_name="Casey", last_name="Changer")
    context, other = _other_device(browser, app_server.url, account.email)
    sign_in(page, app_server.url, account.email, OLD)
    _open_settings(page)

    change = page.get_by_role("button", name="Change Password")
    expect(change).to_be_disabled()
    page.get_by_label("Current Password").fill("Not-The-Password-1!")
    page.get_by_label("New Password", exact=True).fill(NEW)
    page.get_by_label("Confirm New Password").fill(NEW)
    for key in ("length", "lowercase", "uppercase", "digit", "special", "common"):
        expect(page.locator(f'#password-requirements li[data-key="{key}"]')).to_have_attribute("data-status", "met")
    expect(change).to_be_enabled()
    change.click()
    expect(page.locator("#account-current-password-error")).to_have_text("Current password is incorrect")
    db.expire_all()
    assert verify_password(OLD, db.get(Account, account.id).password_hash)[0]

    page.get_by_label("Current Password").fill(OLD)
    expect(page.locator("#account-current-password-error")).to_have_count(0)
    expect(change).to_be_enabled()
    change.click()
    expect(page.get_by_text("Your password was changed. Every other device was signed out.")).to_be_visible()
    expect(page.get_by_label("Current Password")).to_have_value("")  # the form is empty again

    mail = smtp_server.wait_for(account.email, subject_contains="password was changed", after=0)
    assert "every other signed-in device was signed out" in mail.body
    # This tab stays signed in; the other device's next page is the sign-in.
    expect(page.locator("#account-sessions li")).to_have_count(1)
    page.reload()
    expect(page.get_by_role("heading", name="Account settings", level=1)).to_be_visible()
    other.goto(f"{app_server.url}/profile")
    expect(other).to_have_url(re.compile(r"/sign-in/?\?to=%2Fprofile"))
    context.close()


def test_sign_out_another_device_from_the_list(page: Page, app_server, db, browser: Browser):
    account = make_participant(db, password=OLD)
    context, other = _other_device(browser, app_server.url, account.email)
    sign_in(page, app_server.url, account.email, OLD, path="/account")

    rows = page.locator("#account-sessions li")
    expect(rows).to_have_count(2)
    this_one = page.locator('#account-sessions li[data-current="true"]')
    expect(this_one.get_by_text("This device")).to_be_visible()
    expect(this_one.locator(".account-session-device")).to_contain_text("Chrome")
    expect(this_one.get_by_text(re.compile(r"This computer · last used"))).to_be_visible()
    expect(this_one.get_by_role("button", name=re.compile("^Sign out"))).to_have_count(0)

    page.locator('#account-sessions li[data-current="false"]').get_by_role(
        "button", name=re.compile("^Sign out")
    ).click()
    expect(page.get_by_text("That device was signed out.")).to_be_visible()
    expect(rows).to_have_count(1)
    expect(page.get_by_role("button", name="Sign out everywhere else")).to_be_disabled()
    db.expire_all()
    live = db.exec(
        select(AuthSession).where(AuthSession.account_id == account.id, AuthSession.revoked_at.is_(None))
    ).all()
    assert len(live) == 1
    other.goto(f"{app_server.url}/profile")
    expect(other).to_have_url(re.compile(r"/sign-in/?\?to=%2Fprofile"))
    context.close()


def test_sign_out_everywhere_else(page: Page, app_server, db, browser: Browser):
    account = make_participant(db, password=OLD)
    first, one = _other_device(browser, app_server.url, account.email)
    second, two = _other_device(browser, app_server.url, account.email)
    sign_in(page, app_server.url, account.email, OLD, path="/account")
    expect(page.locator("#account-sessions li")).to_have_count(3)
    page.get_by_role("button", name="Sign out everywhere else").click()
    expect(page.get_by_text("Every other device was signed out.")).to_be_visible()
    expect(page.locator("#account-sessions li")).to_have_count(1)
    for other in (one, two):
        other.goto(f"{app_server.url}/profile")
        expect(other).to_have_url(re.compile(r"/sign-in/?\?to=%2Fprofile"))
    first.close()
    second.close()


def test_an_account_without_a_password_is_told_so(page: Page, app_server, db):
    account = make_participant(db, password=OLD)
    sign_in(page, app_server.url, account.email, OLD)
    account.password_hash = None  # as a LinkedIn or Google account
    db.add(account)
    db.commit()
    page.goto(f"{app_server.url}/account")
    expect(page.locator("#account-no-password")).to_contain_text("You sign in with LinkedIn or Google")
    expect(page.get_by_label("Current Password")).to_have_count(0)


@pytest.mark.parametrize("width", [375, 1280])
def test_the_page_fits_and_has_no_violations_at_both_widths(page: Page, app_server, db, browser: Browser, width):
    account = make_participant(db, password=OLD)
    context, _other = _other_device(browser, app_server.url, account.email)
    page.set_viewport_size({"width": 1280, "height": 900})
    sign_in(page, app_server.url, account.email, OLD, path="/account")
    page.set_viewport_size({"width": width, "height": 900})
    expect(page.locator("#account-sessions li")).to_have_count(2)
    page.get_by_label("Current Password").focus()
    page.keyboard.press("Tab")  # the keyboard reaches the next field
    expect(page.get_by_label("New Password", exact=True)).to_be_focused()
    # Nothing is wider than the screen.
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert_accessible(page, f"/account at {width} px")
    page.screenshot(path=ARTIFACTS / f"account-{width}.png", full_page=True)  # to look at
    context.close()


# --- two-factor sign-in ----------------------------------------------------------------------------------------


def _turn_on_two_factor(page: Page) -> tuple[str, list[str], int]:
    """On /account: turn it on with the key shown under the QR code; the secret, the recovery codes shown and the
    30-second step whose code turned it on."""
    page.get_by_role("button", name="Turn on two-factor sign-in").click()
    expect(page.locator("#two-factor-qr")).to_be_visible()
    assert_accessible(page, "/account turning on two-factor sign-in")
    secret = page.locator("#two-factor-key").inner_text().replace(" ", "")
    used = int(time.time()) // 30
    page.get_by_label("Code from your app").fill(pyotp.TOTP(secret).generate_otp(used))
    page.get_by_role("button", name="Confirm").click()
    expect(page.get_by_text("Two-factor sign-in is on.")).to_be_visible()
    codes = page.locator("#recovery-codes li")
    expect(codes).to_have_count(10)
    shown = codes.all_inner_texts()
    animations_finished(page, "[data-sonner-toast]")  # the toast faded in
    assert_accessible(page, "/account with the recovery codes shown")
    page.get_by_role("button", name="I have saved my recovery codes").click()
    expect(page.locator("#recovery-codes")).to_have_count(0)
    expect(page.locator("#codes-left")).to_have_text("10 of 10 recovery codes left.")
    return secret, shown, used


def _sign_out(page: Page) -> None:
    page.click("#account-menu")
    page.click("#desktop-sign-out")
    expect(page).to_have_url(re.compile(r"/sign-in"))


@pytest.mark.allow_console_errors(failed_request(400, "/api/account/two-factor"))
def test_two_factor_sign_in_with_a_code_then_a_recovery_code_used_once(page: Page, app_server, db):
    account = make_participant(db, password=OLD)
    sign_in(page, app_server.url, account.email, OLD, path="/account")
    expect(page.get_by_text("Protect your account with a second step at sign-in")).to_be_visible()
    secret, codes, used = _turn_on_two_factor(page)
    _sign_out(page)

    # The password alone opens nothing: the code page.
    page.goto(f"{app_server.url}/sign-in?to=%2Fprofile")
    fill_sign_in(page, account.email, OLD)
    expect(page).to_have_url(re.compile(r"/two-factor\?to=%2Fprofile"))
    expect(page.get_by_label("Code", exact=True)).to_be_visible()
    assert_accessible(page, "/two-factor")
    assert not [c for c in page.context.cookies() if c["name"] == "portal_session"]
    page.goto(f"{app_server.url}/profile")  # no session: a private page still sends to sign-in
    expect(page).to_have_url(re.compile(r"/sign-in"))
    page.go_back()
    expect(page.get_by_role("heading", name="Enter your sign-in code")).to_be_visible()
    page.get_by_label("Code", exact=True).fill(pyotp.TOTP(secret).generate_otp(used))  # it turned it on: refused
    page.get_by_role("button", name="Sign in", exact=True).click()
    expect(page.locator("#two-factor-code-error")).to_have_text(
        "That code is not right. Enter the newest code from your app, or a recovery code."
    )
    step = max(int(time.time()) // 30, used + 1)  # a later step's code (the server accepts one step ahead)
    page.get_by_label("Code", exact=True).fill(pyotp.TOTP(secret).generate_otp(step))
    page.get_by_role("button", name="Sign in", exact=True).click()
    expect(page).to_have_url(re.compile(r"/profile/?$"))
    expect(page.locator("#header-user-name")).to_be_visible()
    _sign_out(page)

    # A recovery code instead, once.
    for attempt in range(2):
        page.goto(f"{app_server.url}/sign-in")
        fill_sign_in(page, account.email, OLD)
        expect(page).to_have_url(re.compile(r"/two-factor"))
        page.get_by_label("Code", exact=True).fill(codes[0])
        page.get_by_role("button", name="Sign in", exact=True).click()
        if attempt == 0:
            expect(page.locator("#header-user-name")).to_be_visible()
            page.goto(f"{app_server.url}/account")
            expect(page.locator("#codes-left")).to_have_text("9 of 10 recovery codes left.")
            _sign_out(page)
        else:
            expect(page.locator("#two-factor-code-error")).to_contain_text("That code is not right.")
            assert not [c for c in page.context.cookies() if c["name"] == "portal_session"]


def test_staff_without_two_factor_are_sent_to_turn_it_on_before_the_admin_opens(page: Page, app_server, db):
    staff = make_participant(db, password=OLD, first_name="Sam", last_name="Secure")
    staff.staff_role = "super-admin"
    db.add(staff)
    db.commit()
    sign_in(page, app_server.url, staff.email, OLD)
    page.goto(f"{app_server.url}/admin")
    expect(page).to_have_url(re.compile(r"/account\?two_factor=1"))
    expect(page.locator("#two-factor-required")).to_have_text(
        "Staff accounts need two-factor sign-in. Turn it on here to open the admin."
    )
    page.goto(f"{app_server.url}/admin/participants")
    expect(page).to_have_url(re.compile(r"/account\?two_factor=1"))
    _turn_on_two_factor(page)
    expect(page.get_by_text("Staff accounts keep two-factor sign-in on.")).to_be_visible()
    expect(page.get_by_role("button", name="Turn off two-factor sign-in")).to_have_count(0)
    page.goto(f"{app_server.url}/admin/participants")
    expect(page).to_have_url(re.compile(r"/admin/participants"))
    expect(page.get_by_role("heading", name="Participants", level=1)).to_be_visible()


# --- my data ------------------------------------------------------------------------------------------------------


def test_download_my_data_holds_every_answer_given(page: Page, app_server, db):
    test, account = begin(page, app_server, db)  # a new invited participant takes the demo survey in the browser
    answer_influencer_route_up_to_job_title(page)
    finish(page)
    stored = db.exec(select(Review).where(Review.test_id == test.id, Review.account_id == account.id)).one()

    page.goto(f"{app_server.url}/account")
    expect(page.get_by_role("heading", name="Your data")).to_be_visible()
    with page.expect_download() as waiting:
        page.get_by_role("button", name="Download my data").click()
    download = waiting.value
    assert re.fullmatch(r"my-data-\d{4}-\d\d-\d\d\.zip", download.suggested_filename)
    with zipfile.ZipFile(download.path()) as archive:
        files = {name: archive.read(name) for name in archive.namelist()}
    [review] = json.loads(files["reviews.json"])
    assert review["answers"] == stored.answers  # every answer given, as stored
    assert FIFTEEN_WORDS in files["reviews.json"].decode()
    assert "Head of data" in files["reviews.json"].decode()
    assert json.loads(files["profile.json"])["account"]["email"] == account.email
    assert b"password_hash" not in b"".join(files.values())


# --- deleting the account -----------------------------------------------------------------------------------------


@pytest.mark.allow_console_errors(failed_request(400, "/api/account/sign-in"))
def test_delete_the_account_by_the_emailed_link(page: Page, app_server, db, smtp_server):
    account = make_participant(db, password=OLD, first_name="Dora", last_name="Departing")
    test = survey_test(db)
    db.add(Reward(account_id=account.id, amount_cents=2500, status="EXECUTED", test_id=test.id, kind="review"))
    db.add(
        AuditEntry(
            actor_id=account.id,
            actor_email=account.email,
            action="appeal.create",
            target_type="review",
            target_id="1",
            after={"by": account.email},
        )
    )
    db.commit()
    account_id, email = account.id, account.email
    ledger = db.exec(select(func.sum(Reward.amount_cents)).where(Reward.account_id == account_id)).one()

    sign_in(page, app_server.url, email, OLD, path="/account")
    page.get_by_role("button", name="E-mail me a link to delete my account").click()
    expect(page.get_by_text(f"We sent a link to {email}.")).to_be_visible()
    mail = smtp_server.wait_for(email, subject_contains="Confirm deleting your", after=0)
    (link,) = [l for l in mail.links() if "/account/delete?token=" in l]

    page.goto(link)
    expect(page.get_by_role("heading", name="Delete your account for good?")).to_be_visible()
    assert_accessible(page, "/account/delete")
    page.get_by_role("button", name="Delete my account").click()
    expect(page).to_have_url(re.compile(r"/sign-in"))
    expect(page.get_by_text("Your account was deleted.")).to_be_visible()

    fill_sign_in(page, email, OLD)  # sign-in fails
    expect(page.locator("#sign-in-global-error")).to_have_text("Incorrect email or password.")
    db.expire_all()
    assert db.exec(select(func.sum(Reward.amount_cents)).where(Reward.account_id == account_id)).one() == ledger
    entries = db.exec(select(AuditEntry).where(AuditEntry.actor_id == account_id)).all()
    assert {e.action for e in entries} == {"appeal.create", "account.deleted"}
    assert all(e.actor_email == f"account #{account_id} (deleted)" for e in entries)
    assert email not in json.dumps([e.after for e in entries])
    page.goto(link)  # the link a second time
    expect(page.locator("#delete-account-dead")).to_be_visible()
