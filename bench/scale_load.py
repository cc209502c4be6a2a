"""The portal in its production setup under many participants, next to a blank Reflex app.

What runs (all started here, all stopped at the end; or the portal given with --url):
- PostgreSQL database `scale_load` (dropped, re-created and migrated with Alembic), the bench copy
  of the demo survey and, per level, N fresh participants with sessions and invites;
- the portal as production runs it: `reflex run --env prod --single-port` with REDIS_URL (Redis
  db 9) and Granian's workers (`--workers`, default: the project's default), on a free port;
- the baseline: a blank Reflex app (one state, one no-op event; generated into a temporary
  folder) with the same server settings (same workers, Redis db 10), its backend alone
  (`--backend-only`: it has no pages worth building, and nothing here reads a page);
- with --proxy: two portal processes on two ports behind bench/round_robin_proxy.py (each new
  connection to the next process, no affinity), sharing Redis and PostgreSQL; every participant
  reconnects before each answer, as a reloaded page does, so its connections change process.

What is measured, per level of N participants (each a websocket client, bench/reflex_client.py,
all in this one asyncio loop):
1. arrivals: all N open /test/{id}/rate at once (at most --open-parallel handshakes in flight):
   tabs opened per second, from the first connect to the last survey shown;
2. the survey, paced: each starts within one think time, then per question thinks (--think-ms,
   jittered 0.5-1.5x), answers (`SurveyState.set_answer`, latency from send to its state
   update: p50/p95/p99) and goes to the next question; the last answer is left as a draft;
3. saturation: --saturation-tabs of the tabs send the answer event back to back for
   --saturation-seconds, two values of the last answer in turn (each a change): events per second;
4. the stored drafts: each tab behaves as assets/portal.js does (issue 18, item 3): a reply's
   changed answers stay pending until a later reply or a pending report (through the bridge,
   backing off 1-15 s) confirms that the stored state holds them, and Continue answers the
   server's request for the pending answers (go_next_with). Only a confirmed answer is
   acknowledged. After the draft writer's flush (portal/services/taking/draft_writer.py), every
   acknowledged answer is looked up in its review session's `draft_answers` in the database;
   those missing are counted, and so are the answers still pending when a tab gave up asking
   (`unconfirmed_pending`: kept in the browser, not acknowledged) and Reflex's refused state
   writes in the portal's log (`lock_expired`);
5. the blank app, the same N tabs: arrivals, the same paced flow with its no-op event in place
   of each answer and each next, and saturation with the no-op;
and the servers' memory (RSS summed over the server's processes, from /proc, the peak sampled
during the level), this process's CPU (share of one core: the load generator shares the
machine with the servers) and the ratios portal/blank.

    .venv/bin/python bench/scale_load.py --levels 100 300 1000 2000
    .venv/bin/python bench/scale_load.py --levels 1000 --json
    .venv/bin/python bench/scale_load.py --levels 200 --workers 1 2 3 5 --think-ms 2000
    .venv/bin/python bench/scale_load.py --levels 50 --proxy --json
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import os
import random
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.survey_flow import (  # noqa: E402 - after the path
    DECIDER_ROUTE,
    STARTUP_TIMEOUT,
    VENV_BIN,
    Events,
    FlowError,
    Samples,
    Tab,
    answer_objects,
    frontend_hashes,
    import_bench_survey,
    make_participant_accounts,
    percentiles,
    prepare_database,
)
from portal.settings import STATE_LEASE_SECONDS, state_lease_environment  # noqa: E402

PG_NAME = "scale_load"
PORTAL_REDIS = "redis://127.0.0.1:6379/9"
BLANK_REDIS = "redis://127.0.0.1:6379/10"
MAX_ERROR_SAMPLES = 3
LOCK_EXPIRED = "Lock expired for token"  # Reflex's LockExpiredError message, logged with the event's error

BLANK_CONFIG = """import os

import reflex as rx

config = rx.Config(
    app_name="blank",
    telemetry_enabled=False,
    show_built_with_reflex=False,
    redis_url=os.environ.get("REDIS_URL") or None,
    redis_lock_expiration=60_000,  # the portal's (rxconfig.py)
    disable_plugins=[rx.plugins.SitemapPlugin],
)
"""

BLANK_APP = '''import reflex as rx


class BlankState(rx.State):
    count: int = 0

    @rx.event
    def noop(self):
        """Changes nothing: the baseline of an event's cost."""


def index():
    return rx.text(BlankState.count)


app = rx.App()
app.add_page(index, route="/test/[rate_test_id]/rate")
'''


# --- servers --------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def flush_redis(url: str) -> None:
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=3)
    client.flushdb()
    client.close()


def write_blank_app(folder: Path) -> Path:
    """The blank Reflex app: rxconfig.py and blank/blank.py in `folder`."""
    (folder / "blank").mkdir(parents=True, exist_ok=True)
    (folder / "rxconfig.py").write_text(BLANK_CONFIG)
    (folder / "blank" / "__init__.py").write_text("")
    (folder / "blank" / "blank.py").write_text(BLANK_APP)
    return folder


def lease_env() -> dict[str, str]:
    """The portal's state lease (STATE_LEASE_SECONDS, rxconfig.py), given to the portal and the blank app
    alike: the same server settings."""
    return state_lease_environment(int(os.environ.get("STATE_LEASE_SECONDS") or STATE_LEASE_SECONDS))


def server_env(port: int, base_port: int, redis_url: str, workers: int | None, **extra: str) -> dict[str, str]:
    """The environment of a server process; `base_port` is the port browsers use (the proxy's, with --proxy)."""
    env = dict(os.environ)
    env.pop("GRANIAN_WORKERS", None)
    if workers:
        env["GRANIAN_WORKERS"] = str(workers)
    env.update(lease_env())
    env.update(
        PORT=str(port),
        BASE_URL=f"http://localhost:{base_port}",
        REDIS_URL=redis_url,
        SECRET_KEY="bench-scale-secret-key",
        LOG_LEVEL="WARNING",
        REFLEX_USE_NPM="1",
        REFLEX_TELEMETRY_ENABLED="false",
        PATH=f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        **extra,
    )
    return env


def trace_env(opts: argparse.Namespace) -> dict[str, str]:
    """--trace FILE: bench/trace/sitecustomize.py in the portal (per-event and per-db.run server times)."""
    if not getattr(opts, "trace", None):
        return {}
    return {
        "PYTHONPATH": os.pathsep.join([str(ROOT / "bench" / "trace"), str(ROOT)]),
        "BENCH_TRACE_FILE": str(Path(opts.trace).resolve()),
    }


def start_server(
    env: dict[str, str], port: int, log_path: Path, cwd: Path, ready: str, backend_only: bool = False
) -> subprocess.Popen:
    """`reflex run --env prod` in `cwd`: the portal on one port as production serves it (its frontend
    built first), the blank app's backend alone (it has no pages to serve; nothing here reads one)."""
    from tests.support.portal_server import start_portal

    try:
        return start_portal(
            port, env, log_path, timeout=STARTUP_TIMEOUT, ready_paths=(ready,), backend_only=backend_only, cwd=cwd
        )
    except RuntimeError as error:
        raise SystemExit(str(error)) from None


def stop_server(proc: subprocess.Popen) -> None:
    from tests.support.portal_server import stop_portal

    stop_portal(proc)


def group_pids(pgid: int) -> list[int]:
    """The processes of a process group (a server started in its own session), from /proc."""
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if int(fields[2]) == pgid:
                pids.append(int(entry))
    return pids


def group_rss_mb(pgid: int) -> float:
    """RSS summed over the group's processes (MiB)."""
    total_kb = 0
    for pid in group_pids(pgid):
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total_kb += int(line.split()[1])
    return total_kb / 1024


def group_cpu_seconds(pgids: list[int]) -> float:
    """User + system CPU of the groups' live processes (seconds, from /proc/<pid>/stat)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pgid in pgids:
        for pid in group_pids(pgid):
            with contextlib.suppress(OSError, IndexError, ValueError):
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / ticks


class RssSampler:
    """The peak RSS of some process groups, sampled every half second in a thread."""

    def __init__(self, pgids: list[int]) -> None:
        self.pgids, self.peak = pgids, 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while True:
            self.peak = max(self.peak, sum(group_rss_mb(p) for p in self.pgids))
            if self._stop.wait(0.5):
                return

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


@dataclass
class Stack:
    """What one worker count runs: the portal's URL and processes, the blank app's, the proxy's log."""

    portal_url: str
    portal_procs: list[subprocess.Popen]
    blank_url: str | None = None
    blank_proc: subprocess.Popen | None = None
    proxy_log: Path | None = None
    portal_logs: list[Path] = field(default_factory=list)

    def lock_expiries(self) -> int:
        """How many times Reflex refused a state write because its Redis lock had expired (its log line
        'Lock expired for token ...', raised as LockExpiredError), summed over the portals' logs."""
        return sum(path.read_text(errors="replace").count(LOCK_EXPIRED) for path in self.portal_logs if path.exists())

    @property
    def portal_pgids(self) -> list[int]:
        return [p.pid for p in self.portal_procs]


@contextlib.contextmanager
def running_stack(opts: argparse.Namespace, database_url: str, workers: int | None, folder: Path) -> Iterator[Stack]:
    """Start the portal (or two behind the proxy) and the blank app; stop everything on the way out."""
    started: list[subprocess.Popen] = []
    try:
        flush_redis(PORTAL_REDIS)
        if opts.proxy:
            stack = start_proxied_portals(database_url, workers, folder, started)
        else:
            port = free_port()
            log(f"starting the portal on port {port} (workers: {workers or 'project default'})")
            proc = start_server(
                server_env(port, port, PORTAL_REDIS, workers, DATABASE_URL=database_url, **trace_env(opts)),
                port,
                folder / f"portal-{port}.log",
                ROOT,
                "/api/health",
            )
            started.append(proc)
            stack = Stack(f"http://localhost:{port}", [proc], portal_logs=[folder / f"portal-{port}.log"])
            flush_redis(BLANK_REDIS)
            port = free_port()
            same = workers or len(group_pids(proc.pid)) - 1  # the portal's own default: its workers, counted
            log(f"starting the blank app on port {port} (workers: {same})")
            blank = start_server(
                server_env(port, port, BLANK_REDIS, same),
                port,
                folder / f"blank-{port}.log",
                write_blank_app(folder / "blank-app"),
                "/ping",
                backend_only=True,
            )
            started.append(blank)
            stack.blank_url, stack.blank_proc = f"http://localhost:{port}", blank
        log("  processes: " + ", ".join(f"{p.pid}: {len(group_pids(p.pid))}" for p in started))
        yield stack
    finally:
        for proc in reversed(started):
            stop_server(proc)


def start_proxied_portals(
    database_url: str, workers: int | None, folder: Path, started: list[subprocess.Popen]
) -> Stack:
    """Two portal processes on two ports, one round-robin proxy in front; browsers use the proxy's port."""
    proxy_port, ports = free_port(), [free_port(), free_port()]
    for port in ports:
        log(f"starting a portal on port {port} behind the proxy on {proxy_port} (workers: {workers or 1})")
        env = server_env(port, proxy_port, PORTAL_REDIS, workers or 1, DATABASE_URL=database_url)
        started.append(start_server(env, port, folder / f"portal-{port}.log", ROOT, "/api/health"))
    proxy_log = folder / "proxy.log"
    proxy = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "bench" / "round_robin_proxy.py"),
            "--port",
            str(proxy_port),
            "--log",
            str(proxy_log),
            *[a for p in ports for a in ("--backend", f"127.0.0.1:{p}")],
        ],
        stdout=(folder / "proxy.out").open("w"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    started.append(proxy)
    wait_for_port(proxy_port)
    return Stack(
        f"http://localhost:{proxy_port}",
        started[:2],
        proxy_log=proxy_log,
        portal_logs=[folder / f"portal-{p}.log" for p in ports],
    )


def wait_for_port(port: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            return
        time.sleep(0.2)
    raise SystemExit(f"nothing listens on port {port}")


# --- the participants' side -----------------------------------------------------------------


@dataclass
class Person:
    """One participant's tab and what the server acknowledged to it."""

    account_id: int
    tab: Tab
    acked: dict[str, Any] = field(default_factory=dict)  # answers the server confirmed it keeps
    unconfirmed: int = 0  # answers still pending in the 'browser' when it stopped asking
    answered: set[str] = field(default_factory=set)  # the questions it answered
    ports: list[int] = field(default_factory=list)  # the local port of each connection (the proxy logs it)

    def note_connection(self) -> None:
        writer = self.tab.client._writer
        if writer is not None:
            self.ports.append(writer.get_extra_info("sockname")[1])


@dataclass
class Phase:
    """What one side (portal or blank) measured in a level."""

    latencies: list[float] = field(default_factory=list)
    # When each answer was sent, in seconds from the start of the paced flow (its latency's index).
    sent_at: list[float] = field(default_factory=list)
    flow_started: float = 0.0
    errors: list[str] = field(default_factory=list)
    opened: int = 0
    open_seconds: float = 0.0
    saturation_events: int = 0
    saturation_seconds: float = 0.0

    def fail(self, error: BaseException) -> None:
        self.errors.append(f"{type(error).__name__}: {error}"[:200])


def jitter(think_ms: float) -> float:
    return random.uniform(0.5, 1.5) * think_ms / 1000


async def open_all(people: list[Person], phase: Phase, parallel: int, opener) -> list[Person]:
    """The wave of arrivals: every tab opens at once, at most `parallel` handshakes in flight."""
    gate = asyncio.Semaphore(parallel)

    async def one(person: Person) -> Person | None:
        try:
            async with gate:
                await opener(person)
            person.note_connection()
            return person
        except Exception as error:  # noqa: BLE001 - counted, the others go on
            phase.fail(error)
            await person.tab.close()
            return None

    started = time.perf_counter()
    opened = [p for p in await asyncio.gather(*(one(p) for p in people)) if p is not None]
    phase.open_seconds, phase.opened = time.perf_counter() - started, len(opened)
    return opened


async def take_survey(
    person: Person, events: Events, answers: dict[str, dict[str, Any]], think_ms: float, reconnect: bool, phase: Phase
) -> None:
    """Start, then per question think, answer (measured) and go next; the last answer stays a draft."""
    tab = person.tab
    await asyncio.sleep(random.uniform(0, think_ms / 1000))
    await tab.send(events.start)
    if tab.phase != "questions":
        raise FlowError(f"start_survey left the phase at {tab.phase!r}")
    for index, (key, _value) in enumerate(DECIDER_ROUTE):
        await asyncio.sleep(jitter(think_ms))
        if reconnect:  # the page loads again: a new connection, through the proxy to the next process
            await tab.reopen()
            person.note_connection()
        if key in answers:
            sent = time.perf_counter() - phase.flow_started
            phase.latencies.append(await tab.send(events.answer, {"key": key, "answer": answers[key]}))
            phase.sent_at.append(sent)
            person.answered.add(key)
            if tab.errors:
                raise FlowError(f"answer {key} refused: {tab.errors}")
        if index < len(DECIDER_ROUTE) - 1:
            await asyncio.sleep(jitter(think_ms) / 5)  # a glance, then Next
            await tab.go_next()
            if tab.errors:
                raise FlowError(f"after {key}: {tab.errors}")
    await settle(person)


async def settle(person: Person) -> None:
    """The page's pending reports until the server has confirmed every answer (or gave up): only a
    confirmed answer is acknowledged."""
    person.unconfirmed = await person.tab.confirm_pending()
    person.acked = dict(person.tab.saved.kept)


async def blank_flow(person: Person, noop: str, think_ms: float, phase: Phase) -> None:
    """The blank app's stand-in for take_survey: the same pauses, a no-op for every answer and next."""
    tab = person.tab
    await asyncio.sleep(random.uniform(0, think_ms / 1000))
    await tab.send(noop)
    for index, (_key, value) in enumerate(DECIDER_ROUTE):
        await asyncio.sleep(jitter(think_ms))
        if value is not None:
            phase.latencies.append(await tab.send(noop))
        if index < len(DECIDER_ROUTE) - 1:
            await asyncio.sleep(jitter(think_ms) / 5)
            await tab.send(noop)


async def run_all(people: list[Person], phase: Phase, flow) -> list[Person]:
    """Run `flow(person)` for everyone; those that fail are counted and closed; returns the others."""

    async def one(person: Person) -> Person | None:
        try:
            await flow(person)
            return person
        except Exception as error:  # noqa: BLE001 - counted, the others go on
            phase.fail(error)
            await person.tab.close()
            return None

    return [p for p in await asyncio.gather(*(one(p) for p in people)) if p is not None]


async def saturate(
    people: list[Person], name: str, payloads: list[dict[str, Any]], seconds: float, phase: Phase
) -> None:
    """Every tab sends the event back to back for `seconds`, taking the payloads in turn (answers that
    change each time, so each is saved, not skipped as unchanged): events acknowledged per second."""
    deadline = time.perf_counter() + seconds
    started = time.perf_counter()

    async def one(person: Person) -> None:
        try:
            turn = 0
            while time.perf_counter() < deadline:
                payload = payloads[turn % len(payloads)]
                turn += 1
                await person.tab.send(name, payload)
                if time.perf_counter() <= deadline:
                    phase.saturation_events += 1
        except Exception as error:  # noqa: BLE001 - counted
            phase.fail(error)

    await asyncio.gather(*(one(p) for p in people))
    phase.saturation_seconds = min(seconds, time.perf_counter() - started)
    if payloads[0]:  # the portal's answers: confirmed afterwards, as the page does
        await asyncio.gather(*(settle(p) for p in people), return_exceptions=True)


async def close_all(people: list[Person]) -> None:
    await asyncio.gather(*(p.tab.close() for p in people), return_exceptions=True)


async def portal_level(
    url: str, accounts: list[tuple[int, str]], test_id: int, opts: argparse.Namespace
) -> tuple[Phase, list[Person]]:
    events, answers, phase = Events.survey(), answer_objects(), Phase()
    people = [Person(aid, Tab(url, cookie, test_id, events, Samples())) for aid, cookie in accounts]
    opened = await open_all(people, phase, opts.open_parallel, lambda p: p.tab.open_page())
    if opts.arrivals_only:
        await close_all(people)
        return phase, []
    phase.flow_started = time.perf_counter()
    done = await run_all(opened, phase, lambda p: take_survey(p, events, answers, opts.think_ms, opts.proxy, phase))
    last_key = DECIDER_ROUTE[-1][0]
    edited = {**answers[last_key], "value": f"{answers[last_key]['value']} (edited)"}
    log("  portal: saturation")  # a marker for a profiler started alongside
    await saturate(
        done[: opts.saturation_tabs],
        events.answer,
        [{"key": last_key, "answer": edited}, {"key": last_key, "answer": answers[last_key]}],
        opts.saturation_seconds,
        phase,
    )
    await close_all(people)
    return phase, people


class BlankTab(Tab):
    """A tab on the blank app: hydrated, its state's no-op event named from the delta."""

    noop = ""
    fetch_html = False  # the blank app runs its backend alone: it has no page to fetch

    async def open_page(self, until_phase: str = "") -> None:
        marker, router_data = self._router_data()
        await self.client.connect(
            {"name": self.events.hydrate, "payload": self._hydrate_payload(), "router_data": router_data}
        )
        update = await self._until_echo(marker)
        while True:
            names = [k for k in update.delta if k.endswith("blank_state")]
            if names:
                self.noop = f"{names[0]}.noop"
            if self.hydrated and self.noop:
                return
            update = await self.client.next_update(60)
            self._observe(update)


async def blank_level(url: str, count: int, opts: argparse.Namespace) -> Phase:
    from reflex.state import State

    events = Events(
        hydrate=f"{State.get_full_name()}.hydrate_and_load",
        answer="",
        noop="",
        start="",
        next="",
        begin="",
        survey_state="-",
        rate_state="-",
    )
    phase = Phase()
    people = [Person(0, BlankTab(url, "", 1, events, Samples())) for _ in range(count)]
    opened = await open_all(people, phase, opts.open_parallel, lambda p: p.tab.open_page())
    if opts.arrivals_only:
        await close_all(people)
        return phase
    done = await run_all(opened, phase, lambda p: blank_flow(p, p.tab.noop, opts.think_ms, phase))
    if done:
        await saturate(done[: opts.saturation_tabs], done[0].tab.noop, [{}], opts.saturation_seconds, phase)
    await close_all(people)
    return phase


# --- the stored drafts ----------------------------------------------------------------------


def stored_drafts(database_url: str, test_id: int, account_ids: list[int]) -> dict[int, dict[str, Any]]:
    """Each account's active review session draft for the test, as the database holds it."""
    import psycopg

    with psycopg.connect(database_url) as conn:
        rows = conn.execute(
            "SELECT account_id, draft_answers FROM review_session"
            " WHERE test_id = %s AND account_id = ANY(%s) AND status = 'active'",
            (test_id, account_ids),
        ).fetchall()
    return {aid: (answers if isinstance(answers, dict) else json.loads(answers or "{}")) for aid, answers in rows}


def count_missing(people: list[Person], drafts: dict[int, dict[str, Any]]) -> int:
    """Answers the server acknowledged that the stored draft does not hold (with that value)."""
    missing = 0
    for person in people:
        draft = drafts.get(person.account_id, {})
        for key, value in person.acked.items():
            stored = draft.get(key)
            if not isinstance(stored, dict) or stored.get("value") != value:
                missing += 1
    return missing


def acknowledged_missing(database_url: str, test_id: int, people: list[Person]) -> int:
    """Wait for the draft writer's flush (every FLUSH_SECONDS), then count; counted again once if some are missing."""
    from portal.services.taking.draft_writer import FLUSH_SECONDS

    ids = [p.account_id for p in people if p.acked]
    missing = 0
    for wait in (4 * FLUSH_SECONDS, 10 * FLUSH_SECONDS):
        time.sleep(wait)
        missing = count_missing(people, stored_drafts(database_url, test_id, ids))
        if not missing:
            break
    return missing


def redis_footprint(url: str) -> tuple[int, int]:
    """The keys in the portal's Redis db and their bytes (MEMORY USAGE would count overhead: STRLEN)."""
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=3)
    keys = nbytes = 0
    for key in client.scan_iter(count=1000):
        keys += 1
        with contextlib.suppress(redis.ResponseError):
            nbytes += client.strlen(key)
    client.close()
    return keys, nbytes


# --- the proxy's log ------------------------------------------------------------------------


def connection_spread(people: list[Person], proxy_log: Path) -> dict[str, int]:
    """Which process served each connection (the proxy's log, by the client's local port)."""
    backend_of: dict[int, int] = {}
    for line in proxy_log.read_text().splitlines():
        port, index = line.split()
        backend_of[int(port)] = int(index)  # a port reused later: the newest connection
    connections = switched = both = 0
    for person in people:
        seq = [backend_of[p] for p in person.ports if p in backend_of]
        connections += len(seq)
        switched += sum(1 for a, b in zip(seq, seq[1:], strict=False) if a != b)
        both += len(set(seq)) > 1
    return {
        "connections": connections,
        "consecutive_switched": switched,
        "consecutive_pairs": sum(max(0, len(p.ports) - 1) for p in people),
        "participants_on_both": both,
    }


# --- a level --------------------------------------------------------------------------------


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def rounded(value: float, digits: int = 1) -> float | None:
    return None if value != value else round(value, digits)  # NaN (nothing measured) -> null


def ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 2) if a is not None and b else None


def run_level(
    stack: Stack, database_url: str, test_id: int, count: int, workers: int | None, opts: argparse.Namespace
) -> dict[str, Any]:
    """One level: the portal side, its stored drafts, then the blank app; one dict of figures."""
    accounts = make_participant_accounts(database_url, test_id, count)
    load, cpu0, wall0 = os.getloadavg()[0], cpu_seconds(), time.perf_counter()
    expired_before = stack.lock_expiries()
    portal_cpu0 = group_cpu_seconds(stack.portal_pgids)
    log(f"  portal: {count} tabs arrive")  # a marker for a profiler started alongside
    with RssSampler(stack.portal_pgids) as portal_rss:
        portal, people = asyncio.run(portal_level(stack.portal_url, accounts, test_id, opts))
    portal_cpu = group_cpu_seconds(stack.portal_pgids) - portal_cpu0
    missing = acknowledged_missing(database_url, test_id, people) if people else 0
    lock_expired = stack.lock_expiries() - expired_before
    redis_keys = redis_footprint(PORTAL_REDIS)
    blank, blank_rss, blank_cpu = None, None, 0.0
    if stack.blank_url and stack.blank_proc:
        blank_cpu0 = group_cpu_seconds([stack.blank_proc.pid])
        log(f"  blank app: {count} tabs arrive")
        with RssSampler([stack.blank_proc.pid]) as blank_rss:
            blank = asyncio.run(blank_level(stack.blank_url, count, opts))
        blank_cpu = group_cpu_seconds([stack.blank_proc.pid]) - blank_cpu0
    wall = time.perf_counter() - wall0
    row = figures(count, workers, stack, portal, missing, blank, portal_rss.peak, blank_rss.peak if blank_rss else None)
    row.update(
        lock_expired=lock_expired,
        answers_confirmed=sum(len(p.acked) for p in people),
        unconfirmed_pending=sum(p.unconfirmed for p in people),
        # answered, neither confirmed nor pending (by question): the server never called it a change
        never_confirmed=dict(collections.Counter(k for p in people for k in p.answered - set(p.acked))),
        client_cpu_percent=round(100 * (cpu_seconds() - cpu0) / wall, 1),
        load_average_before=round(load, 2),
        think_ms=opts.think_ms,
        arrivals_only=opts.arrivals_only,
        portal_redis_keys_per_tab=round(redis_keys[0] / max(1, portal.opened), 1),
        portal_redis_bytes_per_tab=round(redis_keys[1] / max(1, portal.opened)),
    )
    if opts.arrivals_only:  # the servers' CPU over the arrivals (and the tabs' closing), per tab opened
        row["portal_cpu_ms_per_tab"] = round(1000 * portal_cpu / max(1, portal.opened), 1)
        if blank is not None:
            row["blank_cpu_ms_per_tab"] = round(1000 * blank_cpu / max(1, blank.opened), 1)
        flush_redis(PORTAL_REDIS)  # the next level counts its own tabs' keys
    if stack.proxy_log is not None:
        row.update(connection_spread(people, stack.proxy_log))
    return row


def figures(
    count: int,
    workers: int | None,
    stack: Stack,
    portal: Phase,
    missing: int,
    blank: Phase | None,
    portal_rss: float,
    blank_rss: float | None,
) -> dict[str, Any]:
    a50, a95, a99 = (rounded(v) for v in percentiles(portal.latencies))
    processes = sum(len(group_pids(p)) for p in stack.portal_pgids)
    row: dict[str, Any] = {
        "mode": "proxy" if stack.proxy_log else "portal",
        "participants": count,
        # Granian's workers per portal process (each `reflex run` is one supervisor and its workers)
        "workers": (processes - len(stack.portal_pgids)) // max(1, len(stack.portal_pgids)) if processes else workers,
        "workers_asked": workers or "default",
        "server_processes": processes,
        "answer_p50_ms": a50,
        "answer_p95_ms": a95,
        "answer_p99_ms": a99,
        "answer_p95_by_10s": by_window(portal),
        "answers": len(portal.latencies),
        "errors": len(portal.errors),
        "error_samples": portal.errors[:MAX_ERROR_SAMPLES],
        "acknowledged_missing": missing,
        "tabs_opened": portal.opened,
        "tabs_per_s": rounded(portal.opened / portal.open_seconds if portal.open_seconds else float("nan")),
        "answer_events_per_s": rounded(rate(portal)),
        "portal_rss_mb": round(portal_rss, 1),
    }
    if blank is not None:
        b50, b95, b99 = (rounded(v) for v in percentiles(blank.latencies))
        row.update(
            {
                "blank_noop_p50_ms": b50,
                "blank_noop_p95_ms": b95,
                "blank_noop_p99_ms": b99,
                "blank_errors": len(blank.errors),
                "blank_tabs_per_s": rounded(blank.opened / blank.open_seconds if blank.open_seconds else float("nan")),
                "blank_noop_events_per_s": rounded(rate(blank)),
                "blank_rss_mb": round(blank_rss or 0, 1),
            }
        )
        row["ratios_portal_over_blank"] = {
            "p95": ratio(a95, b95),
            "events_per_s": ratio(row["answer_events_per_s"], row["blank_noop_events_per_s"]),
            "tabs_per_s": ratio(row["tabs_per_s"], row["blank_tabs_per_s"]),
            "rss": ratio(row["portal_rss_mb"], row["blank_rss_mb"]),
        }
    return row


def by_window(phase: Phase, seconds: float = 10.0) -> list[list[float]]:
    """[start of the window (s), answers sent in it, their p95 (ms)] for each `seconds` of the paced flow:
    where in the level the slow answers were (the starts of a wave of arrivals, or all along)."""
    windows: dict[int, list[float]] = collections.defaultdict(list)
    for at, latency in zip(phase.sent_at, phase.latencies, strict=False):
        windows[int(at // seconds)].append(latency)
    return [[index * seconds, len(found), rounded(percentiles(found)[1])] for index, found in sorted(windows.items())]


def rate(phase: Phase) -> float:
    return phase.saturation_events / phase.saturation_seconds if phase.saturation_seconds else float("nan")


# --- output ---------------------------------------------------------------------------------


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


COLUMNS = [  # (header, key, format)
    ("workers", "workers", "{}"),
    ("N", "participants", "{}"),
    ("ans p50", "answer_p50_ms", "{}"),
    ("p95", "answer_p95_ms", "{}"),
    ("p99", "answer_p99_ms", "{}"),
    ("errors", "errors", "{}"),
    ("missing", "acknowledged_missing", "{}"),
    ("tabs/s", "tabs_per_s", "{}"),
    ("ans ev/s", "answer_events_per_s", "{}"),
    ("RSS MB", "portal_rss_mb", "{}"),
    ("blank p95", "blank_noop_p95_ms", "{}"),
    ("tabs/s", "blank_tabs_per_s", "{}"),
    ("noop ev/s", "blank_noop_events_per_s", "{}"),
    ("RSS MB", "blank_rss_mb", "{}"),
    ("client CPU %", "client_cpu_percent", "{}"),
]


def print_table(rows: list[dict[str, Any]]) -> None:
    print("\nportal (answers) | blank app (no-ops); latency ms from send to state update; ev/s at saturation")
    print("".join(f"{h:>11}" for h, _, _ in COLUMNS))
    for row in rows:
        print("".join(f"{fmt.format(row.get(key, '-')):>11}" for _, key, fmt in COLUMNS))
    print(
        "\nportal / blank: "
        + "; ".join(
            f"N={r['participants']} w={r['workers']}: "
            + ", ".join(f"{k} {v}" for k, v in r.get("ratios_portal_over_blank", {}).items())
            for r in rows
        )
    )
    for row in rows:
        if "connections" in row:
            print(
                f"N={row['participants']} via the proxy: {row['connections']} connections, "
                f"{row['consecutive_switched']} of {row['consecutive_pairs']} consecutive pairs "
                "on different processes, "
                f"{row['participants_on_both']} participants served by both"
            )
        for sample in row["error_samples"]:
            print(f"N={row['participants']} error: {sample}")


# --- main -----------------------------------------------------------------------------------


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", type=int, nargs="+", default=[100, 300, 1000, 2000], help="participants per level")
    parser.add_argument(
        "--workers",
        type=int,
        nargs="+",
        default=[0],
        help="Granian workers per server, one run per value (0: the project's default)",
    )
    parser.add_argument(
        "--think-ms", type=float, default=5000, help="mean pause before each answer (jittered 0.5-1.5x)"
    )
    parser.add_argument("--open-parallel", type=int, default=100, help="handshakes in flight during the arrivals")
    parser.add_argument("--saturation-tabs", type=int, default=200)
    parser.add_argument("--saturation-seconds", type=float, default=10)
    parser.add_argument(
        "--proxy",
        action="store_true",
        help="two portal processes behind a round-robin proxy; participants reconnect before each answer",
    )
    parser.add_argument("--url", help="measure a portal already running here (with --database-url; no blank app)")
    parser.add_argument("--database-url", help="the PostgreSQL database of the portal given with --url")
    parser.add_argument("--json", action="store_true", help="one JSON object per level on stdout")
    parser.add_argument(
        "--arrivals-only",
        action="store_true",
        help="only the wave of arrivals (tabs opened per second), portal and blank app; no survey",
    )
    parser.add_argument(
        "--trace",
        metavar="FILE",
        help="the portal's per-event and per-db.run times appended to FILE (bench/trace, as survey_load.py --trace)",
    )
    parser.add_argument("--pg-name", default=PG_NAME, help="the PostgreSQL database made for the run (dropped first)")
    parser.add_argument("--portal-redis", default=PORTAL_REDIS, help="the portal's Redis db (flushed)")
    parser.add_argument("--blank-redis", default=BLANK_REDIS, help="the blank app's Redis db (flushed)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (server logs)")
    parser.add_argument(
        "--no-hashes",
        action="store_true",
        help="first hydrates without the hashes of the page's compiled defaults (a browser sends them)",
    )
    return parser.parse_args()


def raise_open_files() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def main() -> None:
    global PORTAL_REDIS, BLANK_REDIS
    opts = parse_args()
    PORTAL_REDIS, BLANK_REDIS = opts.portal_redis, opts.blank_redis
    raise_open_files()
    folder = Path(tempfile.mkdtemp(prefix="scale-load-"))
    log(f"logs in {folder}")
    rows = []
    try:
        if opts.url:
            if not opts.database_url:
                raise SystemExit("--url needs --database-url")
            database_url = opts.database_url
            stacks = [(0, contextlib.nullcontext(Stack(opts.url.rstrip("/"), [])))]
        else:
            database_url = prepare_database("postgres", folder, opts.pg_name)
            stacks = [(w, running_stack(opts, database_url, w or None, folder)) for w in opts.workers]
        test_id = import_bench_survey(database_url)
        if not opts.no_hashes:  # each tab's first hydrate carries the hashes a browser sends (survey_flow.Tab)
            Tab.hashes = frontend_hashes(ROOT, "portal.portal")[0]
            if not opts.url:
                BlankTab.hashes, names = frontend_hashes(write_blank_app(folder / "blank-hashes"), "blank.blank")
                # at its defaults the blank state is not in the first hydrate's delta: its name from the app
                BlankTab.noop = next(f"{n}.noop" for n in names if n.endswith("blank_state"))
        for workers, stack_cm in stacks:
            with stack_cm as stack:
                for count in opts.levels:
                    log(f"level: {count} participants, workers {workers or 'default'}")
                    row = run_level(stack, database_url, test_id, count, workers or None, opts)
                    rows.append(row)
                    if opts.json:
                        print(json.dumps(row), flush=True)
    finally:
        if not opts.keep:
            shutil.rmtree(folder, ignore_errors=True)
    if not opts.json:
        print_table(rows)


if __name__ == "__main__":
    main()
