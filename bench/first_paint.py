"""First paint of a test: the rating page's largest contentful paint against a blank Reflex app's.

Serves, both as users get them (`reflex run --env prod --single-port`, one worker):
- the portal, on a fresh SQLite database (or PostgreSQL `--pg-name`) with a copy of the demo survey
  and one seeded participant with an open invite and a live session (bench/survey_load.py's
  helpers: prepare_database, import_bench_survey, make_participants, start_server);
- a blank Reflex app (one page, one heading and a line of text), generated in a temporary folder.

Then opens the rating page /test/{id}/rate (signed in: the survey's welcome) and the blank page N
times each, alternating, in /usr/bin/chromium through Playwright, one new tab per opening in one
browser context per app (assets cached, as for a person opening a test from the invite list), and
reads from the page:
- LCP: the last `largest-contentful-paint` entry once the content is shown (#survey-welcome for the
  rating page, the heading for the blank page) and 400 ms more have passed;
- the load-chain events: Socket.IO event frames the page sent over the websocket until the content
  was shown (the CONNECT packet carrying `hydrate_and_load`, then every `42[...]` event packet).

Prints p50/p95 of each, their ratio rating/blank, and the frames.

    .venv/bin/python bench/first_paint.py --rounds 30
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import survey_load  # noqa: E402
from tests.support.chromium import CHROMIUM_ARGS, CHROMIUM_PATH  # noqa: E402

BLANK_TEXT = "A blank Reflex page"
SETTLE_MS = 400

# Records every LCP entry; nothing else.
LCP_OBSERVER = """
window.__lcp = [];
new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__lcp.push(e.startTime); })
  .observe({type: 'largest-contentful-paint', buffered: true});
"""


def blank_app(folder: Path) -> Path:
    """A blank Reflex app (same Reflex, same prod build): one page with a heading and a text."""
    app = folder / "blank"
    (app / "blank").mkdir(parents=True)
    (app / "rxconfig.py").write_text(
        textwrap.dedent("""
        import os
        import reflex as rx

        port = int(os.environ["PORT"])
        config = rx.Config(app_name="blank", telemetry_enabled=False, show_built_with_reflex=False,
                           frontend_port=port, backend_port=port, api_url=f"http://localhost:{port}",
                           disable_plugins=[rx.plugins.SitemapPlugin])
    """)
    )
    (app / "blank" / "__init__.py").write_text("")
    (app / "blank" / "blank.py").write_text(
        textwrap.dedent(f"""
        import reflex as rx


        def index() -> rx.Component:
            return rx.container(rx.heading("Blank", size="7", id="blank-title"), rx.text({BLANK_TEXT!r}))


        app = rx.App()
        app.add_page(index, route="/")
    """)
    )
    return app


def start_blank(app: Path, port: int, log_path: Path) -> subprocess.Popen:
    env = dict(
        os.environ,
        PORT=str(port),
        REFLEX_USE_NPM="1",
        REFLEX_TELEMETRY_ENABLED="false",
        PATH=f"{survey_load.VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}",
    )
    env.pop("REDIS_URL", None)
    log = log_path.open("w")
    proc = subprocess.Popen(
        [
            str(survey_load.VENV_BIN / "reflex"),
            "run",
            "--env",
            "prod",
            "--single-port",
            "--frontend-port",
            str(port),
            "--backend-port",
            str(port),
        ],
        env=env,
        cwd=app,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    import httpx

    deadline = time.monotonic() + survey_load.STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the blank app exited:\n{log_path.read_text()[-3000:]}")
        try:
            if (
                httpx.get(f"http://localhost:{port}/", timeout=2).status_code == 200
                and httpx.get(f"http://localhost:{port}/ping", timeout=2).status_code == 200
            ):
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(1)
    survey_load.stop_server(proc)
    raise SystemExit("the blank app did not start")


def open_once(context, url: str, shown: str) -> tuple[float, int, list[str], dict[str, float]]:
    """Open `url` in a new tab; (LCP ms, event frames sent until `shown` is visible, their names,
    when things happened in ms after the navigation started: the socket's hydrate sent, the first and
    the last state update received before the content was shown, the content shown)."""
    page = context.new_page()
    frames: list[str] = []
    done = {"shown": False}
    marks: dict[str, float] = {}
    started = time.perf_counter()

    def at() -> float:
        return (time.perf_counter() - started) * 1000

    def on_socket(ws) -> None:
        def sent(payload) -> None:
            if done["shown"] or not isinstance(payload, str):
                return
            if payload.startswith("40") and '"event"' in payload:  # CONNECT carrying hydrate_and_load
                marks.setdefault("hydrate sent", at())
                frames.append("connect:" + payload.split('"name":"', 1)[-1].split('"', 1)[0].rsplit(".", 1)[-1])
            elif payload.startswith("42"):
                frames.append(payload.split('"name":"', 1)[-1].split('"', 1)[0].rsplit(".", 1)[-1])

        def received(payload) -> None:
            if done["shown"] or not isinstance(payload, str) or not payload.startswith("42"):
                return
            marks.setdefault("first update", at())
            marks["last update"] = at()

        ws.on("framesent", sent)
        ws.on("framereceived", received)

    page.on("websocket", on_socket)
    page.goto(url, wait_until="commit")
    page.wait_for_selector(shown, state="visible", timeout=60_000)
    marks["shown (seen by the script)"] = at()
    done["shown"] = True
    page.wait_for_timeout(SETTLE_MS)
    entries = page.evaluate("window.__lcp")
    page.close()
    if not entries:
        raise RuntimeError(f"no LCP entry for {url}")
    return float(entries[-1]), len(frames), frames, marks


def print_state_figures(redis_url: str) -> None:
    """The states an event of the survey loads (Reflex's own rule: the state, its parents, and every
    state with a computed var depending on any of them), and with Redis the keys each tab left."""
    from reflex.istate.manager.redis import StateManagerRedis
    from reflex.state import State

    import portal.portal  # noqa: F401 - every state of the app registered
    from portal.states.taking.rate import RateState
    from portal.states.taking.survey import SurveyState

    rule = StateManagerRedis.__new__(StateManagerRedis)
    print("\nstates loaded per event (and saved when changed):")
    for cls in (SurveyState, RateState, State):
        required = sorted(c.__name__ for c in rule._get_required_state_classes(cls, subclasses=cls is State))
        shown = ", ".join(required) if len(required) < 12 else "every state of the app"
        print(f"  an event of {cls.__name__:<12} {len(required):>3}: {shown}")
    if not redis_url:
        return
    import redis

    client = redis.Redis.from_url(redis_url)
    tabs: dict[str, list[tuple[str, int]]] = {}
    for key in client.scan_iter(match="*_reflex___state____state*", count=1000):
        text = key.decode()
        ident, _, name = text.partition("_reflex___state____state")
        tabs.setdefault(ident, []).append((name.rsplit(".", 1)[-1] or "State", client.strlen(key)))
    if not tabs:
        print("  no state keys in Redis")
        return
    counts = [len(v) for v in tabs.values()]
    sizes = [sum(size for _, size in v) for v in tabs.values()]
    example = max(tabs.values(), key=len)
    print(
        f"Redis: {len(tabs)} tabs, keys per tab p50 {statistics.median(counts):.0f} (max {max(counts)}), "
        f"bytes per tab p50 {statistics.median(sizes):,.0f}"
    )
    print(
        "  the keys of one tab: " + ", ".join(f"{name.split('___')[-1]} ({size:,})" for name, size in sorted(example))
    )


def pct(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] if len(values) > 1 else values[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--port", type=int, default=3311)
    parser.add_argument("--blank-port", type=int, default=3312)
    parser.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--pg-name", default="paint_first_paint", help="the PostgreSQL database (--backend postgres)")
    parser.add_argument(
        "--redis-url",
        default="",
        help="keep the portal's state in this Redis database (emptied first), e.g. "
        "redis://127.0.0.1:6379/13, and count the keys each opened tab left there",
    )
    parser.add_argument(
        "--trace", action="store_true", help="timing logs in the portal (bench/trace): each load event's server time"
    )
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    data_dir = Path(tempfile.mkdtemp(prefix="first-paint-"))
    database_url = survey_load.prepare_database(args.backend, data_dir, args.pg_name)
    test_id = survey_load.import_bench_survey(database_url)
    cookie = survey_load.make_participants(database_url, test_id, 1)[0]
    name, _, value = cookie.partition("=")
    print(f"starting the portal on :{args.port} and a blank app on :{args.blank_port}; logs in {data_dir}", flush=True)
    portal = blank = None
    try:
        trace_path = data_dir / "trace.tsv" if args.trace else None
        if args.redis_url:
            import redis

            redis.Redis.from_url(args.redis_url).flushdb()
        portal = survey_load.start_server(
            database_url, args.port, data_dir / "portal.log", trace_path, redis_url=args.redis_url
        )
        blank = start_blank(blank_app(data_dir), args.blank_port, data_dir / "blank.log")
        rate_url = f"http://localhost:{args.port}/test/{test_id}/rate"
        blank_url = f"http://localhost:{args.blank_port}/"
        results: dict[str, tuple[list[float], list[int], list[str]]] = {
            "rating page": ([], [], []),
            "blank app": ([], [], []),
        }
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM_PATH, args=CHROMIUM_ARGS)
            contexts = {}
            for label in ("rating page", "blank app"):
                ctx = browser.new_context(viewport={"width": 1280, "height": 800})
                ctx.add_init_script(LCP_OBSERVER)
                if label == "rating page":
                    ctx.add_cookies([{"name": name, "value": value, "url": f"http://localhost:{args.port}"}])
                contexts[label] = ctx
            cases = [("rating page", rate_url, "#survey-welcome"), ("blank app", blank_url, "#blank-title")]
            load = os.getloadavg()[0]
            timeline: dict[str, dict[str, list[float]]] = {}
            for i in range(args.warmup + args.rounds):
                for label, url, shown in cases if i % 2 == 0 else cases[::-1]:
                    lcp, count, names, when = open_once(contexts[label], url, shown)
                    if i >= args.warmup:
                        results[label][0].append(lcp)
                        results[label][1].append(count)
                        results[label][2][:] = names
                        for mark, ms in when.items():
                            timeline.setdefault(label, {}).setdefault(mark, []).append(ms)
            browser.close()
    finally:
        for proc in (portal, blank):
            if proc is not None:
                survey_load.stop_server(proc)
    print(f"\n{args.rounds} openings each (after {args.warmup} warm-up), load average before: {load:.2f}")
    print(f"{'page':<14}{'LCP p50':>9}{'p95':>9}{'event frames until shown':>27}  frames (last opening)")
    for label, (lcps, counts, names) in results.items():
        print(
            f"{label:<14}{statistics.median(lcps):>9.1f}{pct(lcps, 95):>9.1f}{statistics.median(counts):>27.0f}  "
            f"{', '.join(names)}"
        )
    print("\nmedian ms after the navigation started (Playwright's clock):")
    for label, marks in timeline.items():
        print(f"  {label:<14}" + ", ".join(f"{mark} {statistics.median(ms):.0f}" for mark, ms in marks.items()))
    print_state_figures(args.redis_url)
    if args.trace:
        print("\nserver time per event of the openings (ms):")
        print("\n".join(survey_load.summarize_trace(data_dir / "trace.tsv")))
    rate, base = results["rating page"][0], results["blank app"][0]
    print(
        f"ratio rating/blank: p50 {statistics.median(rate) / statistics.median(base):.2f}, "
        f"p95 {pct(rate, 95) / pct(base, 95):.2f}"
    )


if __name__ == "__main__":
    main()
