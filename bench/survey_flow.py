"""What bench/survey_load.py and bench/scale_load.py share: the bench database, the bench copy of the
demo survey, participants with sessions, and a participant's tab on /test/{id}/rate speaking the
frontend's websocket protocol (bench/reflex_client.py), with its events named from the state classes.
"""

from __future__ import annotations

import json
import math
import statistics
import subprocess
import sys
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
VENV_BIN = Path(sys.executable).parent
PG_ADMIN = "postgresql://postgres@127.0.0.1:5432"
PG_NAME = "bench_survey"
DEMO_SURVEY = ROOT / "portal/data/demo_tests/01-survey.json"
BENCH_TEST_NAME = "Bench: Survey - How teams buy analytics software"
WORDS_15 = " ".join(f"word{i}" for i in range(15))

# The 'decider' route through the demo survey: key -> answer value (None: a description, no answer).
DECIDER_ROUTE: list[tuple[str, Any]] = [
    ("involvement", "decider"),
    ("tools-used", ["spreadsheets", "bi-suite"]),
    ("annual-budget", 25000),
    ("budget-share", 15),
    ("priorities", ["price", "ease", "integrations", "support"]),
    ("satisfaction", 4),
    ("statements", {"trust": ["agree"], "speed": ["neutral"]}),
    ("concept-intro", None),
    ("discovery-channel", "peers"),
    ("must-haves", ["sso", "exports"]),
    ("job-title", "Head of data"),
    ("last-purchase", WORDS_15),
    ("pitch-feedback", "A free trial with our own data"),
]

STARTUP_TIMEOUT = 900
UPDATE_TIMEOUT = 180


# --- database and participants --------------------------------------------------------------


def prepare_database(backend: str, data_dir: Path, pg_name: str = PG_NAME) -> str:
    """A fresh, migrated database for the run (PostgreSQL: `pg_name`, dropped and re-created); returns its URL."""
    from alembic.config import Config

    from alembic import command

    if backend == "sqlite":
        url = f"sqlite:///{data_dir / 'survey-bench.db'}"
    else:
        import psycopg

        with psycopg.connect(f"{PG_ADMIN}/postgres", autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{pg_name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{pg_name}"')
        url = f"{PG_ADMIN}/{pg_name}"
    cfg = Config(str(ROOT / "alembic.ini"))
    cfg.set_main_option("sqlalchemy.url", url)
    cfg.attributes["configure_logging"] = False
    command.upgrade(cfg, "head")
    return url


def bench_survey_definition() -> dict[str, Any]:
    """The demo survey under its own name, without the participant and seniority limits (200 must fit)."""
    data = json.loads(DEMO_SURVEY.read_text())
    data["name"] = BENCH_TEST_NAME
    data.pop("participantLimit", None)
    data.pop("seniorityLimits", None)
    return data


def import_bench_survey(database_url: str) -> int:
    from sqlmodel import Session

    from portal.db import make_engine
    from portal.services.definition_import import import_test

    with Session(make_engine(database_url)) as session:
        test = import_test(session, bench_survey_definition())
        session.commit()
        return test.id


def make_participants(database_url: str, test_id: int, count: int) -> list[str]:
    """`count` verified participants, each with an open invite and a live session; their Cookie headers."""
    return [cookie for _, cookie in make_participant_accounts(database_url, test_id, count)]


def make_participant_accounts(database_url: str, test_id: int, count: int) -> list[tuple[int, str]]:
    """`count` verified participants, each with an open invite and a live session: (account id, Cookie header)."""
    from sqlmodel import Session

    from portal.db import make_engine
    from portal.domain.passwords_hashing import hash_password
    from portal.http.client import SESSION_COOKIE
    from portal.models import Invite
    from portal.models._base import utcnow
    from portal.services.sessions import create_session
    from tests.support.factories import make_participant

    password_hash = hash_password("Correct-Horse-42!")  # once: argon2 costs 0.2 s a hash
    cookies = []
    engine = make_engine(database_url)
    with Session(engine) as session:
        for _ in range(count):
            account = make_participant(session, password_hash=password_hash)
            now = utcnow()
            session.add(
                Invite(
                    account_id=account.id,
                    test_id=test_id,
                    amount_cents=2000,
                    created_at=now,
                    expires_at=now + timedelta(hours=24),
                )
            )
            token = create_session(session=session, account_id=account.id, user_agent="bench/survey_load")
            session.commit()
            cookies.append((account.id, f"{SESSION_COOKIE}={token}"))
    engine.dispose()
    return cookies


# --- one participant ------------------------------------------------------------------------


@dataclass
class Events:
    """Full event names, from the state classes (never hard-coded mangled names)."""

    hydrate: str
    answer: str
    noop: str
    start: str
    next: str
    begin: str
    survey_state: str
    rate_state: str
    bridge: str = ""
    next_with: str = ""

    @classmethod
    def survey(cls) -> Events:
        from reflex.state import State

        from portal.states.taking.rate import RateState
        from portal.states.taking.survey import SurveyState

        survey = SurveyState.get_full_name()
        return cls(
            hydrate=f"{State.get_full_name()}.hydrate_and_load",
            answer=f"{survey}.set_answer",
            noop=f"{survey}.noop",
            start=f"{survey}.start_survey",
            next=f"{survey}.go_next",
            begin=f"{survey}.begin",
            survey_state=survey,
            rate_state=RateState.get_full_name(),
            bridge=f"{survey}.bridge",
            next_with=f"{survey}.go_next_with",
        )


@dataclass
class Samples:
    answer: list[float] = field(default_factory=list)
    noop: list[float] = field(default_factory=list)
    events_sent: int = 0


class FlowError(RuntimeError):
    pass


def portal_survey_calls(code: str) -> list[tuple[str, list[Any]]]:
    """The window.portalTaking.<name>(...) call in an `rx.call_script` code (`portal_call` writes the
    call twice, for before and after /portal.js has loaded: the first is read), with its JSON arguments."""
    if code.startswith('"'):
        code = json.loads(code)
    marker = "window.portalTaking."
    at = code.find(marker)
    if at < 0:
        return []
    name_end = code.index("(", at)
    name, rest, args = code[at + len(marker) : name_end], code[name_end + 1 :], []
    decoder = json.JSONDecoder()
    while rest and not rest.startswith(")"):
        value, end = decoder.raw_decode(rest)
        args.append(value)
        rest = rest[end:].lstrip(", ")
    return [(name, args)]


@dataclass
class SavedAnswers:
    """What window.portalTaking keeps of the answers (assets/portal.js, issue 18 item 3): the changes a
    reply handed over stay pending ({key: {answer, seq}}) until a later reply or a confirmation shows
    the stored state holds them; `kept` is each confirmed answer's value: the acknowledgement."""

    pending: dict[str, dict[str, Any]] = field(default_factory=dict)
    kept: dict[str, Any] = field(default_factory=dict)
    asked: bool = False  # Continue asked for the pending answers (go_next_with must follow)

    def _keep(self, key: str) -> None:
        self.kept[key] = (self.pending.pop(key).get("answer") or {}).get("value")

    def reply(self, payload: dict[str, Any], changed: dict[str, Any]) -> None:
        for key, entry in changed.items():
            if key not in self.pending or self.pending[key]["seq"] <= entry["seq"]:
                self.pending[key] = entry
        seqs = payload.get("seqs") or {}
        for key, entry in list(self.pending.items()):
            have = seqs.get(key)
            if isinstance(have, int) and (have > entry["seq"] or (have == entry["seq"] and key not in changed)):
                self._keep(key)

    def confirmed(self, data: dict[str, Any]) -> None:
        for key, seq in (data.get("seqs") or {}).items():
            if key in self.pending and self.pending[key]["seq"] <= seq:
                self._keep(key)

    def observe(self, code: str) -> None:
        for name, args in portal_survey_calls(code):
            if name == "reply" and len(args) == 3:
                self.reply(args[1], args[2])
            elif name == "confirmed" and len(args) == 2:
                self.confirmed(args[1])
            elif name == "pendingAnswers":
                self.asked = True


HASHES_SCRIPT = """
import json, sys
sys.path.insert(0, ".")
import {module}  # noqa: the app, so that every state class is registered
from reflex.compiler.utils import compile_state
from reflex.state import State, state_snapshot_hashes
snapshot = compile_state(State)
print(json.dumps({"hashes": state_snapshot_hashes(snapshot), "states": sorted(snapshot)}))
"""


def frontend_hashes(app_dir: Path, module: str) -> tuple[list[str], list[str]]:
    """What a browser sends with its first hydrate (Reflex 0.10: `initialStateHashes`, the hashes of the
    compiled default state, worked out as the compiler does): the server then sends only the vars that
    differ from the defaults the page already holds. Computed in a fresh interpreter in the app's folder;
    with the full names of the app's states."""
    out = subprocess.run(
        [str(VENV_BIN / "python"), "-c", HASHES_SCRIPT.replace("{module}", module)],
        cwd=app_dir,
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    found = json.loads(out.stdout.strip().splitlines()[-1])
    return found["hashes"], found["states"]


class Tab:
    """A participant's browser tab on /test/{id}/rate: the router data and the events it sends."""

    # The first hydrate's `hashes` (frontend_hashes), as a browser sends them; empty: none sent.
    hashes: list[str] = []
    # Opening the tab GETs the page's HTML first, as a browser does (the rating page's first view is
    # drawn in it for the participant: portal/http/first_view.py).
    fetch_html: bool = True

    ROUTER_VAR = "rx_router_url_rx_state_"
    HYDRATED_VAR = "is_hydrated_rx_state_"
    PHASE_VAR = "phase_rx_state_"
    STATUS_VAR = "status_rx_state_"
    ERRORS_VAR = "errors_rx_state_"

    def __init__(self, base_url: str, cookie: str, test_id: int, events: Events, samples: Samples) -> None:
        from reflex.state import State

        from bench.reflex_client import ReflexClient

        self.base_url, self.cookie = base_url, cookie
        self.client = ReflexClient(base_url, cookie=cookie)
        self.events = events
        self.samples = samples
        self.root = State.get_full_name()
        # React Router's pathname and route params; the survey's history.replaceState calls do not
        # change what the browser sends (the router keeps its own location).
        self.path = f"/test/{test_id}/rate"
        self.params = {"rate_test_id": str(test_id)}
        self.seq = 0
        self.hydrated: bool | None = None
        self.phase = ""
        self.view = ""
        self.errors: dict[str, str] = {}
        self.redirect: str | None = None
        self.saved = SavedAnswers()
        self.test_id = test_id
        self.hydrated_once = False

    def _router_data(self) -> tuple[str, dict[str, Any]]:
        self.seq += 1
        marker = str(self.seq)
        return marker, {
            "pathname": self.path,
            "asPath": f"{self.path}?{urlencode({'bench': marker})}",
            "query": {**self.params, "bench": marker},
        }

    def _observe(self, update: Any) -> None:
        root = update.delta.get(self.root) or {}
        if self.HYDRATED_VAR in root:
            self.hydrated = bool(root[self.HYDRATED_VAR])
        rate = update.delta.get(self.events.rate_state) or {}
        if self.STATUS_VAR in rate:
            self.view = rate[self.STATUS_VAR]
        survey = update.delta.get(self.events.survey_state) or {}
        if self.PHASE_VAR in survey:
            self.phase = survey[self.PHASE_VAR]
        if self.ERRORS_VAR in survey:
            self.errors = survey[self.ERRORS_VAR]
        for event in update.events:
            if event.get("name") == "_redirect":  # only on a failure (signed out, session gone)
                self.redirect = (event.get("payload") or {}).get("path")
            elif event.get("name") == "_call_script":
                self.saved.observe(str((event.get("payload") or {}).get("javascript_code") or ""))

    def _echoes(self, update: Any, marker: str) -> bool:
        url = (update.delta.get(self.root) or {}).get(self.ROUTER_VAR) or {}
        return (url.get("query_parameters") or {}).get("bench") == marker

    async def open_page(self, until_phase: str = "welcome") -> None:
        """GET the page, connect with the hydrate event; wait for the page's load to show the survey's welcome."""
        if self.fetch_html:
            from bench.reflex_client import fetch_page

            status, _ = await fetch_page(self.base_url, self.path, self.cookie)
            if status != 200:
                raise FlowError(f"GET {self.path}: {status}")
        marker, router_data = self._router_data()
        await self.client.connect(
            {"name": self.events.hydrate, "payload": self._hydrate_payload(), "router_data": router_data}
        )
        await self._until_echo(marker)
        # on_load_internal -> RateState.load_page: the view is 'survey', entered in the same event
        while not (self.hydrated and self.view == "survey"):
            self._observe(await self.client.next_update(UPDATE_TIMEOUT))
            self._check()
        if self.phase == until_phase:
            return
        # Before the one-event load the browser mounted the survey view, which started itself
        # (SurveyState.begin); not a measured event.
        marker, router_data = self._router_data()
        self.client.emit({"name": self.events.begin, "payload": {}, "router_data": router_data})
        await self._until_echo(marker)
        while self.phase != until_phase:
            self._observe(await self.client.next_update(UPDATE_TIMEOUT))
            self._check()

    def _hydrate_payload(self) -> dict[str, Any]:
        """A browser's first hydrate carries the hashes of the defaults its page holds; a reconnect does not."""
        if self.hashes and not self.hydrated_once:
            self.hydrated_once = True
            return {"hashes": self.hashes}
        return {}

    async def send(self, name: str, payload: dict[str, Any] | None = None) -> float:
        """Send an event; wait for the update that answers it; return the latency in ms."""
        marker, router_data = self._router_data()
        sent = self.client.emit({"name": name, "payload": payload or {}, "router_data": router_data})
        self.samples.events_sent += 1
        update = await self._until_echo(marker)
        self._check()
        return (update.at - sent) * 1000

    def _check(self) -> None:
        if self.redirect:
            raise FlowError(f"redirected to {self.redirect} (phase {self.phase!r})")
        if self.phase in ("reviewed", "expired"):
            raise FlowError(f"survey phase {self.phase!r}")

    async def _until_echo(self, marker: str) -> Any:
        while True:
            update = await self.client.next_update(UPDATE_TIMEOUT)
            self._observe(update)
            if self._echoes(update, marker):
                return update

    async def go_next(self) -> None:
        """Continue, as the page does it: when the server asks for the browser's pending answers (its
        state lacks the shown question's answer: a refused state write), they go with go_next_with."""
        self.saved.asked = False
        await self.send(self.events.next)
        if self.saved.asked:
            self.saved.asked = False
            await self.send(self.events.next_with, {"pending": json.dumps(self.saved.pending)})

    async def confirm_pending(self, give_up_s: float = 120.0) -> int:
        """The browser's pending reports (backing off from 1 s to 15 s, as assets/portal.js) until the
        server confirms every pending answer; returns how many are still pending at `give_up_s`."""
        import asyncio
        import time

        # At least one report: its reply comes after every update of the events before it (a reply's
        # browser calls can follow its delta in an update of their own), so their pending answers
        # are known by then.
        wait, deadline, first = 1.0, time.monotonic() + give_up_s, True
        while (first or self.saved.pending) and time.monotonic() < deadline:
            first = False
            message = {"kind": "pending", "testId": self.test_id, "pending": self.saved.pending}
            await self.send(self.events.bridge, {"message": json.dumps(message)})
            if self.saved.pending:
                await asyncio.sleep(wait)
                wait = min(wait * 2, 15.0)
        return len(self.saved.pending)

    async def close(self) -> None:
        await self.client.close()

    async def reopen(self) -> None:
        """The page loaded again in the same tab (a reload, or the websocket reconnecting): a new
        connection with the same token, hydrated again; the survey resumes from the server."""
        from bench.reflex_client import ReflexClient

        token = self.client.token
        await self.client.close()
        self.client = ReflexClient(self.base_url, cookie=self.cookie, token=token)
        self.hydrated, self.view, self.phase = None, "", ""
        await self.open_page(until_phase="questions")


def answer_objects() -> dict[str, dict[str, Any]]:
    """Valid answers for the decider route, shaped like the domain's default answers."""
    from portal.domain.taking.survey_answers import default_answer

    questions = {q["key"]: q for q in bench_survey_definition()["survey"]["questions"]}
    answers = {}
    for key, value in DECIDER_ROUTE:
        if value is None:
            continue
        answer = default_answer(questions[key])
        answer["value"] = value
        answers[key] = answer
    return answers


def percentiles(values: list[float]) -> tuple[float, float, float]:
    """p50, p95 and p99 (inclusive method; one value is all three; none is NaN)."""
    if len(values) < 2:
        v = values[0] if values else math.nan
        return v, v, v
    q = statistics.quantiles(values, n=100, method="inclusive")
    return statistics.median(values), q[94], q[98]
