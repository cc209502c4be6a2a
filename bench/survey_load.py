"""Test taking under load: N participants answer the demo survey over Reflex's websocket protocol.

Each simulated participant is a socket client that speaks what the compiled frontend speaks
(bench/reflex_client.py; no browser): it connects with its signed-in session cookie, hydrates
/test/{id}/rate (the page's on_load runs), starts the survey and answers every question of the
'decider' route (involvement=decider -> page 2 -> page 3), going to the next question after each
answer, then submits. One no-op event (`SurveyState.noop`: loads the same state, changes
nothing) is sent next to every answer (`SurveyState.set_answer`), so both are measured under the
same load. Latency is the time from sending an event to the first state update for it.

Reflex sends no update for an event that changes nothing, so every event carries a fresh query
parameter (`?bench=<n>`) in its router data, as a browser sends its URL with every event: the
server then always answers with the router vars, and the update that echoes <n> is the one for
that event. Answer and no-op pay this alike.

    .venv/bin/python bench/survey_load.py --backend sqlite --participants 1 50 200
    .venv/bin/python bench/survey_load.py --backend postgres --participants 50 --think-ms 1000

The script makes its own database (a fresh SQLite file, or PostgreSQL database `bench_survey`
dropped and re-created), migrates it, imports a copy of the demo survey without its
participant and seniority limits, creates the participants (accounts, sessions, invites)
through the services, starts the portal as users get it (`reflex run --env prod
--single-port`, one worker, no Redis) and stops it at the end. `--url` measures a portal that
is already running against `--database-url` instead.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
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
    from alembic import command
    from alembic.config import Config

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
    from portal.services.test_import import import_test

    with Session(make_engine(database_url)) as session:
        test = import_test(session, bench_survey_definition())
        session.commit()
        return test.id


def make_participants(database_url: str, test_id: int, count: int) -> list[str]:
    """`count` verified participants, each with an open invite and a live session; their Cookie headers."""
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
            session.add(Invite(account_id=account.id, test_id=test_id, amount_cents=2000,
                               created_at=now, expires_at=now + timedelta(hours=24)))
            token = create_session(session=session, account_id=account.id, user_agent="bench/survey_load")
            session.commit()
            cookies.append(f"{SESSION_COOKIE}={token}")
    engine.dispose()
    return cookies


# --- the portal server ----------------------------------------------------------------------

def start_server(database_url: str, port: int, log_path: Path, trace_path: Path | None = None,
                 profile_event: str | None = None, switch_interval: float | None = None,
                 redis_url: str = "") -> subprocess.Popen:
    from tests.support.portal_server import start_portal

    env = dict(os.environ)
    if trace_path is not None or switch_interval:  # bench/trace/sitecustomize.py; nothing changed in portal/
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "bench" / "trace"), str(ROOT)])
    if trace_path is not None:
        env["BENCH_TRACE_FILE"] = str(trace_path)
        if profile_event:
            env["BENCH_PROFILE_EVENT"] = profile_event
    if switch_interval:
        env["BENCH_SWITCH_INTERVAL"] = str(switch_interval)
    env.update(
        DATABASE_URL=database_url,
        PORT=str(port),
        BASE_URL=f"http://localhost:{port}",
        REDIS_URL=redis_url,
        SECRET_KEY="bench-survey-secret-key",
        REFLEX_USE_NPM="1",
        REFLEX_TELEMETRY_ENABLED="false",
        PATH=f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}",
    )
    try:
        return start_portal(port, env, log_path, timeout=STARTUP_TIMEOUT)
    except RuntimeError as error:
        raise SystemExit(str(error)) from None


def stop_server(proc: subprocess.Popen) -> None:
    from tests.support.portal_server import stop_portal

    stop_portal(proc)


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

    @classmethod
    def survey(cls) -> Events:
        from reflex.state import State

        from portal.states.rate import RateState
        from portal.states.survey import SurveyState

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
        )


@dataclass
class Samples:
    answer: list[float] = field(default_factory=list)
    noop: list[float] = field(default_factory=list)
    events_sent: int = 0


class FlowError(RuntimeError):
    pass


class Tab:
    """A participant's browser tab on /test/{id}/rate: the router data and the events it sends."""

    ROUTER_VAR = "rx_router_url_rx_state_"
    HYDRATED_VAR = "is_hydrated_rx_state_"
    PHASE_VAR = "phase_rx_state_"
    STATUS_VAR = "status_rx_state_"
    ERRORS_VAR = "errors_rx_state_"

    def __init__(self, base_url: str, cookie: str, test_id: int, events: Events, samples: Samples) -> None:
        from reflex.state import State

        from bench.reflex_client import ReflexClient

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

    def _echoes(self, update: Any, marker: str) -> bool:
        url = (update.delta.get(self.root) or {}).get(self.ROUTER_VAR) or {}
        return (url.get("query_parameters") or {}).get("bench") == marker

    async def open_page(self) -> None:
        """Connect with the hydrate event; wait for the page's on_load chain to show the survey's welcome."""
        marker, router_data = self._router_data()
        await self.client.connect({"name": self.events.hydrate, "payload": {}, "router_data": router_data})
        await self._until_echo(marker)
        # on_load_internal -> RateState.load_page: the view is 'survey', entered in the same event
        while not (self.hydrated and self.view == "survey"):
            self._observe(await self.client.next_update(UPDATE_TIMEOUT))
            self._check()
        if self.phase == "welcome":
            return
        # Before the one-event load the browser mounted the survey view, which started itself
        # (SurveyState.begin); not a measured event.
        marker, router_data = self._router_data()
        self.client.emit({"name": self.events.begin, "payload": {}, "router_data": router_data})
        await self._until_echo(marker)
        while self.phase != "welcome":
            self._observe(await self.client.next_update(UPDATE_TIMEOUT))
            self._check()

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

    async def close(self) -> None:
        await self.client.close()


async def participant(base_url: str, cookie: str, test_id: int, events: Events, samples: Samples,
                      gate: asyncio.Semaphore, ready: asyncio.Barrier, go: asyncio.Event, think_ms: float) -> None:
    tab = Tab(base_url, cookie, test_id, events, samples)
    try:
        async with gate:  # connections open a few at a time, as people arrive
            await tab.open_page()
        await ready.wait()
        await go.wait()

        async def think() -> None:
            if think_ms > 0:
                await asyncio.sleep(random.uniform(0.5, 1.5) * think_ms / 1000)

        if think_ms > 0:  # paced people do not all click Start in the same second: spread over one question's time
            await asyncio.sleep(random.uniform(0, 3 * think_ms / 1000))
        await think()
        await tab.send(events.start)
        if tab.phase != "questions":
            raise FlowError(f"start_survey left the phase at {tab.phase!r}")
        answers = answer_objects()
        for index, (key, _value) in enumerate(DECIDER_ROUTE):
            if key in answers:
                pair = [("answer", events.answer, {"key": key, "answer": answers[key]}), ("noop", events.noop, {})]
                if index % 2:  # alternate the order, so neither always runs right after a navigation
                    pair.reverse()
                for kind, name, payload in pair:
                    await think()
                    getattr(samples, kind).append(await tab.send(name, payload))
            await think()
            await tab.send(events.next)  # the last one submits (the route's end)
            if tab.errors:
                raise FlowError(f"after {key}: {tab.errors}")
        if tab.phase != "thank-you":
            raise FlowError(f"the survey ended at phase {tab.phase!r}, not the thank-you page")
    finally:
        await tab.close()


def answer_objects() -> dict[str, dict[str, Any]]:
    """Valid answers for the decider route, shaped like the domain's default answers."""
    from portal.domain.survey_answers import default_answer

    questions = {q["key"]: q for q in bench_survey_definition()["survey"]["questions"]}
    answers = {}
    for key, value in DECIDER_ROUTE:
        if value is None:
            continue
        answer = default_answer(questions[key])
        answer["value"] = value
        answers[key] = answer
    return answers


# --- a run ----------------------------------------------------------------------------------

@dataclass
class Result:
    participants: int
    backend: str
    samples: Samples
    seconds: float
    client_cpu: float = 0.0
    trace: list[str] = field(default_factory=list)

    @staticmethod
    def percentiles(values: list[float]) -> tuple[float, float, float]:
        if len(values) < 2:
            v = values[0] if values else math.nan
            return v, v, v
        q = statistics.quantiles(values, n=100, method="inclusive")
        return statistics.median(values), q[94], q[98]


async def run_load(base_url: str, cookies: list[str], test_id: int, events: Events, think_ms: float,
                   connect_parallel: int = 20) -> tuple[Samples, float]:
    samples = Samples()
    ready = asyncio.Barrier(len(cookies) + 1)
    go = asyncio.Event()
    gate = asyncio.Semaphore(connect_parallel)

    tasks = [asyncio.create_task(participant(base_url, cookie, test_id, events, samples, gate, ready, go, think_ms))
             for cookie in cookies]
    waiter = asyncio.create_task(ready.wait())
    done, _ = await asyncio.wait([waiter, *tasks], return_when=asyncio.FIRST_COMPLETED)
    if waiter not in done:  # a participant failed before everyone was ready
        for task in done:
            task.result()
    started = time.perf_counter()
    go.set()
    await asyncio.gather(*tasks)
    return samples, time.perf_counter() - started


def summarize_trace(trace_path: Path) -> list[str]:
    """Per event: where its server time went (from the --trace timing logs), in ms."""
    rows: dict[tuple[str, str, str], list[tuple[float, float]]] = {}
    for line in trace_path.read_text().splitlines():
        kind, event, label, ms, inside = line.split("\t")
        rows.setdefault((event, kind, label), []).append((float(ms), float(inside)))
    counts = {event: len(v) for (event, kind, _), v in rows.items() if kind == "execute"}
    out = [f"  {'event':<38}{'part':<40}{'calls':>7}{'mean':>8}{'p50':>8}{'p95':>8}{'inside':>8}"]
    for (event, kind, label), values in sorted(rows.items(), key=lambda kv: (kv[0][0], ["execute", "handler", "db"].index(kv[0][1]))):
        if counts.get(event, 0) < 5:
            continue
        ms = [v[0] for v in values]
        p95 = statistics.quantiles(ms, n=20, method="inclusive")[18] if len(ms) > 1 else ms[0]
        inside = statistics.fmean(v[1] for v in values) if kind == "db" else math.nan
        part = {"execute": "event under its lock (load, run, save)", "handler": "handler + delta"}.get(kind, f"db.run {label}")
        out.append(f"  {event:<38}{part[:39]:<40}{len(ms):>7}{statistics.fmean(ms):>8.2f}{statistics.median(ms):>8.2f}"
                   f"{p95:>8.2f}{'' if math.isnan(inside) else f'{inside:.2f}':>8}")
    return out


def print_table(results: list[Result]) -> None:
    header = (f"{'N':>4} {'backend':<9}{'answer p50':>11}{'p95':>8}{'p99':>8}{'noop p50':>10}{'p95':>8}{'p99':>8}"
              f"{'answers/s':>11}{'events/s':>10}{'p95 ratio':>10}")
    print("\nlatency from sending an event to its state update (ms); events/s over the whole run")
    print(header)
    for r in results:
        a = r.percentiles(r.samples.answer)
        n = r.percentiles(r.samples.noop)
        print(f"{r.participants:>4} {r.backend:<9}{a[0]:>11.1f}{a[1]:>8.1f}{a[2]:>8.1f}{n[0]:>10.1f}{n[1]:>8.1f}{n[2]:>8.1f}"
              f"{len(r.samples.answer) / r.seconds:>11.1f}{r.samples.events_sent / r.seconds:>10.1f}{a[1] / n[1]:>10.2f}")
    print("\nload generator CPU (this process, share of one core): "
          + ", ".join(f"N={r.participants} {r.client_cpu / r.seconds:.0%}" for r in results))
    for r in results:
        if r.trace:
            print(f"\nserver time per event, N={r.participants} {r.backend} (ms; 'inside' = the service function alone)")
            print("\n".join(r.trace))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--participants", type=int, nargs="+", default=[1, 50, 200])
    parser.add_argument("--think-ms", type=float, default=0,
                        help="mean pause before each answer, no-op and next (0: back to back, the server saturated)")
    parser.add_argument("--min-answers", type=int, default=240,
                        help="small N run several passes (fresh participants) until this many answers are measured")
    parser.add_argument("--port", type=int, default=3301)
    parser.add_argument("--pg-name", default=PG_NAME,
                        help="the PostgreSQL database to drop, re-create and use (--backend postgres)")
    parser.add_argument("--redis-url", default="",
                        help="keep the portal's state in this Redis database instead of on disk")
    parser.add_argument("--trace", action="store_true",
                        help="timing logs in the server (bench/trace/sitecustomize.py): where an event's time goes")
    parser.add_argument("--profile-event", metavar="HANDLER",
                        help="with --trace: run this handler under cProfile (e.g. SurveyState.set_answer; use one participant)")
    parser.add_argument("--switch-interval", type=float, metavar="SECONDS",
                        help="experiment: sys.setswitchinterval in the portal (Python's default is 0.005)")
    parser.add_argument("--url", help="measure a portal already running here (with --database-url)")
    parser.add_argument("--database-url", help="the database of the portal given with --url")
    args = parser.parse_args()

    events = Events.survey()
    per_survey = len(answer_objects())
    data_dir = Path(tempfile.mkdtemp(prefix="survey-bench-"))
    trace_path = data_dir / "trace.tsv" if args.trace or args.profile_event else None
    proc = None
    if args.url:
        if not args.database_url:
            parser.error("--url needs --database-url")
        base_url, database_url = args.url.rstrip("/"), args.database_url
        args.backend = "sqlite" if database_url.startswith("sqlite") else "postgres"  # the label in the table
    else:
        database_url = prepare_database(args.backend, data_dir, args.pg_name)
        base_url = f"http://localhost:{args.port}"
        print(f"starting the portal on {base_url} ({args.backend}); log in {data_dir / 'server.log'}", flush=True)
        started = time.perf_counter()
        proc = start_server(database_url, args.port, data_dir / "server.log", trace_path, args.profile_event,
                            args.switch_interval, redis_url=args.redis_url)
        print(f"  up after {time.perf_counter() - started:.0f} s", flush=True)
    results = []
    try:
        test_id = import_bench_survey(database_url)
        for n in args.participants:
            passes = max(1, math.ceil(args.min_answers / (n * per_survey)))
            total = Samples()
            seconds = cpu = 0.0
            load = os.getloadavg()[0]  # other work on the machine shows here
            if trace_path is not None:
                trace_path.write_text("")
            for _ in range(passes):
                cookies = make_participants(database_url, test_id, n)
                before = resource.getrusage(resource.RUSAGE_SELF)
                samples, elapsed = asyncio.run(run_load(base_url, cookies, test_id, events, args.think_ms))
                after = resource.getrusage(resource.RUSAGE_SELF)
                cpu += (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
                total.answer += samples.answer
                total.noop += samples.noop
                total.events_sent += samples.events_sent
                seconds += elapsed
            trace = summarize_trace(trace_path) if trace_path is not None and proc is not None else []
            results.append(Result(n, args.backend, total, seconds, cpu, trace))
            print(f"  N={n}: {passes} pass(es), {len(total.answer)} answers, {len(total.noop)} no-ops "
                  f"in {seconds:.1f} s (load average before: {load:.2f})", flush=True)
    finally:
        if proc is not None:
            stop_server(proc)
    print_table(results)
    if trace_path is not None and args.profile_event and Path(f"{trace_path}.prof").exists():
        import pstats

        print(f"\ncProfile of {args.profile_event} (all runs; times include what the event loop ran meanwhile)")
        stats = pstats.Stats(f"{trace_path}.prof")
        stats.sort_stats("cumulative").print_stats(40)
    if args.think_ms:
        print(f"think time: {args.think_ms:.0f} ms mean before each answer, no-op and next")


if __name__ == "__main__":
    main()
