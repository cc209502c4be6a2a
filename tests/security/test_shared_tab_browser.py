"""In Chromium: user A views /profile, signs out from the account menu, user B signs in on the same
tab (same Reflex client token); B sees none of A's values on the page or in any websocket message."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.e2e.helpers import sign_in
from tests.support.factories import make_participant

PASSWORD = "Correct-Horse-42!"


def test_the_next_user_on_a_tab_sees_nothing_of_the_previous_one(page: Page, app_server, db):
    a = make_participant(db, first_name="Zephyrina", last_name="Quillfeather")
    b = make_participant(db, first_name="Bertram", last_name="Oakes")
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(str(payload))))

    sign_in(page, app_server.url, a.email, PASSWORD, path="/profile")
    expect(page.locator("#header-user-name")).to_contain_text("Zephyrina")
    page.wait_for_function(
        "(v) => [...document.querySelectorAll('input')].some((i) => i.value === v)", arg="Quillfeather"
    )
    assert any("Quillfeather" in f for f in frames)  # the control: A's values came over the socket
    client_token = page.evaluate("() => window.sessionStorage.getItem('token')")

    page.click("#account-menu")
    page.click("#desktop-sign-out")
    expect(page).to_have_url(re.compile(r"/sign-in"))
    frames.clear()
    sign_in(page, app_server.url, b.email, PASSWORD, path="/profile")
    expect(page.locator("#header-user-name")).to_contain_text("Bertram")
    page.wait_for_function("(v) => [...document.querySelectorAll('input')].some((i) => i.value === v)", arg="Oakes")
    assert page.evaluate("() => window.sessionStorage.getItem('token')") == client_token  # the same tab state

    content = page.content()
    inputs = page.evaluate("() => [...document.querySelectorAll('input, textarea')].map((i) => i.value).join(' ')")
    for value in (a.email, "Zephyrina", "Quillfeather"):
        assert value not in content and value not in inputs
        assert not any(value in f for f in frames), value
