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
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.survey_flow import (  # noqa: E402 - after the path
    DECIDER_ROUTE,
    PG_NAME,
    STARTUP_TIMEOUT,
    VENV_BIN,
    Events,
    FlowError,
    Samples,
    Tab,
    answer_objects,
    import_bench_survey,
    make_participants,
    percentiles,
    prepare_database,
)

# --- the portal server ----------------------------------------------------------------------


def start_server(
    database_url: str,
    port: int,
    log_path: Path,
    trace_path: Path | None = None,
    profile_event: str | None = None,
    switch_interval: float | None = None,
    redis_url: str = "",
) -> subprocess.Popen:
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


async def participant(
    base_url: str,
    cookie: str,
    test_id: int,
    events: Events,
    samples: Samples,
    gate: asyncio.Semaphore,
    ready: asyncio.Barrier,
    go: asyncio.Event,
    think_ms: float,
) -> None:
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


# --- a run ----------------------------------------------------------------------------------


@dataclass
class Result:
    participants: int
    backend: str
    samples: Samples
    seconds: float
    client_cpu: float = 0.0
    trace: list[str] = field(default_factory=list)

    percentiles = staticmethod(percentiles)


async def run_load(
    base_url: str, cookies: list[str], test_id: int, events: Events, think_ms: float, connect_parallel: int = 20
) -> tuple[Samples, float]:
    samples = Samples()
    ready = asyncio.Barrier(len(cookies) + 1)
    go = asyncio.Event()
    gate = asyncio.Semaphore(connect_parallel)

    tasks = [
        asyncio.create_task(participant(base_url, cookie, test_id, events, samples, gate, ready, go, think_ms))
        for cookie in cookies
    ]
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
        kind, event, label, ms, inside = line.split("\t")[:5]
        rows.setdefault((event, kind, label), []).append((float(ms), float(inside)))
    counts = {event: len(v) for (event, kind, _), v in rows.items() if kind == "execute"}
    out = [f"  {'event':<38}{'part':<40}{'calls':>7}{'mean':>8}{'p50':>8}{'p95':>8}{'inside':>8}"]
    for (event, kind, label), values in sorted(
        rows.items(), key=lambda kv: (kv[0][0], {"execute": 0, "handler": 1, "db": 2}.get(kv[0][1], 3))
    ):
        if counts.get(event, 0) < 5:
            continue
        ms = [v[0] for v in values]
        p95 = statistics.quantiles(ms, n=20, method="inclusive")[18] if len(ms) > 1 else ms[0]
        inside = statistics.fmean(v[1] for v in values) if kind == "db" else math.nan
        part = {"execute": "event under its lock (load, run, save)", "handler": "handler + delta"}.get(
            kind, f"db.run {label}"
        )
        out.append(
            f"  {event:<38}{part[:39]:<40}{len(ms):>7}{statistics.fmean(ms):>8.2f}{statistics.median(ms):>8.2f}"
            f"{p95:>8.2f}{'' if math.isnan(inside) else f'{inside:.2f}':>8}"
        )
    return out


def print_table(results: list[Result]) -> None:
    header = (
        f"{'N':>4} {'backend':<9}{'answer p50':>11}{'p95':>8}{'p99':>8}{'noop p50':>10}{'p95':>8}{'p99':>8}"
        f"{'answers/s':>11}{'events/s':>10}{'p95 ratio':>10}"
    )
    print("\nlatency from sending an event to its state update (ms); events/s over the whole run")
    print(header)
    for r in results:
        a = r.percentiles(r.samples.answer)
        n = r.percentiles(r.samples.noop)
        print(
            f"{r.participants:>4} {r.backend:<9}{a[0]:>11.1f}{a[1]:>8.1f}{a[2]:>8.1f}"
            f"{n[0]:>10.1f}{n[1]:>8.1f}{n[2]:>8.1f}"
            f"{len(r.samples.answer) / r.seconds:>11.1f}{r.samples.events_sent / r.seconds:>10.1f}{a[1] / n[1]:>10.2f}"
        )
    print(
        "\nload generator CPU (this process, share of one core): "
        + ", ".join(f"N={r.participants} {r.client_cpu / r.seconds:.0%}" for r in results)
    )
    for r in results:
        if r.trace:
            print(
                f"\nserver time per event, N={r.participants} {r.backend} (ms; 'inside' = the service function alone)"
            )
            print("\n".join(r.trace))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--participants", type=int, nargs="+", default=[1, 50, 200])
    parser.add_argument(
        "--think-ms",
        type=float,
        default=0,
        help="mean pause before each answer, no-op and next (0: back to back, the server saturated)",
    )
    parser.add_argument(
        "--min-answers",
        type=int,
        default=240,
        help="small N run several passes (fresh participants) until this many answers are measured",
    )
    parser.add_argument("--port", type=int, default=3301)
    parser.add_argument(
        "--pg-name", default=PG_NAME, help="the PostgreSQL database to drop, re-create and use (--backend postgres)"
    )
    parser.add_argument(
        "--redis-url", default="", help="keep the portal's state in this Redis database instead of on disk"
    )
    parser.add_argument(
        "--trace",
        action="store_true",
        help="timing logs in the server (bench/trace/sitecustomize.py): where an event's time goes",
    )
    parser.add_argument(
        "--profile-event",
        metavar="HANDLER",
        help="with --trace: run this handler under cProfile (e.g. SurveyState.set_answer; use one participant)",
    )
    parser.add_argument(
        "--switch-interval",
        type=float,
        metavar="SECONDS",
        help="experiment: sys.setswitchinterval in the portal (Python's default is 0.005)",
    )
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
        proc = start_server(
            database_url,
            args.port,
            data_dir / "server.log",
            trace_path,
            args.profile_event,
            args.switch_interval,
            redis_url=args.redis_url,
        )
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
            print(
                f"  N={n}: {passes} pass(es), {len(total.answer)} answers, {len(total.noop)} no-ops "
                f"in {seconds:.1f} s (load average before: {load:.2f})",
                flush=True,
            )
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
