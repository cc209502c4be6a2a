"""One real app process for the whole browser-test session, served as users get it.

The app runs `reflex run --env prod --single-port` on a free port against a
migrated and seeded SQLite file; Playwright drives Debian's Chromium against it.
Each app keeps what it writes to itself (its SQLite file, uploaded images, Reflex's states directory in a
temporary directory), and builds its frontend in the session's web directory (`web_dir`): a suite that runs
at the same time as tests/e2e (tests/security in `make test`) has a web directory of its own.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright
from sqlmodel import Session

from portal.db import make_engine
from tests.support import two_factor
from tests.support.browser_console import ConsoleWatch, unexpected
from tests.support.chromium import CHROMIUM_ARGS, CHROMIUM_PATH
from tests.support.oidc_provider import OidcProvider
from tests.support.portal_server import start_portal, stop_portal
from tests.support.sentry_server import SentryServer
from tests.support.smtp_server import SmtpServer
from tests.support.web_dir import prepare_web_dir

ROOT = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent
START_TIMEOUT = 900
READY_PATHS = ("/api/health", "/sign-in/")
WEB_DIR = ROOT / ".web"  # Reflex's default


@dataclass
class AppServer:
    url: str
    database_url: str
    log_path: Path
    env: dict[str, str] = field(default_factory=dict, repr=False)
    proc: subprocess.Popen | None = field(default=None, repr=False)

    def db(self) -> Session:
        return Session(make_engine(self.database_url), expire_on_commit=False)

    def restart(self) -> None:
        """Stop the backend process and start it again on the same port, database and settings, serving the
        frontend its first start built (tests.support.serve_built: the same files, not built again)."""
        if self.proc is not None:
            stop_app(self.proc)
        self.proc = start_portal(
            int(self.env["PORT"]), self.env, self.log_path, timeout=START_TIMEOUT, ready_paths=READY_PATHS, built=True
        )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def app_env(port: int, database_url: str, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        DATABASE_URL=database_url,
        PORT=str(port),
        BASE_URL=f"http://localhost:{port}",
        REDIS_URL="",
        SECRET_KEY=two_factor.APP_SECRET_KEY,
        REFLEX_USE_NPM="1",
        REFLEX_TELEMETRY_ENABLED="false",
        PATH=f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}",
    )
    env.update(extra)
    return env


def start_app(port: int, env: dict[str, str], log_path: Path) -> subprocess.Popen:
    """Migrate and seed the app's database, then start it, building its frontend in env's REFLEX_WEB_WORKDIR
    (`.web` when unset; a new one starts as a copy of `.web`, its npm packages installed once)."""
    for command in (["migrate"], ["seed-demo"]):
        subprocess.run(
            [sys.executable, "-m", "portal.cli", *command], env=env, cwd=ROOT, check=True, capture_output=True
        )
    prepare_web_dir(ROOT / env.get("REFLEX_WEB_WORKDIR", WEB_DIR), WEB_DIR)
    return start_portal(port, env, log_path, timeout=START_TIMEOUT, ready_paths=READY_PATHS)


def stop_app(proc: subprocess.Popen) -> None:
    stop_portal(proc)


@pytest.fixture(scope="session")
def smtp_server() -> Iterator[SmtpServer]:
    """The app's SMTP server: a real one on loopback that keeps what it receives."""
    server = SmtpServer().start()
    yield server
    server.stop()


def smtp_env(server: SmtpServer) -> dict[str, str]:
    return {
        "SMTP_HOST": "127.0.0.1",
        "SMTP_PORT": str(server.port),
        "SMTP_SECURITY": "none",
        "MAIL_POLL_SECONDS": "0.5",
    }


@pytest.fixture(scope="session")
def oidc_provider() -> Iterator[OidcProvider]:
    """LinkedIn and Google for the app: a real OpenID Connect provider on loopback."""
    provider = OidcProvider().start()
    yield provider
    provider.stop()


def served_app(
    tmp_path_factory: pytest.TempPathFactory,
    name: str,
    settings: Callable[[int, str], dict[str, str]],
    web_dir: Path = WEB_DIR,
) -> Iterator[AppServer]:
    """The app on a free port with its own SQLite file, media and states directories, its environment made by
    `settings(port, database_url)`, its frontend built in `web_dir`; stopped when the session ends."""
    data = tmp_path_factory.mktemp(name)
    port = free_port()
    database_url = f"sqlite:///{data}/{name}.db"
    env = settings(port, database_url)
    env.update(
        MEDIA_DIR=str(data / "media"),
        UPLOAD_TMP_DIR=str(data / "media" / ".incoming"),
        LOCAL_PAYOUTS_DB=str(data / "local-payouts.db"),
        LOCAL_PARTNERS_DB=str(data / "local-partners.db"),
        REFLEX_STATES_WORKDIR=str(data / "states"),
        REFLEX_WEB_WORKDIR=str(web_dir),
    )
    log_path = data / "server.log"
    server = AppServer(
        url=env["BASE_URL"], database_url=database_url, log_path=log_path, env=env, proc=start_app(port, env, log_path)
    )
    try:
        yield server
    finally:
        if server.proc is not None:
            stop_app(server.proc)


@pytest.fixture(scope="session")
def sentry_server() -> Iterator[SentryServer]:
    """The app's Sentry: a stand-in on loopback that keeps the events and log lines the SDK sends."""
    server = SentryServer().start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def web_dir() -> Path:
    """Where the session's app builds its frontend: `.web` for tests/e2e (and the suites `make e2e` runs after it,
    one at a time); tests/security overrides it, so both suites can run at once. REFLEX_WEB_WORKDIR, when set,
    names another one (several checkouts' worth of runs side by side)."""
    return ROOT / os.environ["REFLEX_WEB_WORKDIR"] if os.environ.get("REFLEX_WEB_WORKDIR") else WEB_DIR


@pytest.fixture(scope="session")
def app_server(
    tmp_path_factory: pytest.TempPathFactory,
    smtp_server: SmtpServer,
    oidc_provider: OidcProvider,
    sentry_server: SentryServer,
    web_dir: Path,
) -> Iterator[AppServer]:
    # Loopback is a trusted proxy here, so tests can speak for distinct clients with X-Forwarded-For.
    # Error reporting is on, as in production: every test runs with the SDK sending to the stand-in.
    # The payout job runs once at start and then once a day: a reward a test seeds moves only when the test moves
    # it ('Pay now', mark paid); tests/e2e_default sees the job order rewards at its own pace.
    yield from served_app(
        tmp_path_factory,
        "app",
        lambda port, database_url: app_env(
            port,
            database_url,
            TRUSTED_PROXIES="127.0.0.1",
            PAYOUT_EVERY_SECONDS="86400",
            **smtp_env(smtp_server),
            **oidc_provider.env(),
            **sentry_server.env(),
        ),
        web_dir,
    )


CONSOLE = ConsoleWatch()


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM_PATH, args=CHROMIUM_ARGS)
        new_context = b.new_context

        def watched_context(*args, **kwargs) -> BrowserContext:
            """Every context a test opens reports its console errors and CSP violations."""
            return CONSOLE.attach(new_context(*args, **kwargs))

        b.new_context = watched_context
        yield b
        b.close()


@pytest.fixture(autouse=True)
def console_guard(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail the test (at teardown, after its contexts closed) on any browser console error, page
    error or Content-Security-Policy violation it did not declare with
    @pytest.mark.allow_console_errors(pattern, ...)."""
    CONSOLE.take()
    yield
    marker = request.node.get_closest_marker("allow_console_errors")
    problems = unexpected(CONSOLE.take(), None if marker is None else marker.args)
    if problems:
        pytest.fail("the browser reported errors:\n  " + "\n  ".join(problems), pytrace=False)


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    ctx.set_default_timeout(20000)
    yield ctx
    ctx.close()


def wait_for_hydration(page: Page) -> Page:
    """Make page.goto wait until the app has hydrated: a click before that is lost."""
    goto = page.goto

    def goto_and_wait(url: str, **kwargs):
        response = goto(url, **kwargs)
        if "/api/" not in urlsplit(page.url).path:  # landed on an app page, not a JSON answer
            page.wait_for_selector("#portal-ready", state="attached", timeout=30000)
        return response

    page.goto = goto_and_wait
    return page


@pytest.fixture
def page(context: BrowserContext) -> Page:
    return wait_for_hydration(context.new_page())


@pytest.fixture
def db(app_server: AppServer) -> Iterator[Session]:
    with app_server.db() as session:
        yield session
