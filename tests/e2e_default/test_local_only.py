"""`make run` stays a local tool: started as `make run` starts it (`reflex run --env prod --single-port`,
a loopback BASE_URL, no settings), the server listens on 127.0.0.1 only, so nobody on the same network
reaches it or its local sign-in stand-in; and the stand-in refuses to sign in to a staff account,
saying so on its page."""

from __future__ import annotations

import re
import socket
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Page, expect
from sqlmodel import select

from portal.domain.local_oidc import STAFF_REFUSED
from portal.domain.staff import roles
from portal.models import Account, AuthSession
from tests.support.factories import make_participant


def listening_addresses(port: int) -> set[str]:
    """The local addresses of the TCP sockets listening on `port` (/proc/net/tcp and tcp6)."""
    found = set()
    for table, family in (("/proc/net/tcp", socket.AF_INET), ("/proc/net/tcp6", socket.AF_INET6)):
        path = Path(table)
        if not path.exists():
            continue
        for line in path.read_text().splitlines()[1:]:
            fields = line.split()
            local, state = fields[1], fields[3]
            address, _, hex_port = local.partition(":")
            if state != "0A" or int(hex_port, 16) != port:  # 0A: LISTEN
                continue
            raw = bytes.fromhex(address)
            # The kernel writes each 32-bit word in host (little-endian) order.
            raw = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
            found.add(socket.inet_ntop(family, raw))
    return found


def outward_address() -> str | None:
    """This machine's address on its network (a UDP socket's route lookup: no packet is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 9))
            address = probe.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") or address == "0.0.0.0" else address


def test_make_run_listens_on_127_0_0_1_only(app_server):
    port = urlsplit(app_server.url).port
    assert listening_addresses(port) == {"127.0.0.1"}
    with socket.create_connection(("127.0.0.1", port), timeout=5):
        pass  # reachable here
    elsewhere = outward_address()
    if elsewhere is None:
        pytest.skip("this machine has no address besides loopback to try")
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection((elsewhere, port), timeout=5).close()  # this machine's own address: stays local


def test_the_stand_in_never_signs_in_to_a_staff_account(page: Page, app_server, db):
    staff = make_participant(db)
    staff.staff_role = roles.TEAM_MANAGER
    db.add(staff)
    db.commit()
    email, staff_id = staff.email, staff.id
    page.goto(f"{app_server.url}/sign-in")
    page.get_by_role("button", name="Sign In with Google").click()
    expect(page).to_have_url(re.compile(r"/local-oidc/google/authorize\?"))
    page.get_by_label("First name").fill("Sam")
    page.get_by_label("Last name").fill("Staff")
    page.get_by_label("E-mail").fill(email.upper())
    page.click("#local-oidc-continue")
    expect(page.locator("#email-error")).to_have_text(STAFF_REFUSED)
    expect(page).to_have_url(re.compile(r"/local-oidc/google/authorize"))  # still the stand-in's page
    db.expire_all()
    assert db.exec(select(AuthSession).where(AuthSession.account_id == staff_id)).first() is None
    assert db.get(Account, staff_id).last_login_method is None
