"""The profile form (screen 10) and the demo opt-in modal (screen 15) in the browser."""

from __future__ import annotations

import os
import re
import uuid
from pathlib import Path

from playwright.sync_api import Page, expect
from sqlmodel import select

from portal.models import Account, FeatureFlagUser, ParticipantProfile
from tests.e2e.conftest import wait_for_hydration
from tests.e2e.helpers import animations_finished, home_page_answered, sign_in
from tests.support import two_factor
from tests.support.factories import make_participant

PASSWORD = "Correct-Horse-42!"
SHOTS = Path(os.environ.get("E2E_SCREENSHOTS", "/tmp/e2e-screenshots"))


def _participant(db, **profile_values) -> Account:
    account = make_participant(db)
    profile = db.get(ParticipantProfile, account.id)
    for key, value in {"languages": ["english"], "country": "US", "state": "US-CA", **profile_values}.items():
        setattr(profile, key, value)
    db.add(profile)
    db.commit()
    return account


def _shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_edit_profile_limits_and_save(page: Page, app_server, db, smtp_server):
    account = _participant(db)
    sign_in(page, app_server.url, account.email, PASSWORD, path="/profile")
    expect(page.locator("#profile-title")).to_have_text("Become a participant - Have an impact, get paid.")
    expect(
        page.get_by_text("Never miss a test invite, get notifications to your phone (not obligatory)")
    ).to_be_visible()
    expect(page.locator("#profile-firstName")).to_have_value("Avery")

    # The industry list can be searched.
    page.fill("#industry-search", "zzz-no-such-industry")
    expect(page.locator("#industry-no-matches")).to_have_text("No matches found")
    page.fill("#industry-search", "bank")
    expect(page.locator(".industry-option")).to_have_count(1)
    expect(page.locator("#industry-list").get_by_role("checkbox", name="Banking")).to_be_visible()
    page.fill("#industry-search", "")

    # A 4th industry is refused: the limit message, and Submit is hidden until one is removed.
    options = page.locator(".industry-option")
    expect(options).to_have_count(57)
    for i in range(4):
        options.nth(i).click()
    expect(page.get_by_text("You can add up to 3 industries.")).to_be_visible()
    expect(page.locator("#profile-check-values")).to_have_text("Check that all values in the form are correct.")
    expect(page.locator("#profile-submit")).to_have_count(0)
    options.nth(3).click()
    expect(page.locator("#profile-submit")).to_be_visible()
    expect(page.locator("#industry-chips .rt-Badge")).to_have_count(3)

    # Seniority: after two, the others are disabled.
    page.click("#experienceLevels-founder")
    page.click("#experienceLevels-senior")
    expect(page.locator("#experienceLevels-middle")).to_be_disabled()
    expect(page.locator("#experienceLevels-specialist")).to_be_disabled()
    expect(page.locator("#experienceLevels-founder")).to_be_enabled()

    # Languages: 'none' clears the others; another language removes 'none'.
    page.click("#languages-dutch")
    expect(page.locator("#languages-dutch")).to_have_attribute("data-state", "checked")
    page.click("#languages-none")
    expect(page.locator("#languages-none")).to_have_attribute("data-state", "checked")
    expect(page.locator("#languages-english")).to_have_attribute("data-state", "unchecked")
    expect(page.locator("#languages-dutch")).to_have_attribute("data-state", "unchecked")
    expect(page.get_by_text("Fluent English is required for all panelists.", exact=True)).to_be_visible()
    page.click("#languages-english")
    expect(page.locator("#languages-none")).to_have_attribute("data-state", "unchecked")
    expect(page.locator("#languages-english")).to_have_attribute("data-state", "checked")

    # Country and state: changing country clears a state that is not in it.
    expect(page.locator("#profile-state")).to_have_value("US-CA")
    page.select_option("#profile-country", "CA")
    expect(page.locator("#profile-state")).to_have_value("")
    page.select_option("#profile-state", "CA-ON")
    expect(page.locator("#profile-state")).to_have_value("CA-ON")

    # Birth year keeps digits only; LinkedIn is normalised on save.
    page.fill("#profile-birthYear", "19x88")
    expect(page.locator("#profile-birthYear")).to_have_value("1988")
    page.fill("#profile-linkedin", "linkedin.com/in/avery-tester")
    page.fill("#profile-phoneNumber", "+1 415 555 0199")

    # A new work e-mail: saved unverified, with a verification link by e-mail.
    new_work = f"avery-{uuid.uuid4().hex[:8]}@initech-labs.com"
    page.fill("#profile-workEmail", new_work)
    # Leaving the field sends its debounced event at once; Submit's event goes after it, and the server
    # runs a tab's events in order: no wait is needed for the field's event to reach it first.
    page.locator("#profile-workEmail").blur()
    _shot(page, "profile-1280")
    page.click("#profile-submit")
    expect(page.get_by_text("Change request has been sent successfully!")).to_be_visible()
    warning = f"We've sent a verification link to {new_work}. Please check your email, including spam folders."
    expect(page.locator(".verify-warning")).to_have_text(warning)
    mail = smtp_server.wait_for(new_work, subject_contains="Verify your work email")
    assert any("verify-email?token=" in link for link in mail.links())
    expect(page.locator("#banner-work")).to_contain_text(new_work)

    # The values survive a reload.
    page.reload()
    page.wait_for_selector("#portal-ready", state="attached")
    expect(page.locator("#profile-workEmail")).to_have_value(new_work)
    expect(page.locator("#industry-chips .rt-Badge")).to_have_count(3)
    expect(page.locator("#experienceLevels-founder")).to_have_attribute("data-state", "checked")
    expect(page.locator("#experienceLevels-senior")).to_have_attribute("data-state", "checked")
    expect(page.locator("#languages-english")).to_have_attribute("data-state", "checked")
    expect(page.locator("#profile-country")).to_have_value("CA")
    expect(page.locator("#profile-state")).to_have_value("CA-ON")
    expect(page.locator("#profile-birthYear")).to_have_value("1988")
    expect(page.locator("#profile-linkedin")).to_have_value("https://www.linkedin.com/in/avery-tester")
    expect(page.locator("#profile-phoneNumber")).to_have_value("+14155550199")
    db.expire_all()
    stored = db.get(Account, account.id)
    assert stored.work_email == new_work and stored.work_email_verified_at is None

    # The verification link from the e-mail verifies the new work address.
    page.goto(next(link for link in mail.links() if "verify-email" in link))
    expect(page.get_by_text(f"Your email {new_work} has been verified")).to_be_visible()


def test_personal_email_change_and_a_taken_address(page: Page, app_server, db, smtp_server):
    other = make_participant(db)
    account = _participant(db)
    sign_in(page, app_server.url, account.email, PASSWORD, path="/profile")
    expect(page.locator("#profile-email")).to_have_value(account.email)
    page.fill("#profile-email", other.email)
    expect(page.locator("#profile-email-error")).to_have_text("Email already exists")
    page.click("#profile-submit")
    expect(page.locator("#profile-form-error")).to_have_text("Form contains error, please double check all fields")

    # The work e-mail follows the onboarding's rule: no free-mail address for a participant.
    page.fill("#profile-workEmail", "avery@gmail.com")
    expect(page.locator("#profile-workEmail-error")).to_have_text(
        "Please use your work email. Addresses from free email providers such as gmail.com are not accepted."
    )
    page.fill("#profile-workEmail", account.work_email)
    expect(page.locator("#profile-workEmail-error")).to_have_count(0)

    new_email = f"Moved-{uuid.uuid4().hex[:8]}@example.com"
    page.fill("#profile-email", new_email)
    expect(page.locator("#profile-email-error")).to_have_count(0)
    page.click("#profile-submit")
    expect(page.get_by_text("Change request has been sent successfully!")).to_be_visible()
    expect(page.locator(".verify-warning")).to_contain_text(f"We've sent a verification link to {new_email.lower()}.")
    mail = smtp_server.wait_for(new_email.lower(), subject_contains="Verify your email")
    notice = smtp_server.wait_for(account.email, subject_contains="was changed")
    assert new_email.lower() in notice.body
    page.goto(next(link for link in mail.links() if "verify-email" in link))
    expect(page.get_by_text(f"Your email {new_email.lower()} has been verified")).to_be_visible()
    page.goto(f"{app_server.url}/profile")
    expect(page.locator("#profile-email")).to_have_value(new_email.lower())


def test_profile_at_375px(page: Page, app_server, db):
    account = _participant(db)
    sign_in(page, app_server.url, account.email, PASSWORD)
    page.set_viewport_size({"width": 375, "height": 800})
    page.goto(f"{app_server.url}/profile")
    expect(page.locator("#profile-title")).to_be_visible()
    expect(page.locator(".industry-option").first).to_be_visible()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 375, f"the page scrolls sideways ({width}px)"
    _shot(page, "profile-375")
    # Each demographic list offers 'Prefer not to answer' once, never also 'Prefer not to say' (issue 40).
    for key in ("gender", "pronoun", "sex_orientation", "race", "ethnicity", "veteran"):
        options = page.locator(f"#profile-{key} option").all_inner_texts()
        assert options.count("Prefer not to answer") == 1 and "Prefer not to say" not in options, (key, options)
        assert options[0] == "Choose one"


def test_staff_only_parts(page: Page, app_server, db, browser):
    participant = _participant(db)
    staff = make_participant(db, first_name="Sam", last_name="Staff")
    staff.staff_role = "super-admin"
    db.add(staff)
    participant.verified = False
    db.add(participant)
    db.commit()
    two_factor.enable(db, staff.id)  # staff act only with two-factor sign-in on

    # The participant sees none of the internal parts, and /profile is their own whatever the query says.
    sign_in(page, app_server.url, participant.email, PASSWORD, path="/profile")
    expect(page.locator("#profile-submit")).to_be_visible()
    expect(page.locator("#profile-staff")).to_have_count(0)
    expect(page.locator("#profile-verify")).to_have_count(0)
    page.goto(f"{app_server.url}/profile?participant={staff.id}")
    expect(page.locator("#profile-firstName")).to_have_value("Avery")
    expect(page.locator("#profile-email")).to_have_value(participant.email)
    # The staff page is not found for a participant.
    page.goto(f"{app_server.url}/admin/participants/{staff.id}")
    expect(page.locator("#not-found-text")).to_be_visible()

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        admin = wait_for_hydration(context.new_page())
        # Staff too: /profile?participant= shows their own profile, without the internal parts.
        sign_in(admin, app_server.url, staff.email, PASSWORD, path=f"/profile?participant={participant.id}")
        expect(admin.locator("#profile-firstName")).to_have_value("Sam")
        expect(admin.locator("#profile-staff")).to_have_count(0)
        # From the participants table to the staff page of the participant.
        admin.goto(f"{app_server.url}/admin/participants")
        admin.fill("#admin-participants-search", participant.email)
        expect(admin.locator("#admin-participants-toolbar")).to_have_attribute("data-search", participant.email)
        row = admin.locator("[data-row-id]", has_text=participant.email)
        expect(row).to_have_count(1)
        row.get_by_role("button", name="Profile").click()
        expect(admin).to_have_url(re.compile(rf"/admin/participants/{participant.id}$"))
        expect(admin).to_have_title(re.compile(r"^Participant \| Admin"))
        expect(admin.locator("#admin-profile-email")).to_have_text(participant.email)
        expect(admin.locator("#profile-firstName")).to_have_value("Avery")
        expect(admin.locator("#profile-staff")).to_be_visible()
        expect(admin.locator("#profile-verify")).to_have_text("Submit & Verify")
        # What blocks verification, field by field; the button waits until nothing does.
        admin.fill("#profile-firstName", "")
        expect(admin.locator("#verify-blockers")).to_contain_text("First name: First name is required")
        expect(admin.locator("#profile-verify")).to_be_disabled()
        admin.fill("#profile-firstName", "Averill")
        expect(admin.locator("#verify-blockers")).to_contain_text("Nothing blocks verification.")
        admin.locator("#role-list").get_by_text("Product Manager", exact=True).click()
        expect(admin.locator("#role-chips")).to_contain_text("Product Manager")
        admin.fill("#profile-workEmail", f"averill-{uuid.uuid4().hex[:6]}@gmail.com")  # staff may add any e-mail
        admin.locator("#profile-workEmail").blur()
        expect(admin.locator("#profile-verify")).to_be_enabled()
        admin.click("#profile-verify")
        expect(admin.get_by_text("Profile saved. The participant is verified.")).to_be_visible()
        expect(admin.get_by_text("Change request has been sent successfully!")).to_have_count(0)
        expect(admin.locator("#profile-verify")).to_have_text("Verified")
        expect(admin.locator("#profile-verify")).to_be_disabled()
        expect(admin.locator("#old-firstName")).to_have_text("Previously: Avery")
        expect(admin.locator("#role-chips")).to_contain_text("Product Manager")
        _shot(admin, "admin-participant-1280")
        admin.set_viewport_size({"width": 375, "height": 800})
        expect(admin.locator("#old-firstName")).to_be_visible()
        width = admin.evaluate("document.documentElement.scrollWidth")
        assert width <= 375, f"the page scrolls sideways ({width}px)"
        _shot(admin, "admin-participant-375")
        # The audit log has the change, under the staff member.
        admin.set_viewport_size({"width": 1280, "height": 900})
        admin.goto(f"{app_server.url}/admin/audit")
        expect(admin.get_by_text("Changed and verified participant's profile").first).to_be_visible()
    finally:
        context.close()
    db.expire_all()
    assert db.get(Account, participant.id).verified


def _with_demo_flag(db, account: Account) -> None:
    db.add(FeatureFlagUser(flag_key="demo-product", account_id=account.id, enabled=True))
    db.commit()


def _demo_status(db, account: Account):
    db.expire_all()
    return db.get(ParticipantProfile, account.id).demo_product_opt_in_status


def test_demo_modal_yes_goes_to_the_demo_route(page: Page, app_server, db):
    account = _participant(db)
    _with_demo_flag(db, account)
    sign_in(page, app_server.url, account.email, PASSWORD)
    expect(page.locator("#demo-opt-in-title")).to_have_text("New way to engage: live meetings.")
    animations_finished(page, "#demo-opt-in")  # the dialog's fade-in
    _shot(page, "demo-modal-1280")
    page.click("#demo-opt-in-yes")
    expect(page).to_have_url(re.compile(r"/demo/?\?demoProductOptInStatus=true$"))
    expect(page.locator("#demo-status")).to_contain_text("You will be invited to live demo meetings.")
    assert _demo_status(db, account) is True
    page.click("#demo-back")
    expect(page).to_have_url(re.compile(r"/$"))
    expect(page.locator("#welcome-name")).to_be_visible()
    expect(page.locator("#demo-opt-in")).to_have_count(0)


def test_demo_modal_no_and_close(page: Page, app_server, db, browser):
    account = _participant(db)
    _with_demo_flag(db, account)
    sign_in(page, app_server.url, account.email, PASSWORD)
    page.set_viewport_size({"width": 375, "height": 800})
    expect(page.locator("#demo-opt-in")).to_be_visible()
    animations_finished(page, "#demo-opt-in")  # the dialog's fade-in
    _shot(page, "demo-modal-375")
    # Closing hides it for this browser session, and saves nothing.
    page.click("#demo-opt-in-close")
    expect(page.locator("#demo-opt-in")).to_have_count(0)
    page.reload()
    page.wait_for_selector("#portal-ready", state="attached")
    expect(page.locator("#welcome-name")).to_be_visible()
    home_page_answered(page)  # the page's load has been answered in full: a modal would show by now
    expect(page.locator("#demo-opt-in")).to_have_count(0)
    assert _demo_status(db, account) is None

    # A new browser session asks again; No saves false and it does not come back.
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        other = wait_for_hydration(context.new_page())
        sign_in(other, app_server.url, account.email, PASSWORD)
        expect(other.locator("#demo-opt-in")).to_be_visible()
        other.click("#demo-opt-in-no")
        expect(other.locator("#demo-opt-in")).to_have_count(0)
        assert _demo_status(db, account) is False
        other.reload()
        expect(other.locator("#welcome-name")).to_be_visible()
        home_page_answered(other)  # the page's load has been answered in full: a modal would show by now
        expect(other.locator("#demo-opt-in")).to_have_count(0)
    finally:
        context.close()


def test_demo_modal_not_shown_without_the_flag(page: Page, app_server, db):
    account = _participant(db)
    sign_in(page, app_server.url, account.email, PASSWORD)
    expect(page.locator("#welcome-name")).to_be_visible()
    home_page_answered(page)  # the page's load has been answered in full: a modal would show by now
    expect(page.locator("#demo-opt-in")).to_have_count(0)
    assert db.exec(select(FeatureFlagUser).where(FeatureFlagUser.account_id == account.id)).first() is None
