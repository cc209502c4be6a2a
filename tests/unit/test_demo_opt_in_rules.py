"""The demo opt-in modal (screen 15): when it may show, the demo route, the remembered address."""

from __future__ import annotations

from portal.domain import demo_opt_in as rules


def test_modal_shows_only_while_the_choice_is_unset_and_not_closed() -> None:
    assert rules.modal_visible(flag_on=True, status=None, dismissed_this_session=False)
    assert not rules.modal_visible(flag_on=True, status=True, dismissed_this_session=False)
    assert not rules.modal_visible(flag_on=True, status=False, dismissed_this_session=False)
    assert not rules.modal_visible(flag_on=True, status=None, dismissed_this_session=True)
    assert not rules.modal_visible(flag_on=False, status=None, dismissed_this_session=False)


def test_demo_route_and_remembered_address() -> None:
    assert rules.TITLE == "New way to engage: live meetings."
    assert rules.demo_route(True) == "/demo?demoProductOptInStatus=true"
    assert rules.demo_route(False) == "/demo?demoProductOptInStatus=false"
    assert rules.remembered_address("/", "") == "/"
    assert rules.remembered_address("/profile", "tab=x") == "/profile?tab=x"
    assert rules.remembered_address("//evil.example", "") == "/"
    assert rules.remembered_address("/sign-in", "to=%2F") == "/"
